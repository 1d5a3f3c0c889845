"""`kubesched compare`: the same cluster under several scheduler configurations."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

import click
from rich.markup import escape
from rich.table import Table

from kubesched.cli._console import fit_table, output_console
from kubesched.cli._logging import cli_logging, log_level_option
from kubesched.cli._options import (
    check_configs,
    output_option,
    report_option,
    run_scenario_option,
    run_until_option,
    until_seconds,
    validate_option,
    write_page,
)
from kubesched.compare import compare, comparison_rows, render_comparison_html

__all__ = ["compare_command"]


@click.command("compare")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, allow_dash=True))
@click.option(
    "--config",
    "configs",
    multiple=True,
    required=True,
    metavar="FILE",
    help="A KubeSchedulerConfiguration to compare (at least two; `default` for "
    "kube-scheduler's defaults). The first is the baseline others are compared with.",
)
@click.option(
    "--seed",
    "seeds",
    type=int,
    multiple=True,
    help="A seed to run every configuration with (repeatable; default 0).",
)
@output_option
@report_option("Also write the comparison as a self-contained HTML page to FILE.")
@run_until_option
@run_scenario_option
@validate_option
@log_level_option
def compare_command(
    paths: Sequence[str],
    configs: Sequence[str],
    seeds: Sequence[int],
    output: str,
    report: str | None,
    until: str | None,
    scenario: str | None,
    validate: Literal["strict", "warn", "ignore"],
    log_level: str,
) -> None:
    """Simulate PATHS under each --config (and --seed) and show the outcomes side by
    side: pods placed differently, unschedulable pods, nodes used, utilization spread and
    packing, the largest free CPU and memory on a node (fragmentation), zone skew,
    preemptions, gangs' time to quorum."""
    if len(configs) < 2:
        raise click.BadParameter("give at least two configurations", param_hint="--config")
    check_configs(configs)
    until_s = until_seconds(until)
    err = output_console(stderr=True)
    with cli_logging(log_level):
        document = compare(
            paths,
            configs,
            seeds=list(seeds) or [0],
            until=until_s,
            scenario=scenario,
            validate=validate,
            warn=lambda m: err.print(f"[yellow]warning:[/] {escape(m)}", highlight=False),
        )
    if report is not None:
        document["title"] = " ".join([*paths, *(f"--config {c}" for c in configs)])
        write_page(report, render_comparison_html(document))
    if output == "json":
        click.echo(json.dumps(document, indent=2))
        return
    console = output_console()
    header, rows = comparison_rows(document)
    table = Table(title="Comparison", title_justify="left")
    table.add_column(header[0])
    for name in header[1:]:
        table.add_column(escape(name), justify="right")
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    fit_table(table, console)
    console.print(table)
    for difference in document["differences"]:
        if not difference["pods"]:
            continue
        moved = Table(
            title=f"Placed differently: {difference['config']} vs {difference['baseline']}"
            + (f", seed {difference['seed']}" if len(document["seeds"]) > 1 else ""),
            title_justify="left",
        )
        for name in ("Pod", difference["baseline"], difference["config"]):
            moved.add_column(escape(name))
        for pod in difference["pods"]:
            moved.add_row(
                escape(pod["pod"]), escape(pod["baseline"] or "-"), escape(pod["other"] or "-")
            )
        fit_table(moved, console)
        console.print(moved)
