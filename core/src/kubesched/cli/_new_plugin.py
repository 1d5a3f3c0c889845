"""`kubesched new-plugin DEST`: a new plugin package from the copier template.

It is `copier copy <kubesched repository> DEST` with the template's questions as options;
what is not given is asked (or defaulted with `--defaults`, or when nobody can answer).
The package can later follow the template with `copier update`. Needs the `template`
extra (copier).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from kubesched._errors import KubeschedError

__all__ = ["TEMPLATE_ENV", "TEMPLATE_POINTS", "find_template", "new_plugin_command"]

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


def find_template() -> str:
    """$KUBESCHED_TEMPLATE, else the kubesched repository this kubesched runs from (its
    root holds copier.yml and template/project)."""
    configured = os.environ.get(TEMPLATE_ENV)
    if configured:
        return configured
    import kubesched

    for folder in Path(kubesched.__file__).resolve().parents:
        if (folder / "copier.yml").is_file() and (folder / "template" / "project").is_dir():
            return str(folder)
    raise KubeschedError(
        "cannot find the plugin template: pass --template with the kubesched repository "
        f"(a path or a git URL), or set {TEMPLATE_ENV}"
    )


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
    help=f"The kubesched repository to take the template from (default: ${TEMPLATE_ENV}, "
    "or the repository kubesched runs from).",
)
@click.option(
    "--vcs-ref", default=None, help="Template version: a git tag or commit (default: latest)."
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
    defaults: bool,
) -> None:
    """Create a plugin package in DEST: pyproject.toml with its entry point, a working
    example plugin and its Args, tests that run the conformance kit, tox.ini, README."""
    try:
        import copier
        from copier.errors import CopierError
    except ImportError:
        raise KubeschedError(
            "kubesched new-plugin needs copier: pip install 'kubesched[template]'"
        ) from None
    src = template or find_template()
    given: dict[str, Any] = {
        "plugin_name": plugin_name,
        "package_name": package_name,
        "module_name": module_name,
        "label_key": label_key,
        "author_name": author_name,
        "author_email": author_email,
        "extension_points": list(points) or None,
    }
    data = {key: value for key, value in given.items() if value is not None}
    try:
        worker = copier.run_copy(
            src,
            str(dest),
            data=data,
            defaults=defaults or not sys.stdin.isatty(),
            vcs_ref=vcs_ref,
            unsafe=False,
            quiet=True,
        )
    except (CopierError, ValueError) as exc:  # copier reports a refused answer as ValueError
        raise KubeschedError(f"new-plugin: {exc}") from None
    answers = worker.answers.combined
    click.echo(
        f"Created {answers['package_name']} in {dest} "
        f"(plugin {answers['plugin_name']}: {', '.join(answers['extension_points'])}).\n"
        f"Next:\n"
        f"  cd {dest}\n"
        f"  pip install -e '.[test]'\n"
        f"  pytest                                # its tests and the conformance kit\n"
        f"  kubesched conformance {answers['plugin_name']}"
    )
