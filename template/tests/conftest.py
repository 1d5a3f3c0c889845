"""Fixtures for the template's tests.

`pytest template/tests` runs everything; `pytest template/tests -m "not roundtrip"` skips the
slow build-install-and-run round trip, `-m roundtrip` runs only that.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from template_helpers import Venv, build_distributions, make_template_repo, make_venv


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "roundtrip: builds the distributions, installs their wheels into a fresh venv and "
        "makes, tests and uses plugin packages there (slow, needs the package index)",
    )


@pytest.fixture(scope="session")
def template_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The template, committed once for the session (do not change it: make a repository
    of your own with `make_template_repo`)."""
    return make_template_repo(tmp_path_factory.mktemp("tpl") / "kubesched")


@pytest.fixture(scope="session")
def distributions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every distribution's sdist and wheel, built once for the session."""
    return build_distributions(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def plugin_venv(tmp_path_factory: pytest.TempPathFactory, distributions: Path) -> Venv:
    return make_venv(tmp_path_factory.mktemp("venv") / "env", distributions)
