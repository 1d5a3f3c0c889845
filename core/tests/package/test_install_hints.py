"""Install hints work as written: kubesched's own distributions with their checkout folder
(kubesched may be on no index), extras as their third-party requirements."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from kubesched._install import CHECKOUT_FOLDERS, extra_hint, install_hint

REPO = Path(__file__).resolve().parents[3]


def test_every_distribution_has_its_checkout_folder() -> None:
    for name, folder in CHECKOUT_FOLDERS.items():
        meta = tomllib.loads((REPO / folder / "pyproject.toml").read_text(encoding="utf-8"))
        assert meta["project"]["name"] == name


def test_install_hint_names_the_index_and_the_checkout_forms() -> None:
    assert install_hint("kubesched-builtin", "kubesched-volumebinding") == (
        "pip install kubesched-builtin kubesched-volumebinding; "
        "from a kubesched checkout: pip install ./plugins-builtin ./plugins-volumebinding"
    )
    assert install_hint("acme-rack") == "pip install acme-rack"


def test_extra_hint_lists_the_extras_requirements_from_pyproject() -> None:
    meta = tomllib.loads((REPO / "core" / "pyproject.toml").read_text(encoding="utf-8"))
    for extra, requirements in meta["project"]["optional-dependencies"].items():
        hint = extra_hint(extra)
        assert hint.startswith("pip install '")
        named = [Requirement(part.strip("'")) for part in hint.removeprefix("pip install ").split()]
        assert {(canonicalize_name(r.name), r.specifier) for r in named} == {
            (canonicalize_name(Requirement(r).name), Requirement(r).specifier) for r in requirements
        }
