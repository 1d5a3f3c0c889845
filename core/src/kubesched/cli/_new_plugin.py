"""`kubesched new-plugin DEST` and `kubesched update-plugin`: a plugin package from the
copier template that ships inside kubesched, and later versions of it.

`new-plugin` is `copier copy` with the template's questions as options; what is not given
is asked (or defaulted with `--defaults`, or when nobody can answer). The template is taken
from a git repository kubesched keeps in the user's cache (see `_template_repo`), so the
package can follow the template with `kubesched update-plugin` or `copier update`. While
kubesched itself is not on the package index, the wheels of the installed kubesched go to
a wheelhouse the package's tox.ini and README point pip at (see `_wheelhouse`).
Needs the `template` extra (copier).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click
import yaml

from kubesched._errors import KubeschedError
from kubesched.cli._template_repo import GitUnavailableError, packaged_template, sync_template_repo
from kubesched.cli._wheelhouse import cache_dir, fill_wheelhouse

__all__ = [
    "TEMPLATE_ENV",
    "TEMPLATE_POINTS",
    "WHEELHOUSE_DISTRIBUTIONS",
    "new_plugin_command",
    "update_plugin_command",
]

TEMPLATE_ENV = "KUBESCHED_TEMPLATE"
"""Where the template is, when not given with --template: a path or a git URL."""

TEMPLATE_POINTS = (
    "PreEnqueue",
    "PreFilter",
    "Filter",
    "PreScore",
    "Score",
    "Reserve",
    "Permit",
    "PostBind",
)
"""The extension points the template's example plugin can implement."""

WHEELHOUSE_DISTRIBUTIONS = ("kubesched", "kubesched-builtin")
"""What a generated package installs from kubesched: the core (its dependency) and the
default plugins (its test extra: the conformance kit's end-to-end check runs them)."""


def _copier() -> Any:
    try:
        import copier as module
    except ImportError:
        raise KubeschedError(
            "kubesched new-plugin needs copier: pip install 'copier>=9,<10'"
        ) from None
    return module


def _template_source(template: str | None) -> tuple[str, str | None]:
    """(copier source, vcs ref): --template or $KUBESCHED_TEMPLATE as given, else the
    packaged template through the cache repository (the folder itself without git)."""
    configured = template or os.environ.get(TEMPLATE_ENV)
    if configured:
        return configured, None
    try:
        repo = cache_dir() / "template"
        return str(repo), sync_template_repo(repo)
    except GitUnavailableError:
        click.echo(
            "note: git is not installed, so the package cannot follow later templates with "
            "`copier update`",
            err=True,
        )
        return str(packaged_template()), None


def _wheelhouse(wanted: bool) -> str:
    """The wheelhouse folder for the generated package, or "" when not `wanted` (kubesched
    is on the user's index, so pip finds it there)."""
    if not wanted:
        return ""
    folder = fill_wheelhouse(WHEELHOUSE_DISTRIBUTIONS, cache_dir() / "wheels")
    return str(folder) if folder is not None else ""


@click.command("new-plugin")
@click.argument("dest", type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", "plugin_name", help="The plugin's name, CamelCase (e.g. NodePool).")
@click.option("--package", "package_name", help="The distribution name (pip install NAME).")
@click.option("--module", "module_name", help="The Python package name.")
@click.option(
    "--point",
    "points",
    multiple=True,
    type=click.Choice(TEMPLATE_POINTS),
    help="An extension point the example plugin implements (repeat for several).",
)
@click.option("--label-key", help="The label the example plugin matches pods and nodes on.")
@click.option("--author", "author_name", help="Your name.")
@click.option("--email", "author_email", help="Your email.")
@click.option(
    "--template",
    "template",
    help=f"A copier template to use instead (a path or git URL; default: ${TEMPLATE_ENV}, "
    "or the template inside this kubesched).",
)
@click.option(
    "--vcs-ref", default=None, help="Template version: a git tag or commit (default: latest)."
)
@click.option(
    "--wheelhouse/--no-wheelhouse",
    default=True,
    help="Put wheels of this kubesched in a folder the package's tox and README point pip "
    "at, for environments where no package index holds kubesched (default); "
    "--no-wheelhouse when yours does.",
)
@click.option(
    "--defaults", "-y", is_flag=True, help="Ask nothing: defaults for every answer not given."
)
def new_plugin_command(
    dest: Path,
    plugin_name: str | None,
    package_name: str | None,
    module_name: str | None,
    points: tuple[str, ...],
    label_key: str | None,
    author_name: str | None,
    author_email: str | None,
    template: str | None,
    vcs_ref: str | None,
    wheelhouse: bool,
    defaults: bool,
) -> None:
    """Create a plugin package in DEST: pyproject.toml with its entry point, a working
    example plugin and its Args, tests that run the conformance kit, tox.ini, README."""
    copier = _copier()
    src, ref = _template_source(template)
    given: dict[str, Any] = {
        "plugin_name": plugin_name,
        "package_name": package_name,
        "module_name": module_name,
        "label_key": label_key,
        "author_name": author_name,
        "author_email": author_email,
        "extension_points": list(points) or None,
        "kubesched_wheelhouse": _wheelhouse(wheelhouse),
    }
    data = {key: value for key, value in given.items() if value is not None}
    try:
        worker = copier.run_copy(
            src,
            str(dest),
            data=data,
            defaults=defaults or not sys.stdin.isatty(),
            vcs_ref=vcs_ref or ref,
            unsafe=False,
            quiet=True,
        )
    except (copier.errors.CopierError, ValueError) as exc:  # a refused answer is a ValueError
        raise KubeschedError(f"new-plugin: {exc}") from None
    answers = worker.answers.combined
    click.echo(
        f"Created {answers['package_name']} in {dest} "
        f"(plugin {answers['plugin_name']}: {', '.join(answers['extension_points'])}).\n"
        f"Next:\n"
        f"  cd {dest}\n"
        f"  {_pip_install_line(answers['kubesched_wheelhouse'])}\n"
        f"  pytest                                # its tests and the conformance kit\n"
        f"  kubesched conformance {answers['plugin_name']}"
    )


def _pip_install_line(wheelhouse: str) -> str:
    links = f"--find-links {wheelhouse} " if wheelhouse else ""
    return f"pip install {links}-e '.[test]'"


@click.command("update-plugin")
@click.argument("path", default=".", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--defaults", "-y", is_flag=True, help="Ask nothing: keep every earlier answer.")
def update_plugin_command(path: Path, defaults: bool) -> None:
    """Bring the plugin package in PATH (made by new-plugin, committed to git) up to the
    template of this kubesched: `copier update`, after refreshing kubesched's template
    repository and wheelhouse."""
    copier = _copier()
    if not (path / ".copier-answers.yml").is_file():
        raise KubeschedError(
            f"{path}: no .copier-answers.yml here; run update-plugin in a package made by "
            "kubesched new-plugin"
        )
    try:
        ref = sync_template_repo(cache_dir() / "template")
    except GitUnavailableError:
        raise KubeschedError("update-plugin needs git (copier update does)") from None
    answers = yaml.safe_load((path / ".copier-answers.yml").read_text(encoding="utf-8"))
    had_wheelhouse = isinstance(answers, dict) and bool(answers.get("kubesched_wheelhouse"))
    try:
        copier.run_update(
            str(path),
            data={"kubesched_wheelhouse": _wheelhouse(had_wheelhouse)},
            defaults=defaults or not sys.stdin.isatty(),
            overwrite=True,
            vcs_ref=ref,
            unsafe=False,
            quiet=True,
        )
    except (copier.errors.CopierError, ValueError) as exc:
        raise KubeschedError(f"update-plugin: {exc}") from None
    click.echo(f"Updated {path} to the template of kubesched {ref.removeprefix('v')}.")
