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
"""The kubesched repository."""

TEMPLATE = REPO / "core" / "src" / "kubesched" / "_template"
"""The template: copier.yml and questions.yml, the package's files in project/."""

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
    """A git repository holding the template as it ships inside kubesched (copier.yml at
    its root), as `kubesched new-plugin` keeps one in the user's cache."""
    shutil.copytree(TEMPLATE, dest, ignore=shutil.ignore_patterns("__pycache__"))
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


DISTRIBUTIONS = {
    "kubesched": REPO / "core",
    "kubesched-builtin": REPO / "plugins-builtin",
    "kubesched-coscheduling": REPO / "plugins-coscheduling",
    "kubesched-volumebinding": REPO / "plugins-volumebinding",
    "kubesched-dra": REPO / "plugins-dra",
}
"""Every distribution this repository publishes, by name, with its source folder."""


def build_distributions(dest: Path) -> Path:
    """Build each distribution's sdist and wheel into `dest` with `python -m build`, as the
    release workflow does (isolated builds: the backend comes from the package index)."""
    for source in DISTRIBUTIONS.values():
        done = subprocess.run(
            [sys.executable, "-m", "build", "--outdir", str(dest), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return dest


class Venv:
    """A fresh virtual environment to install into, as a user's would be."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.python = root / "bin" / "python"

    def bin(self, name: str) -> str:
        return str(self.root / "bin" / name)

    def run(
        self,
        args: Sequence[str],
        cwd: Path | None = None,
        timeout: float = 600,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args),
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=env,
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
                *targets,
            ]
        )
        assert done.returncode == 0, done.stdout + done.stderr


def make_venv(root: Path, wheels: Path) -> Venv:
    """A new virtual environment at `root` with kubesched (testing and template extras) and
    kubesched-builtin installed from the built wheels in `wheels` (not the source tree, and
    not editable: as a user gets them). Their dependencies come from the package index."""
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    venv = Venv(root)
    venv.pip_install(
        "--only-binary=kubesched,kubesched-builtin",
        "--find-links",
        str(wheels),
        "kubesched[testing,template]",
        "kubesched-builtin",
    )
    return venv
