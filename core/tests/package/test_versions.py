"""Versions agree, as docs/releasing.md relies on: kubesched's `__version__` is its
pyproject's, and every plugin package and the template accept this kubesched."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement

import kubesched
from kubesched._install import CHECKOUT_FOLDERS

REPO = Path(__file__).resolve().parents[3]


def _project(folder: str) -> dict[str, object]:
    data = tomllib.loads((REPO / folder / "pyproject.toml").read_text(encoding="utf-8"))
    project = data["project"]
    assert isinstance(project, dict)
    return project


def test_version_attribute_is_the_pyproject_version() -> None:
    assert kubesched.__version__ == _project("core")["version"]


@pytest.mark.parametrize("folder", [f for d, f in CHECKOUT_FOLDERS.items() if d != "kubesched"])
def test_plugin_packages_accept_this_kubesched(folder: str) -> None:
    dependencies = _project(folder)["dependencies"]
    assert isinstance(dependencies, list)
    (core,) = [Requirement(d) for d in dependencies if Requirement(d).name == "kubesched"]
    assert kubesched.__version__ in core.specifier


def test_new_plugin_packages_accept_this_kubesched() -> None:
    questions = yaml.safe_load(
        (REPO / "core/src/kubesched/_template/questions.yml").read_text(encoding="utf-8")
    )
    requirement = Requirement("kubesched" + questions["kubesched_requirement"]["default"])
    assert kubesched.__version__ in requirement.specifier
