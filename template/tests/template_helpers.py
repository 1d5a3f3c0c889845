"""Helpers for the template's tests: the template in a throwaway git repository (as copier
needs for `copier update`), generating from it, and a virtual environment to install the
generated packages into."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
"""The kubesched repository: copier.yml at its root, the template in template/project."""

ALL_POINTS = [
    "PreEnqueue",
    "PreFilter",
    "Filter",
    "PreScore",
    "Score",
    "Reserve",
    "Permit",
    "PostBind",
]


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=kubesched", "-c", "user.email=kubesched@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def make_template_repo(dest: Path) -> Path:
    """A git repository holding the template as the kubesched repository does."""
    dest.mkdir(parents=True)
    shutil.copy2(REPO / "copier.yml", dest / "copier.yml")

    def leave_out(folder: str, names: list[str]) -> set[str]:
        cache = {n for n in names if n in ("__pycache__", ".pytest_cache")}
        return cache | ({"tests"} if Path(folder) == REPO / "template" else set())

    shutil.copytree(REPO / "template", dest / "template", ignore=leave_out)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "template")
    return dest


def generate(src: Path, dest: Path, **answers: Any) -> Path:
    import copier

    copier.run_copy(
        str(src), str(dest), data=answers, defaults=True, vcs_ref="HEAD", unsafe=False, quiet=True
    )
    return dest


class Venv:
    """A virtual environment with kubesched and kubesched-builtin installed from this
    repository (not editable: as a user would get them)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.python = root / "bin" / "python"

    def bin(self, name: str) -> str:
        return str(self.root / "bin" / name)

    def run(
        self, args: Sequence[str], cwd: Path | None = None, timeout: float = 600
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
        )

    def pip_install(self, *targets: str) -> None:
        done = self.run(
            [
                str(self.python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-build-isolation",
                *targets,
            ]
        )
        assert done.returncode == 0, done.stdout + done.stderr


def make_venv(root: Path) -> Venv:
    """A new virtual environment at `root` with kubesched (testing extra) and
    kubesched-builtin built from this repository."""
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    venv = Venv(root)
    # the build backend once, so every local package below builds without isolation
    done = venv.run(
        [
            str(venv.python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "hatchling>=1.27",
        ]
    )
    assert done.returncode == 0, done.stdout + done.stderr
    venv.pip_install(f"{REPO / 'core'}[testing]", str(REPO / "plugins-builtin"))
    return venv
