"""`kubesched sweep`: clusters x scheduler configurations x seeds, in parallel, in one table."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any, Literal

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
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
from kubesched.compare import DEFAULT_CONFIG
from kubesched.report import schema_text
from kubesched.sweep import (
    KEY_METRICS,
    SweepSpec,
    TaskResult,
    cluster_inputs,
    load_sweep,
    render_sweep_html,
    sweep,
    sweep_rows,
    sweep_schema,
    write_sweep_csv,
)

__all__ = ["schema_sweep_command", "sweep_command"]


@click.command("sweep")
@click.argument("sweep_file", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--cluster",
    "clusters",
    multiple=True,
    type=click.Path(exists=True),
    metavar="PATH",
    help="A cluster's manifests (a file or a folder; repeatable). Replaces the sweep file's "
    "clusters.",
)
@click.option(
    "--config",
    "configs",
    multiple=True,
    metavar="FILE",
    help="A KubeSchedulerConfiguration (repeatable; `default` for kube-scheduler's "
    "defaults). Replaces the sweep file's configs; the first is the baseline.",
)
@click.option(
    "--seed",
    "seeds",
    type=int,
    multiple=True,
    help="A seed (repeatable). Replaces the sweep file's seeds (default 0).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes on this machine (default: one per core; 1: no worker process).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Run on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786) instead of "
    "this machine's cores; needs kubesched[dask], and the same plugins on the workers.",
)
@output_option
@report_option("Also write the sweep as a self-contained HTML page to FILE.")
@click.option(
    "--csv",
    "csv_file",
    type=click.Path(dir_okay=False, writable=True),
    metavar="FILE",
    help="Also write the table to FILE as CSV (a row per run, numbers unformatted).",
)
@run_until_option
@run_scenario_option
@validate_option
@log_level_option
def sweep_command(
    sweep_file: str | None,
    clusters: Sequence[str],
    configs: Sequence[str],
    seeds: Sequence[int],
    jobs: int | None,
    scheduler: str | None,
    output: str,
    report: str | None,
    csv_file: str | None,
    until: str | None,
    scenario: str | None,
    validate: Literal["strict", "warn", "ignore"],
    log_level: str,
) -> None:
    """Simulate every cluster under every configuration and seed (a SWEEP_FILE of kind
    Sweep, or --cluster, --config and --seed), in parallel, and show one table: a row per
    run with compare's metrics (pods bound, nodes used, utilization, packing,
    fragmentation, zone skew, preemptions, gangs, latency) and how many pods each
    configuration placed differently from the first. The same sweep gives the same table
    however and wherever it runs."""
    check_configs(configs)
    spec = _spec(sweep_file, clusters, configs, seeds)
    if until is not None:
        spec = replace(spec, until=until_seconds(until))
    if scenario is not None:
        spec = replace(spec, scenario=scenario)
    if scheduler is not None and jobs is not None:
        raise click.BadParameter("--jobs is for this machine; not with --scheduler")
    err = output_console(stderr=True)
    runs = spec.runs()
    total = len(runs)
    with (
        cli_logging(log_level),
        Progress(
            TextColumn("sweep"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=err,
            transient=True,
        ) as bar,
    ):
        task = bar.add_task("", total=total)

        def step(result: TaskResult) -> None:
            run = runs[result.index]
            bar.update(
                task,
                advance=1,
                description=escape(f"{run.cluster.label} {run.variant.label} seed {run.seed}"),
            )

        document = sweep(spec, jobs=jobs, scheduler=scheduler, validate=validate, progress=step)
    for warning in document["warnings"]:
        err.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    if report is not None:
        write_page(report, render_sweep_html({**document, "title": _title(sweep_file, spec)}))
    if csv_file is not None:
        try:
            write_sweep_csv(document, csv_file)
        except OSError as exc:
            raise click.FileError(csv_file, hint=exc.strerror or str(exc)) from exc
    if output == "json":
        click.echo(json.dumps(document, indent=2))
        return
    console = output_console()
    table = _table(document, None, console)
    if table is None:
        table = _table(document, KEY_METRICS, console)
        table.caption = "More metrics: -o json, --csv FILE, --report FILE"
        fit_table(table, console)
    console.print(table)


def _table(document: dict[str, Any], metrics: Collection[str] | None, console: Console) -> Any:
    """The sweep table of `metrics`; None when it is given every metric and does not fit."""
    header, rows = sweep_rows(document, metrics)
    table = Table(
        title=f"Sweep: {len(rows)} runs; placed differently: from {document['configs'][0]}",
        title_justify="left",
    )
    for index, name in enumerate(header):
        table.add_column(escape(name), justify="left" if index < 2 else "right")
    for row in rows:
        table.add_row(*(escape(cell) for cell in row))
    if not fit_table(table, console) and metrics is None:
        return None
    return table


def _spec(
    sweep_file: str | None, clusters: Sequence[str], configs: Sequence[str], seeds: Sequence[int]
) -> SweepSpec:
    """The sweep file's axes with those the command line gives instead."""
    if sweep_file is not None:
        spec = load_sweep(sweep_file)
        if clusters:
            spec = replace(spec, clusters=cluster_inputs(clusters))
        if configs:
            spec = replace(spec, configs=tuple(configs))
        if seeds:
            spec = replace(spec, seeds=tuple(seeds))
        return spec
    if not clusters:
        raise click.UsageError("give a SWEEP_FILE or at least one --cluster")
    if len({c.label for c in cluster_inputs(clusters)}) != len(clusters):
        raise click.BadParameter("a cluster is given twice", param_hint="--cluster")
    return SweepSpec(
        cluster_inputs(clusters), tuple(configs) or (DEFAULT_CONFIG,), tuple(seeds) or (0,)
    )


def _title(sweep_file: str | None, spec: SweepSpec) -> str:
    if sweep_file is not None:
        return sweep_file
    words = [f"--cluster {p}" for c in spec.clusters for p in c.paths]
    words += [f"--config {c}" for c in spec.configs]
    words += [f"--seed {s}" for s in spec.seeds]
    return " ".join(words)


@click.command("sweep")
def schema_sweep_command() -> None:
    """The JSON Schema of a sweep: `kubesched sweep -o json` and the data of its HTML
    report."""
    click.echo(schema_text(sweep_schema()), nl=False)
