"""`kubesched conformance NAME`: run the conformance kit on an installed plugin."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import click
import pydantic
import yaml
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kubesched._errors import ConfigError, KubeschedError, PluginLoadError
from kubesched._install import extra_hint
from kubesched.cli._console import fit_table, output_console
from kubesched.config import plugin_args_error
from kubesched.runtime import PluginRegistry
from kubesched.testing._runner import ConformanceReport, run_conformance

__all__ = ["conformance_command", "render_report"]

_STYLE = {"passed": "green", "warning": "yellow", "failed": "red", "not applicable": "dim"}


def _read_args(path: str | None) -> dict[str, Any]:
    """The plugin's args from a YAML or JSON file: what a pluginConfig entry's `args:` holds
    (a whole entry, `{name, args}`, is accepted too)."""
    if path is None:
        return {}
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read the plugin args: {exc}", file=path) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"expected a mapping of the plugin's args, got {type(data).__name__}", file=path
        )
    if set(data) <= {"name", "args"} and "args" in data:
        data = data["args"] or {}
    return dict(data)


def render_report(report: ConformanceReport, console: Console, *, details: bool) -> None:
    table = Table(title=f"Conformance of {report.plugin}", title_justify="left")
    for col in ("Point", "Check", "Result", "Detail"):
        table.add_column(col)
    for c in report.checks:
        style = _STYLE[c.outcome]
        table.add_row(
            escape(c.point), escape(c.check), f"[{style}]{c.outcome}[/]", escape(c.detail)
        )
    fit_table(table, console, text={1, 3})
    console.print(table)
    console.print(
        f"{report.count('passed')} passed, {report.count('warning')} warnings, "
        f"{report.count('failed')} failed, {report.count('not applicable')} not applicable"
    )
    if details:
        for c in report.checks:
            if c.outcome == "failed":
                console.rule(f"{c.point}: {c.test}")
                console.print(escape(c.report), highlight=False)
    if not report.checks:
        console.print(escape(report.output), highlight=False)


@click.command("conformance")
@click.argument("name")
@click.option(
    "--args",
    "args_file",
    type=click.Path(exists=True, dir_okay=False),
    help="A YAML or JSON file with the plugin's args (a pluginConfig entry's `args:`).",
)
@click.option(
    "--examples",
    type=click.IntRange(min=1),
    default=None,
    help="Generated examples per check (default 25).",
)
@click.option("--details", "-v", is_flag=True, help="Print the full report of every failed check.")
@click.option(
    "--strict",
    is_flag=True,
    help="Fail the checks that only warn (a rejecting plugin without events_to_register).",
)
def conformance_command(
    name: str, args_file: str | None, examples: int | None, details: bool, strict: bool
) -> None:
    """Run the conformance kit on the installed plugin NAME and print which checks passed,
    failed or do not apply. Exits non-zero when a check fails."""
    missing = [m for m in ("pytest", "hypothesis") if importlib.util.find_spec(m) is None]
    if missing:
        raise KubeschedError(
            f"kubesched conformance needs {' and '.join(missing)}: {extra_hint('testing')}"
        )
    args = _read_args(args_file)
    registry = PluginRegistry.discover()
    entry = registry.entries.get(name)
    if entry is None:
        installed = ", ".join(sorted(registry.entries)) or "none"
        raise PluginLoadError(name, f"no installed plugin has this name; installed: {installed}")
    console = output_console()
    if entry.error is not None:
        console.print(f"[red]{escape(name)} failed to load:[/] {escape(entry.error)}")
        raise click.exceptions.Exit(1)
    if args_file is not None and entry.plugin is not None:
        try:
            entry.plugin.Args.model_validate(args)
        except pydantic.ValidationError as exc:
            raise plugin_args_error(exc, entry.plugin.Args, name, args_file) from None
    report = run_conformance(name, args, examples=examples, strict=strict)
    render_report(report, console, details=details)
    if not report.ok:
        raise click.exceptions.Exit(1)
