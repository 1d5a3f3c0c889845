"""`kubesched simulate`: where would these pods go?"""

from __future__ import annotations

import json
from collections.abc import Sequence

import click
import importlib_metadata
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from kubesched.cli._explain import render_explanation
from kubesched.cli._feature_gates import feature_gates_option
from kubesched.cli._format import bar, format_amount, parse_duration
from kubesched.simulate import ReportSection, SimulationResult, simulate

__all__ = ["nodes_table", "render_result", "section_table", "simulate_command"]

_STATUS_STYLE = {
    "Bound": "green",
    "Unschedulable": "red",
    "Waiting": "yellow",
    "Pending": "magenta",
    "Preempted": "blue",
    "Terminating": "cyan",
}


def render_result(result: SimulationResult, console: Console) -> None:
    """Pods, each hook module's report section, nodes and a summary, as tables."""
    schedulers = {p.scheduler_name for p in result.pods}
    pods = Table(title="Pods", title_justify="left")
    pods.add_column("Pod", no_wrap=True)
    if len(schedulers) > 1:
        pods.add_column("Scheduler", no_wrap=True)
    pods.add_column("Node", no_wrap=True)
    pods.add_column("Status", no_wrap=True)
    pods.add_column("Message", overflow="fold")
    for p in result.pods:
        row = [f"{p.namespace}/{p.name}"]
        if len(schedulers) > 1:
            row.append(p.scheduler_name)
        style = _STATUS_STYLE.get(p.status)
        status = f"[{style}]{p.status}[/]" if style else escape(p.status)
        row += [p.node or "-", status, escape(p.message)]
        pods.add_row(*row)
    console.print(pods)
    for section in result.sections:
        console.print(section_table(section))

    console.print(nodes_table(result))

    s = result.summary
    console.print(
        f"[bold]{s['pods']} pods[/]: [green]{s['bound']} bound[/], "
        f"[red]{s['unschedulable']} unschedulable[/], [yellow]{s['waiting']} waiting[/], "
        f"[magenta]{s['pending']} pending[/]"
        + "".join(
            f", [{_STATUS_STYLE[k]}]{s[k.lower()]} {k.lower()}[/]"
            for k in ("Preempted", "Terminating")
            if s[k.lower()]
        )
        + f" on {s['nodes']} nodes "
        f"({s['attempts']} attempts, {s['virtualSeconds']}s virtual time, seed {s['seed']})"
    )
    for skipped in result.skipped:
        console.print(
            f"[yellow]skipped[/] {skipped['file']} document {skipped['document']}: "
            f"{skipped['reason']}"
        )
    by_reason: dict[str, list[str]] = {}
    for name, dist in result.left_out:
        by_reason.setdefault(left_out_reason(dist), []).append(name)
    for reason, names in by_reason.items():
        console.print(f"[dim]default plugins left out ({reason}): {', '.join(names)}[/]")


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


def nodes_table(result: SimulationResult) -> Table:
    """Requested / allocatable per node, with a bar: CPU and memory, then every extended
    resource some node offers (GPUs, hugepages ...), and the pod count. Bars shrink as
    resources are added, so the table keeps to a terminal's width."""
    extended = sorted(
        {k for n in result.nodes for k, v in n.allocatable.items() if v} - {"cpu", "memory", "pods"}
    )
    width = max(4, 12 - 4 * len(extended))
    table = Table(title="Nodes", title_justify="left")
    table.add_column("Node")
    for name in ("CPU", "Memory", *extended):
        table.add_column(escape(name), no_wrap=True)
    table.add_column("Pods")
    for n in result.nodes:
        row = [n.name]
        for resource in ("cpu", "memory", *extended):
            used, total = n.requested.get(resource, 0), n.allocatable.get(resource, 0)
            if not total and not used:
                row.append("-")
                continue
            amounts = f"{format_amount(resource, used)}/{format_amount(resource, total)}"
            row.append(f"{escape(amounts)} {bar(used, total, width)}")
        row.append(f"{n.pods}/{n.allocatable.get('pods', 0)}")
        table.add_row(*row)
    return table


def section_table(section: ReportSection) -> Table:
    """A hook module's report section as a table: cells are plain text; the last column
    wraps and keeps at least 20 characters, the others do not wrap."""
    table = Table(
        title=escape(section.title),
        title_justify="left",
        caption=escape(section.caption) if section.caption else None,
        caption_justify="left",
    )
    last = len(section.columns) - 1
    for i, column in enumerate(section.columns):
        if i == last:
            table.add_column(escape(column), overflow="fold", min_width=20)
        else:
            table.add_column(escape(column), no_wrap=True)
    for row in section.rows:
        table.add_row(*(escape(cell) for cell in row))
    return table


def left_out_reason(distribution: str) -> str:
    """Why a default plugin is missing: its package is absent, or does not have it yet."""
    try:
        version = importlib_metadata.version(distribution)
    except importlib_metadata.PackageNotFoundError:
        return f"{distribution} is not installed"
    return f"not provided by the installed {distribution} {version}"


@click.command("simulate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
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
@click.option(
    "--output",
    "-o",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
    help="A table for people or JSON for programs.",
)
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
    help="Show a progress bar on stderr while the simulation runs.",
)
@click.option(
    "--explain",
    "explain",
    multiple=True,
    metavar="POD",
    help="Explain POD's last attempt (name or namespace/name): each node's verdict per Filter "
    "plugin and each Score plugin's raw, normalized and weighted score. Repeatable.",
)
@feature_gates_option
def simulate_command(
    paths: Sequence[str],
    config: str | None,
    seed: int,
    output: str,
    until: str | None,
    progress: bool,
    explain: Sequence[str],
) -> None:
    """Load PATHS (manifest files or folders), schedule every pending pod on virtual time
    and report where each one went, or why it could not be placed."""
    until_s = None
    if until is not None:
        try:
            until_s = parse_duration(until)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--until") from exc
    err = Console(stderr=True)
    if progress and err.is_terminal:
        with Progress(
            TextColumn("scheduling"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
        ) as bar_:
            task = bar_.add_task("pods", total=None)

            def report(done: int, total: int) -> None:
                bar_.update(task, completed=done, total=total)

            result = simulate(
                paths, config=config, seed=seed, until=until_s, progress=report, explain=explain
            )
    else:
        result = simulate(paths, config=config, seed=seed, until=until_s, explain=explain)
    if output == "json":
        click.echo(json.dumps(result.to_json_dict(), indent=2))
    else:
        console = Console()
        render_result(result, console)
        for key in explain:
            full = key if "/" in key else f"default/{key}"
            evicted = _evicted(result, full)
            if evicted:
                console.print(f"[bold]{escape(full)}[/] {escape(evicted)}")
            if full in result.explanations:
                render_explanation(result.explanations[full], console)
            else:
                console.print(f"[yellow]{full} was never attempted: nothing to explain[/]")
