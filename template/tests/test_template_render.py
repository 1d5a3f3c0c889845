"""What the template generates, for several answers, without installing anything: the
package's files, its entry point and kubesched range, clean code, and `copier update`."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from template_helpers import ALL_POINTS, REPO, TEMPLATE, generate, git, make_template_repo

import kubesched
from kubesched.testing import plugin_api_violations

copier = pytest.importorskip("copier")

ANSWERS = [
    pytest.param({}, id="defaults"),
    pytest.param({"plugin_name": "ZonePick", "extension_points": ALL_POINTS}, id="all-points"),
    pytest.param(
        {
            "plugin_name": "RackGate",
            "package_name": "acme-rack-gate",
            "module_name": "acme_rack",
            "extension_points": ["PreEnqueue"],
            "label_key": "acme.example/rack",
        },
        id="pre-enqueue-only",
    ),
    pytest.param({"plugin_name": "Tagger", "extension_points": ["PostBind"]}, id="post-bind-only"),
    pytest.param(
        {"plugin_name": "Quota", "extension_points": ["PreFilter", "Reserve", "Permit"]},
        id="no-filter-or-score",
    ),
]


def answers_of(project: Path) -> dict[str, object]:
    data = yaml.safe_load((project / ".copier-answers.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_default_package_layout(template_repo: Path, tmp_path: Path) -> None:
    project = generate(template_repo, tmp_path / "p")
    files = {p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()}
    assert files == {
        ".copier-answers.yml",
        ".gitignore",
        "CHANGELOG.md",
        "README.md",
        "pyproject.toml",
        "tox.ini",
        "examples/cluster.yaml",
        "examples/config.yaml",
        "src/kubesched_nodepool/__init__.py",
        "src/kubesched_nodepool/args.py",
        "src/kubesched_nodepool/plugin.py",
        "src/kubesched_nodepool/py.typed",
        "tests/conftest.py",
        "tests/test_conformance.py",
        "tests/test_plugin.py",
    }
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["name"] == "kubesched-nodepool"
    assert meta["project"]["entry-points"]["kubesched.plugins"] == {
        "NodePool": "kubesched_nodepool:NodePool"
    }
    (requirement,) = meta["project"]["dependencies"]
    assert requirement.startswith("kubesched>=")
    assert kubesched.__version__ in SpecifierSet(requirement.removeprefix("kubesched"))
    assert 'pytest_plugins = ["kubesched.testing"]' in (project / "tests/conftest.py").read_text()
    answers = answers_of(project)
    assert answers["extension_points"] == ["Filter", "Score"]
    assert answers["_commit"] and answers["_src_path"] == str(template_repo)


@pytest.mark.parametrize("answers", ANSWERS)
def test_generated_code_is_clean(
    template_repo: Path, tmp_path: Path, answers: dict[str, Any]
) -> None:
    project = generate(template_repo, tmp_path / "p", **answers)
    module = answers.get("module_name") or answers_of(project)["module_name"]
    plugin = (project / "src" / str(module) / "plugin.py").read_text(encoding="utf-8")
    points = answers.get("extension_points", ["Filter", "Score"])
    for point in ALL_POINTS:
        assert bool(re.search(rf"\b{point}Plugin\b", plugin)) == (point in points), point
    assert plugin_api_violations(project / "src") == []
    ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        pytest.skip("ruff is not installed")
    for args in (["check", "--no-cache", "."], ["format", "--check", "--no-cache", "."]):
        done = subprocess.run([ruff, *args], cwd=project, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_bad_answers_are_refused(template_repo: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="must be CamelCase"):
        generate(template_repo, tmp_path / "p", plugin_name="node-pool")
    with pytest.raises(ValueError, match="choose at least one extension point"):
        generate(template_repo, tmp_path / "q", extension_points=[])


@pytest.mark.parametrize(
    "source", [REPO, TEMPLATE], ids=["from-the-repository", "from-the-template-folder"]
)
def test_plain_copier_copy(tmp_path: Path, source: Path) -> None:
    """`copier copy <kubesched repository or the packaged template> DEST`, the command line
    a user types, gives the same package."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "copier",
            "copy",
            "--defaults",
            "--data",
            "plugin_name=Shelf",
            "--vcs-ref",
            "HEAD",
            str(source),
            str(tmp_path / "shelf"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    plugin = tmp_path / "shelf" / "src" / "kubesched_shelf" / "plugin.py"
    assert (
        "class Shelf(FilterPlugin[ShelfArgs], ScorePlugin[ShelfArgs], EnqueueExtensions):"
        in plugin.read_text()
    )


def test_copier_update_brings_template_changes(tmp_path: Path) -> None:
    """A generated package follows a newer template with `copier update`, keeping its own
    edits and its answers."""
    src = make_template_repo(tmp_path / "kubesched")
    project = generate(src, tmp_path / "plugin", plugin_name="Rack", extension_points=["Filter"])
    git(project, "init", "-q", "-b", "main")
    readme = project / "README.md"
    readme.write_text(readme.read_text() + "\nOur own notes.\n", encoding="utf-8")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "generated")
    first = answers_of(project)["_commit"]

    changelog = src / "project" / "CHANGELOG.md.jinja"
    changelog.write_text(changelog.read_text() + "- Newer template: tox runs ruff too.\n")
    git(src, "commit", "-q", "-am", "template: a newer version")

    copier.run_update(
        str(project), defaults=True, overwrite=True, vcs_ref="HEAD", unsafe=False, quiet=True
    )
    assert "- Newer template: tox runs ruff too." in (project / "CHANGELOG.md").read_text()
    assert "Our own notes." in readme.read_text()
    answers = answers_of(project)
    assert answers["_commit"] != first
    assert answers["plugin_name"] == "Rack" and answers["extension_points"] == ["Filter"]
    assert not list(project.rglob("*.rej"))
