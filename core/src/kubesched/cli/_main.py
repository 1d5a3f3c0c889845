"""The `kubesched` command."""

from __future__ import annotations

import sys

import click

from kubesched import __version__
from kubesched._errors import KubeschedError
from kubesched.cli._compare import compare_command
from kubesched.cli._config import config_group
from kubesched.cli._conformance import conformance_command
from kubesched.cli._new_plugin import new_plugin_command, update_plugin_command
from kubesched.cli._plugins import plugins_command
from kubesched.cli._report_html import schema_group
from kubesched.cli._run import run_command
from kubesched.cli._simulate import simulate_command
from kubesched.cli._snapshot import snapshot_command
from kubesched.cli._sweep import schema_sweep_command, sweep_command

__all__ = ["EXIT_BAD_INPUT", "cli", "main"]

EXIT_BAD_INPUT = 2
"""Exit code for bad input: a malformed manifest or config, an unknown plugin."""


@click.group()
@click.version_option(__version__, prog_name="kubesched")
def cli() -> None:
    """kubesched: the Kubernetes Scheduling Framework in Python."""


cli.add_command(simulate_command)
cli.add_command(snapshot_command)
cli.add_command(plugins_command)
cli.add_command(config_group)
cli.add_command(conformance_command)
cli.add_command(new_plugin_command)
cli.add_command(update_plugin_command)
cli.add_command(run_command)
cli.add_command(schema_group)
cli.add_command(compare_command)
cli.add_command(sweep_command)
schema_group.add_command(schema_sweep_command)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; errors kubesched raises on purpose become one clear line and exit 2."""
    try:
        result = cli.main(args=argv, prog_name="kubesched", standalone_mode=False)
        if isinstance(result, int) and not isinstance(result, bool):
            # without standalone mode, click returns the code of an Exit instead of raising it
            return result
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        click.echo("aborted", err=True)
        return 1
    except KubeschedError as exc:
        click.echo(f"error: {exc}", err=True)
        return EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
