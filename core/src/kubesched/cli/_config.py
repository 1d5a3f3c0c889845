"""`kubesched config defaults`: the effective configuration."""

from __future__ import annotations

import json

import click
import yaml

from kubesched.cli._report import left_out_reason
from kubesched.config import effective_config_dict, load_config, resolve
from kubesched.runtime import PluginRegistry

__all__ = ["config_group"]


@click.group("config")
def config_group() -> None:
    """Inspect scheduler configurations."""


@config_group.command("defaults")
@click.option(
    "--config",
    "config",
    type=click.Path(exists=True, dir_okay=False),
    help="Show the effective form of this file instead of the defaults.",
)
@click.option(
    "--output", "-o", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True
)
def defaults_command(config: str | None, output: str) -> None:
    """Print the effective configuration: every profile's plugins per extension point,
    weights and args, and the default plugins left out because their package is missing."""
    registry = PluginRegistry.discover()
    resolved = resolve(load_config(config), registry, config)
    data = effective_config_dict(resolved)
    if output == "json":
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(yaml.safe_dump(data, sort_keys=False), nl=False)
    for prof in resolved.profiles:
        for name, dist in prof.left_out:
            click.echo(
                f"# {prof.scheduler_name}: default plugin {name} left out: {left_out_reason(dist)}",
                err=True,
            )
