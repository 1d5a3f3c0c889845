"""`kubesched plugins`: what is installed."""

from __future__ import annotations

import json

import click
from rich.markup import escape
from rich.table import Table

from kubesched.cli._console import fit_table, output_console
from kubesched.runtime import DiscoveredPlugin, PluginRegistry

__all__ = ["plugins_command"]


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def plugins_command(as_json: bool) -> None:
    """List every plugin found through the `kubesched.plugins` entry points."""
    registry = PluginRegistry.discover()
    entries = sorted(registry.entries.values(), key=lambda e: (e.distribution or "", e.name))
    if as_json:
        rows = [
            {
                "name": e.name,
                "distribution": e.distribution,
                "version": e.version,
                "extensionPoints": e.extension_points,
                "value": e.value,
                "status": "ok" if e.ok else "broken",
                "error": e.error,
            }
            for e in entries
        ]
        click.echo(json.dumps(rows, indent=2))
        return
    console = output_console()
    table = _table("Installed plugins", entries, with_distribution=True)
    if fit_table(table, console, text={3, 4}):
        console.print(table)
        return
    # too narrow for a row per plugin with its distribution: a table per distribution
    by_distribution: dict[tuple[str, str], list[DiscoveredPlugin]] = {}
    for e in entries:
        by_distribution.setdefault((e.distribution or "-", e.version or "-"), []).append(e)
    for (distribution, version), group in by_distribution.items():
        title = f"Installed plugins of {distribution} {version}"
        table = _table(title, group, with_distribution=False)
        fit_table(table, console, text={1, 2})
        console.print(table)


def _table(title: str, entries: list[DiscoveredPlugin], *, with_distribution: bool) -> Table:
    table = Table(title=escape(title), title_justify="left")
    table.add_column("Plugin")
    if with_distribution:
        table.add_column("Distribution")
        table.add_column("Version")
    table.add_column("Extension points")
    table.add_column("Status")
    for e in entries:
        row = [escape(e.name)]
        if with_distribution:
            row += [escape(e.distribution or "-"), escape(e.version or "-")]
        status = "[green]ok[/]" if e.ok else f"[red]broken: {escape(str(e.error))}[/]"
        table.add_row(*row, ", ".join(e.extension_points), status)
    return table
