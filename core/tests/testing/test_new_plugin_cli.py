"""`kubesched new-plugin DEST` and `update-plugin`: the template that ships inside kubesched,
copied through a git repository in the user's cache, and a wheelhouse of the installed
kubesched for packages to install from while kubesched is not on the package index."""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import importlib_metadata
import pytest
import yaml

from kubesched import __version__
from kubesched.cli import _new_plugin, _template_repo
from kubesched.cli._main import main
from kubesched.cli._wheelhouse import CACHE_ENV, pack_wheel

pytest.importorskip("copier")


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One wheelhouse for the module: built by the first new-plugin, then up to date."""
    return tmp_path_factory.mktemp("wheels")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wheels: Path) -> Path:
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "wheels").symlink_to(wheels)
    monkeypatch.setenv(CACHE_ENV, str(folder))
    monkeypatch.delenv(_new_plugin.TEMPLATE_ENV, raising=False)
    return folder


@pytest.fixture
def template_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The packaged template copied where a test may change it, as a newer kubesched would."""
    copy = tmp_path / "packaged"
    shutil.copytree(_template_repo.packaged_template(), copy)
    monkeypatch.setattr(_template_repo, "packaged_template", lambda: copy)
    return copy


def _new(dest: Path, *extra: str) -> int:
    return main(["new-plugin", str(dest), "--name", "Rack", "--package", "acme-rack", *extra])


def test_new_plugin_uses_the_template_inside_kubesched(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "rack"
    code = _new(dest, "--point", "Filter", "--point", "Reserve", "--author", "Acme", "-y")
    assert code == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "Created acme-rack" in out
    answers = yaml.safe_load((dest / ".copier-answers.yml").read_text())
    assert answers["plugin_name"] == "Rack"
    assert answers["module_name"] == "acme_rack"
    assert answers["extension_points"] == ["Filter", "Reserve"]
    assert answers["author_name"] == "Acme"
    # the cache repository is the recorded source, at this kubesched's version
    assert answers["_src_path"] == str(cache / "template")
    assert answers["_commit"] == f"v{__version__}"
    plugin = (dest / "src" / "acme_rack" / "plugin.py").read_text()
    bases = "FilterPlugin[RackArgs], ReservePlugin[RackArgs], EnqueueExtensions"
    assert f"class Rack({bases}):" in plugin
    assert 'Rack = "acme_rack:Rack"' in (dest / "pyproject.toml").read_text()


def test_new_plugin_records_a_wheelhouse_of_the_installed_kubesched(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """These tests run from a local (editable) install, as a checkout's user has: kubesched
    is on no index, so the package must find it in the wheelhouse."""
    dest = tmp_path / "rack"
    assert _new(dest, "-y") == 0
    wheels = cache / "wheels"
    names = sorted(p.name for p in wheels.glob("*.whl"))
    assert names == [
        f"kubesched-{__version__}-py3-none-any.whl",
        f"kubesched_builtin-{__version__}-py3-none-any.whl",
    ]
    assert yaml.safe_load((dest / ".copier-answers.yml").read_text())[
        "kubesched_wheelhouse"
    ] == str(wheels)
    tox = (dest / "tox.ini").read_text()
    assert f"PIP_FIND_LINKS = {{env:KUBESCHED_WHEELHOUSE:{wheels}}}" in tox
    readme = (dest / "README.md").read_text()
    assert f"pip install --find-links {wheels} -e '.[test]'" in readme
    assert f"pip install --find-links {wheels} -e '.[test]'" in capsys.readouterr().out
    # the wheel carries the template too, so new-plugin works from it
    with zipfile.ZipFile(wheels / names[0]) as wheel:
        assert "kubesched/_template/project/pyproject.toml.jinja" in wheel.namelist()


def test_the_cache_repository_gets_a_new_tag_only_when_the_template_changes(
    cache: Path, template_copy: Path
) -> None:
    repo = cache / "template"
    assert _template_repo.sync_template_repo(repo) == f"v{__version__}"
    assert _template_repo.sync_template_repo(repo) == f"v{__version__}"
    changelog = template_copy / "project" / "CHANGELOG.md.jinja"
    changelog.write_text(changelog.read_text() + "- a newer template\n")
    assert _template_repo.sync_template_repo(repo) == f"v{__version__}+1"
    assert _git(repo, "tag", "--list").split() == [f"v{__version__}", f"v{__version__}+1"]
    assert "- a newer template" in (repo / "project" / "CHANGELOG.md.jinja").read_text()


def test_update_plugin_brings_in_a_newer_template_and_keeps_edits(
    cache: Path, template_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "rack"
    assert _new(dest, "--point", "Filter", "-y") == 0
    _git(dest, "init", "-q", "-b", "main")
    readme = dest / "README.md"
    readme.write_text(readme.read_text() + "\nOur own notes.\n")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "generated")

    changelog = template_copy / "project" / "CHANGELOG.md.jinja"
    changelog.write_text(changelog.read_text() + "- Newer template: tox runs ruff too.\n")
    assert main(["update-plugin", str(dest), "-y"]) == 0, capsys.readouterr().err
    assert f"template of kubesched {__version__}+1" in capsys.readouterr().out
    assert "- Newer template: tox runs ruff too." in (dest / "CHANGELOG.md").read_text()
    assert "Our own notes." in readme.read_text()
    answers = yaml.safe_load((dest / ".copier-answers.yml").read_text())
    assert answers["_commit"] == f"v{__version__}+1"
    assert answers["plugin_name"] == "Rack" and answers["extension_points"] == ["Filter"]


def test_update_plugin_outside_a_generated_package_is_bad_input(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["update-plugin", str(tmp_path)]) == 2
    assert "no .copier-answers.yml here" in capsys.readouterr().err


def test_without_git_the_package_is_still_made(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_run = subprocess.run

    def no_git(args: list[str], *a: object, **kw: object) -> object:
        if args[0] == "git":
            raise FileNotFoundError("git")
        return real_run(args, *a, **kw)  # type: ignore[call-overload]

    monkeypatch.setattr(_template_repo.subprocess, "run", no_git)
    dest = tmp_path / "rack"
    assert _new(dest, "-y") == 0
    assert "git is not installed" in capsys.readouterr().err
    assert (dest / "src" / "acme_rack" / "plugin.py").is_file()


def test_bad_answers_are_bad_input(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["new-plugin", str(tmp_path / "x"), "--name", "not-camel", "-y"])
    assert code == 2
    assert "must be CamelCase" in capsys.readouterr().err


def test_a_template_from_the_environment_comes_first(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "mine"
    shutil.copytree(_template_repo.packaged_template(), mine)
    (mine / "project" / "MINE.md").write_text("from my template\n")
    monkeypatch.setenv(_new_plugin.TEMPLATE_ENV, str(mine))
    dest = tmp_path / "rack"
    assert _new(dest, "-y") == 0
    assert (dest / "MINE.md").read_text() == "from my template\n"
    assert not (cache / "template").exists()


def test_pack_wheel_repacks_an_installed_distribution(tmp_path: Path) -> None:
    """A distribution installed from files is packed back into a wheel whose RECORD holds
    and which imports, without its source or a build backend."""
    dist = importlib_metadata.Distribution.from_name("pluggy")
    wheel_path = pack_wheel(dist, tmp_path)
    assert wheel_path.name == f"pluggy-{dist.version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel_path) as wheel:
        names = wheel.namelist()
        info = f"pluggy-{dist.version}.dist-info"
        assert f"{info}/METADATA" in names and f"{info}/WHEEL" in names
        assert not {f"{info}/INSTALLER", f"{info}/direct_url.json"} & set(names)
        assert not [n for n in names if "__pycache__" in n or n.startswith("..")]
        for line in wheel.read(f"{info}/RECORD").decode().splitlines():
            name, digest, size = line.split(",")
            if name == f"{info}/RECORD":
                continue
            data = wheel.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == f"sha256={expected.decode()}" and int(size) == len(data)
    done = subprocess.run(
        [sys.executable, "-c", "import pluggy; print(pluggy.__file__)"],
        env={"PYTHONPATH": str(wheel_path)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert str(wheel_path) in done.stdout


def test_no_wheelhouse_when_kubesched_is_on_the_index(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "rack"
    assert _new(dest, "--no-wheelhouse", "-y") == 0
    assert yaml.safe_load((dest / ".copier-answers.yml").read_text())["kubesched_wheelhouse"] == ""
    assert "PIP_FIND_LINKS" not in (dest / "tox.ini").read_text()
    assert "pip install -e '.[test]'" in (dest / "README.md").read_text()
    assert "pip install -e '.[test]'" in capsys.readouterr().out
