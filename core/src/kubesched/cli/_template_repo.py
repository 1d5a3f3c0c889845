"""The plugin template, as copier wants it: a git repository with a tag per version.

The template ships inside the kubesched distribution (``kubesched/_template``: copier.yml,
questions.yml and project/), so `kubesched new-plugin` works from any installed kubesched.
`copier update` needs the template under git with version tags, so kubesched keeps a small
repository in the user's cache and commits the packaged template into it whenever it
differs from the last commit, tagged ``v<kubesched version>`` (then ``v<version>+1``,
``+2`` ... if the same version ships another template, as in a development checkout).
Packages record that repository as their template source, and after kubesched is upgraded
`kubesched update-plugin` (or `copier update`, once the repository has caught up) brings
the new template in.
"""

from __future__ import annotations

import filecmp
import shutil
import subprocess
from pathlib import Path
from typing import Final

from packaging.version import Version

from kubesched import __version__
from kubesched._errors import KubeschedError

__all__ = ["GitUnavailableError", "packaged_template", "sync_template_repo"]

_GIT_IDENTITY: Final = ("-c", "user.name=kubesched", "-c", "user.email=kubesched@localhost")


class GitUnavailableError(KubeschedError):
    """git is not installed: the template can be copied, but not updated later."""


def packaged_template() -> Path:
    """The template inside the installed kubesched (a complete copier template)."""
    import kubesched

    folder = Path(kubesched.__file__).resolve().parent / "_template"
    if not (folder / "copier.yml").is_file():
        raise KubeschedError(
            f"this kubesched installation has no plugin template ({folder} is missing); "
            "reinstall kubesched"
        )
    return folder


def _git(repo: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *_GIT_IDENTITY, *args], cwd=repo, capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise GitUnavailableError("git is not installed") from None
    if done.returncode != 0:
        raise KubeschedError(f"git {' '.join(args)} in {repo}: {done.stderr.strip()}")
    return done.stdout.strip()


def _same_tree(a: Path, b: Path) -> bool:
    cmp = filecmp.dircmp(a, b, ignore=[".git", "__pycache__"])

    def same(c: filecmp.dircmp[str]) -> bool:
        if c.left_only or c.right_only or c.diff_files or c.funny_files:
            return False
        # dircmp compares by stat signature first; compare contents to be sure
        _, mismatch, errors = filecmp.cmpfiles(c.left, c.right, c.common_files, shallow=False)
        return not mismatch and not errors and all(same(s) for s in c.subdirs.values())

    return same(cmp)


def _next_tag(repo: Path) -> str:
    """``v<version>`` the first time this version is committed, then ``v<version>+N``."""
    tags = _git(repo, "tag", "--list", f"v{__version__}", f"v{__version__}+*").split()
    if not tags:
        return f"v{__version__}"
    latest = max(Version(t.removeprefix("v")) for t in tags)
    local = latest.local
    return f"v{__version__}+{int(local) + 1 if local else 1}"


def sync_template_repo(repo: Path) -> str:
    """Make `repo` (created if missing) hold the packaged template at its newest tag, and
    return that tag. Raises GitUnavailableError when git is missing."""
    source = packaged_template()
    if not (repo / ".git").is_dir():
        repo.mkdir(parents=True, exist_ok=True)
        _git(repo, "init", "-q", "-b", "main")
    elif _git(repo, "tag", "--list", "v*") and _same_tree(source, repo):
        return _git(repo, "describe", "--tags", "--exact-match", "HEAD")
    for child in repo.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    shutil.copytree(source, repo, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--allow-empty", "-m", f"kubesched {__version__} plugin template")
    tag = _next_tag(repo)
    _git(repo, "tag", tag)
    return tag
