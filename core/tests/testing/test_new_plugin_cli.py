"""`kubesched new-plugin DEST`: the template's questions as options, copier underneath."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from kubesched.cli import _new_plugin
from kubesched.cli._main import main

pytest.importorskip("copier")

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's template, committed in a repository of its own."""
    root = tmp_path_factory.mktemp("kubesched")
    shutil.copy2(REPO / "copier.yml", root / "copier.yml")
    shutil.copytree(
        REPO / "template",
        root / "template",
        ignore=lambda folder, names: {"tests"} if Path(folder) == REPO / "template" else set(),
    )
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "template"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=root,
            check=True,
            capture_output=True,
        )
    return root


def test_new_plugin_generates_the_package(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "rack"
    code = main(
        [
            "new-plugin",
            str(dest),
            "--name",
            "Rack",
            "--package",
            "acme-rack",
            "--point",
            "Filter",
            "--point",
            "Reserve",
            "--author",
            "Acme",
            "--template",
            str(template),
            "-y",
        ]
    )
    assert code == 0
    assert "Created acme-rack" in capsys.readouterr().out
    answers = yaml.safe_load((dest / ".copier-answers.yml").read_text())
    assert answers["plugin_name"] == "Rack"
    assert answers["module_name"] == "acme_rack"
    assert answers["extension_points"] == ["Filter", "Reserve"]
    assert answers["author_name"] == "Acme"
    plugin = (dest / "src" / "acme_rack" / "plugin.py").read_text()
    assert "class Rack(FilterPlugin, ReservePlugin, EnqueueExtensions):" in plugin
    assert 'Rack = "acme_rack:Rack"' in (dest / "pyproject.toml").read_text()
    assert (dest / "tests" / "test_conformance.py").is_file()


def test_bad_answers_are_bad_input(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "new-plugin",
            str(tmp_path / "x"),
            "--name",
            "not-camel",
            "--template",
            str(template),
            "-y",
        ]
    )
    assert code == 2
    assert "must be CamelCase" in capsys.readouterr().err


def test_the_template_is_found_from_the_environment_first(
    monkeypatch: pytest.MonkeyPatch, template: Path
) -> None:
    monkeypatch.setenv(_new_plugin.TEMPLATE_ENV, str(template))
    assert _new_plugin.find_template() == str(template)
    monkeypatch.delenv(_new_plugin.TEMPLATE_ENV)
    try:
        found = Path(_new_plugin.find_template())
    except Exception:  # kubesched installed outside its repository
        return
    assert (found / "copier.yml").is_file() and (found / "template" / "project").is_dir()
