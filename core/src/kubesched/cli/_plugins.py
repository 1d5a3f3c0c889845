"""`kubesched plugins`: what is installed."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.table import Table

from kubesched.runtime import PluginRegistry

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
    table = Table(title="Installed plugins", title_justify="left")
    for col in ("Plugin", "Distribution", "Version", "Extension points", "Status"):
        table.add_column(col)
    for e in entries:
        status = "[green]ok[/]" if e.ok else f"[red]broken: {e.error}[/]"
        table.add_row(
            e.name, e.distribution or "-", e.version or "-", ", ".join(e.extension_points), status
        )
    Console().print(table)
