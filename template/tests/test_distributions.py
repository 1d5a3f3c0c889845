"""Every distribution is ready to publish: its sdist and wheel build with `python -m build`,
pass `twine check --strict`, and carry what an installed package needs: its modules and
`py.typed`, its entry points as pyproject.toml declares them, the plugin template (the
kubesched wheel), and the README, changelog and tests (the sdist).

These build the distributions (isolated builds: the backend comes from the package index),
so they share the round trip's marker.
"""

from __future__ import annotations

import configparser
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.parser import HeaderParser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from template_helpers import DISTRIBUTIONS, TEMPLATE

pytestmark = pytest.mark.roundtrip


def _pyproject(name: str) -> dict[str, object]:
    data = tomllib.loads((DISTRIBUTIONS[name] / "pyproject.toml").read_text(encoding="utf-8"))
    project = data["project"]
    assert isinstance(project, dict)
    return project


def _artifacts(distributions: Path, name: str) -> tuple[Path, Path]:
    project = _pyproject(name)
    stem = f"{name.replace('-', '_')}-{project['version']}"
    wheel = distributions / f"{stem}-py3-none-any.whl"
    sdist = distributions / f"{stem}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in distributions.iterdir())
    return wheel, sdist


def test_twine_check_passes_every_artifact(distributions: Path) -> None:
    artifacts = sorted(str(p) for p in distributions.iterdir())
    assert len(artifacts) == 2 * len(DISTRIBUTIONS)
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *artifacts],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == len(artifacts)


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_wheel_metadata_and_entry_points(distributions: Path, name: str) -> None:
    project = _pyproject(name)
    wheel_path, _ = _artifacts(distributions, name)
    stem = wheel_path.name.split("-py3-")[0]
    with zipfile.ZipFile(wheel_path) as wheel:
        names = set(wheel.namelist())
        meta = HeaderParser().parsestr(wheel.read(f"{stem}.dist-info/METADATA").decode())
        entry_points = configparser.ConfigParser(delimiters=("=",))
        entry_points.optionxform = str  # type: ignore[assignment,method-assign]
        entry_points.read_string(wheel.read(f"{stem}.dist-info/entry_points.txt").decode())
    assert meta["Name"] == name and meta["Version"] == project["version"]
    assert meta["Requires-Python"] == project["requires-python"]
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta["Description-Content-Type"] == "text/markdown"
    required = [Requirement(r) for r in meta.get_all("Requires-Dist") or []]
    declared_deps = project["dependencies"]
    assert isinstance(declared_deps, list)
    assert {(canonicalize_name(r.name), r.specifier) for r in required if not r.marker} == {
        (canonicalize_name(r.name), r.specifier) for r in map(Requirement, declared_deps)
    }
    module = name.replace("-", "_")
    assert f"{module}/__init__.py" in names and f"{module}/py.typed" in names
    declared = project.get("entry-points", {})
    assert isinstance(declared, dict)
    for group, points in declared.items():
        assert dict(entry_points[group]) == points, group
        for target in points.values():
            path = target.split(":")[0].replace(".", "/")
            assert f"{path}.py" in names or f"{path}/__init__.py" in names, target
    if name == "kubesched":
        assert dict(entry_points["console_scripts"]) == {"kubesched": "kubesched.cli:main"}


def test_the_kubesched_wheel_carries_the_whole_template(distributions: Path) -> None:
    wheel_path, _ = _artifacts(distributions, "kubesched")
    expected = {
        f"kubesched/_template/{p.relative_to(TEMPLATE).as_posix()}"
        for p in TEMPLATE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert "kubesched/_template/project/.gitignore" in expected
    with zipfile.ZipFile(wheel_path) as wheel:
        shipped = {n for n in wheel.namelist() if n.startswith("kubesched/_template/")}
    assert shipped == expected


@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_sdist_holds_the_source_tests_and_docs(distributions: Path, name: str) -> None:
    _, sdist_path = _artifacts(distributions, name)
    root = sdist_path.name.removesuffix(".tar.gz")
    with tarfile.open(sdist_path) as sdist:
        members = {m.name.removeprefix(f"{root}/") for m in sdist.getmembers()}
    module = name.replace("-", "_")
    for required in ("pyproject.toml", "README.md", "CHANGELOG.md", "PKG-INFO"):
        assert required in members, required
    assert f"src/{module}/__init__.py" in members
    assert any(m.startswith("tests/") for m in members)
