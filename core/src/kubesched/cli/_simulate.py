"""`kubesched simulate`: where would these pods go?"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Literal

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from kubesched.cli._console import output_console
from kubesched.cli._explain import render_explanation
from kubesched.cli._feature_gates import feature_gates_option
from kubesched.cli._logging import cli_logging, log_level_option
from kubesched.cli._options import (
    file_option,
    output_option,
    report_option,
    until_seconds,
    validate_option,
)
from kubesched.cli._report import (
    left_out_notices,
    left_out_reason,
    nodes_table,
    render_result,
    section_table,
)
from kubesched.cli._report_html import report_title, write_report
from kubesched.report import AttemptLog, json_document, write_csv
from kubesched.simulate import SimulationResult, simulate
from kubesched.simulate._results import POD_OUTCOMES

__all__ = [
    "PhaseProgress",
    "left_out_reason",
    "nodes_table",
    "render_result",
    "section_table",
    "simulate_command",
]


class PhaseProgress:
    """The progress display of a run: `Loading manifests` (a spinner and the time spent)
    until the simulation reports its first pods, then `Scheduling` with decided / total
    pods, the time spent and the time left."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.loading: TaskID | None = bar.add_task("Loading manifests", total=None)
        self.scheduling: TaskID | None = None

    @staticmethod
    def columns() -> Progress:
        """An empty rich Progress with this display's columns, on stderr."""
        return Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=output_console(stderr=True),
            transient=True,
        )

    def __call__(self, done: int, total: int) -> None:
        if self.scheduling is None:
            if self.loading is not None:
                self.bar.remove_task(self.loading)
                self.loading = None
            self.scheduling = self.bar.add_task("Scheduling", total=total)
        self.bar.update(self.scheduling, completed=done, total=total)


def _evicted(result: SimulationResult, key: str) -> str:
    """What became of a pod preemption evicted or that is being deleted (`was preempted by
    ... at ...`, `is Terminating: ...`), or ""."""
    namespace, _, name = key.partition("/")
    for p in result.pods:
        if (p.namespace, p.name) != (namespace, name):
            continue
        if p.status == "Preempted":
            return f"was {p.message}"
        if p.status == "Terminating":
            return f"is Terminating: {p.message}"
    return ""


@click.command("simulate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, allow_dash=True))
@click.option(
    "--config",
    "config",
    type=click.Path(exists=True, dir_okay=False),
    help="A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) file.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed for tie-breaking and uids: the same input and seed give the same output.",
)
@output_option
@click.option(
    "--until",
    "until",
    default=None,
    metavar="DURATION",
    help="Run this much virtual time (e.g. 10m) instead of stopping at quiescence.",
)
@click.option(
    "--progress/--no-progress",
    default=True,
    show_default=True,
    help="Show progress on stderr when it is a terminal: loading manifests, then pods "
    "scheduled of those to schedule, with the time left.",
)
@click.option(
    "--explain",
    "explain",
    multiple=True,
    metavar="POD",
    help="Explain POD's last attempt (name or namespace/name): each node's verdict per Filter "
    "plugin and each Score plugin's raw, normalized and weighted score, and an Error's "
    "traceback. POD must be in the input. Repeatable.",
)
@click.option(
    "--only",
    "only",
    multiple=True,
    type=click.Choice(POD_OUTCOMES, case_sensitive=False),
    metavar="STATUS",
    help="List only the pods of this status (" + ", ".join(POD_OUTCOMES) + "); the "
    "summary still counts every pod. Repeatable.",
)
@click.option(
    "--summary",
    "summary_only",
    is_flag=True,
    help="Print only the summary and how many pods are not bound for each reason (JSON: "
    '{"summary", "reasons", "skipped"}).',
)
@validate_option
@click.option(
    "--no-fast-path",
    "no_fast_path",
    is_flag=True,
    help="Filter and Score node by node (the per-node path) instead of on the snapshot's "
    "node columns: the same placements, slower; for comparison and debugging "
    "(also KUBESCHED_FAST_PATH=0).",
)
@file_option(
    "--scenario",
    "A scenario (simulation.kubesched.io/v1alpha1 Scenario): steps at virtual times "
    "that create, delete, scale or patch objects, cordon, drain, delete, add or taint "
    "nodes, and checkpoints whose state goes into the report.",
)
@file_option(
    "--faults",
    "A fault plan (simulation.kubesched.io/v1alpha1 FaultPlan): plugins failing at an "
    "extension point, binds failing, PreBind timing out, objects deleted before binding, "
    "watch events dropped, duplicated or delayed, relists; seeded, on virtual time. The "
    "report's Faults section says which fired.",
)
@report_option(
    "Also write an HTML report to FILE: one self-contained page (it opens offline) "
    "with the summary, allocation per node and zone, the timeline, a searchable pod table "
    "with every attempt of every pod plugin by plugin, and the plugin packages' sections. "
    "Records every attempt, so the run is slower (same placements).",
)
@click.option(
    "--csv",
    "csv_folder",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="Also write the pods and nodes as DIR/pods.csv and DIR/nodes.csv (made if "
    "missing), for spreadsheets and notebooks.",
)
@log_level_option
@feature_gates_option
def simulate_command(
    paths: Sequence[str],
    config: str | None,
    seed: int,
    output: str,
    until: str | None,
    progress: bool,
    explain: Sequence[str],
    only: Sequence[str],
    summary_only: bool,
    validate: Literal["strict", "warn", "ignore"],
    no_fast_path: bool,
    scenario: str | None,
    faults: str | None,
    report: str | None,
    csv_folder: str | None,
    log_level: str,
) -> None:
    """Load PATHS (manifest files or folders), schedule every pending pod on virtual time
    and report where each one went, or why it could not be placed."""
    until_s = until_seconds(until)
    log = AttemptLog() if report is not None else None
    run = functools.partial(
        simulate,
        paths,
        config=config,
        seed=seed,
        until=until_s,
        explain=explain,
        validate=validate,
        warn=_warn,
        fast_path=False if no_fast_path else None,
        scenario=scenario,
        faults=faults,
        observers=[log] if log is not None else [],
    )
    with cli_logging(log_level):
        if progress and output_console(stderr=True).is_terminal:
            with PhaseProgress.columns() as bar:
                result = run(progress=PhaseProgress(bar))
        else:
            result = run()
    err = output_console(stderr=True)
    if not result.objects:
        files = len(result.files)
        read = f"{files} manifest file{'s' if files != 1 else ''} read"
        skipped = sum(g["count"] for g in result.skipped)
        if skipped:
            read += f", {skipped:,} object{'s' if skipped != 1 else ''} skipped"
        err.print(
            f"[yellow]warning:[/] no objects to simulate in {escape(', '.join(paths))} ({read})",
            highlight=False,
        )
    if report is not None and log is not None:
        write_report(report, result, log, report_title(paths, config, seed))
    if csv_folder is not None:
        write_csv(result, csv_folder)
    if output == "json":
        for notice in left_out_notices(result):
            err.print(escape(notice), highlight=False)
        data = json_document(result, only=only, summary_only=summary_only)
        click.echo(json.dumps(data, indent=2))
        return
    console = output_console()
    render_result(result, console, only=only, summary_only=summary_only)
    for key in explain:
        _render_explained(result, key, console)


def _warn(message: str) -> None:
    """A problem the run goes on despite (`--validate warn`), one line on stderr."""
    output_console(stderr=True).print(f"[yellow]warning:[/] {escape(message)}", highlight=False)


def _render_explained(result: SimulationResult, key: str, console: Console) -> None:
    """What `--explain POD` prints after the report: what became of an evicted pod, the
    explanation of its last attempt, and the traceback of an Error's exception."""
    full = key if "/" in key else f"default/{key}"
    evicted = _evicted(result, full)
    if evicted:
        console.print(f"[bold]{escape(full)}[/] {escape(evicted)}")
    if full in result.explanations:
        render_explanation(result.explanations[full], console)
    else:
        console.print(f"[yellow]{escape(full)} was never attempted: nothing to explain[/]")
    namespace, _, name = full.partition("/")
    try:
        error = result.pod(name, namespace).error
    except KeyError:
        return
    if error is not None and error.traceback:
        where = f" in {error.plugin}" if error.plugin else ""
        console.print(f"[bold red]Traceback of the error{escape(where)}:[/]")
        console.print(escape(error.traceback.rstrip("\n")), highlight=False)
