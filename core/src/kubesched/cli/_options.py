"""The options the commands that run simulations share (simulate, compare, sweep): one
definition each, so a flag means and checks the same wherever it is given."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from kubesched.cli._format import parse_duration
from kubesched.compare import DEFAULT_CONFIG

__all__ = [
    "check_configs",
    "file_option",
    "output_option",
    "report_option",
    "run_scenario_option",
    "run_until_option",
    "until_seconds",
    "validate_option",
    "write_page",
]

_F = TypeVar("_F", bound=Callable[..., Any])

output_option = click.option(
    "--output",
    "-o",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="A table for people or JSON for programs.",
)
"""`--output table|json`."""

validate_option = click.option(
    "--validate",
    type=click.Choice(["strict", "warn", "ignore"]),
    default="strict",
    show_default=True,
    help="A field no Kubernetes type has (a typo such as `resource:`), as kubectl apply "
    "--validate: an error, a warning on stderr, or not looked for.",
)
"""`--validate strict|warn|ignore`."""


def file_option(flag: str, help: str) -> Callable[[_F], _F]:
    """`flag FILE`: an input file that must exist (a scenario, a fault plan)."""
    return click.option(
        flag, type=click.Path(exists=True, dir_okay=False), metavar="FILE", help=help
    )


def report_option(help: str) -> Callable[[_F], _F]:
    """`--report FILE`: an HTML page to write besides the output."""
    return click.option(
        "--report", type=click.Path(dir_okay=False, writable=True), metavar="FILE", help=help
    )


run_until_option = click.option(
    "--until", default=None, metavar="DURATION", help="Run this much virtual time each run."
)
"""`--until DURATION` of the commands that run a simulation per run (compare, sweep)."""

run_scenario_option = file_option(
    "--scenario", "A scenario (simulation.kubesched.io/v1alpha1) every run follows."
)
"""`--scenario FILE` of the commands that run a simulation per run (compare, sweep)."""


def until_seconds(until: str | None) -> float | None:
    """The seconds of `--until` (None when not given); a bad duration is a usage error."""
    if until is None:
        return None
    try:
        return parse_duration(until)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--until") from exc


def check_configs(configs: Sequence[str]) -> None:
    """A usage error for a `--config` that is neither a file nor `default`."""
    for config in configs:
        if config != DEFAULT_CONFIG and not os.path.isfile(config):
            raise click.BadParameter(
                f"{config!r} is not a file (nor `{DEFAULT_CONFIG}`)", param_hint="--config"
            )


def write_page(path: str, text: str) -> None:
    """Write a `--report` page (click's FileError naming `path` when it cannot be)."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise click.FileError(path, hint=exc.strerror or str(exc)) from exc
