"""The table report of `kubesched simulate`: the pods (or only some of them), each hook
module's section, the nodes, the summary, and what the input or the config left out."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import importlib_metadata
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from kubesched.cli._console import fit_table
from kubesched.cli._format import bar, format_amount
from kubesched.simulate import Checkpoint, PodResult, ReportSection, SimulationResult
from kubesched.simulate._preemptions import format_seconds
from kubesched.simulate._timeline import TimelinePoint

__all__ = [
    "STATUS_STYLE",
    "TIMELINE_ROWS",
    "checkpoints_section",
    "latency_line",
    "left_out_notices",
    "left_out_reason",
    "nodes_table",
    "pods_table",
    "reasons_table",
    "render_result",
    "render_summary",
    "section_table",
    "skipped_lines",
    "summary_line",
    "timeline_section",
]

TIMELINE_ROWS = 12
"""The most rows the Timeline table shows."""

STATUS_STYLE = {
    "Bound": "green",
    "Unschedulable": "red",
    "Error": "bold red",
    "Waiting": "yellow",
    "Pending": "magenta",
    "Preempted": "blue",
    "Terminating": "cyan",
    "Succeeded": "green",
    "Failed": "red",
}


def render_result(
    result: SimulationResult,
    console: Console,
    *,
    only: Collection[str] = (),
    summary_only: bool = False,
) -> None:
    """Pods, each hook module's report section, nodes and a summary, as tables; `only`
    keeps the pods of these statuses in the Pods table; `summary_only` prints the summary
    and the reasons pods are not bound instead of the tables."""
    if summary_only:
        render_summary(result, console, reasons=True)
        return
    console.print(pods_table(result, console, only))
    sections = list(result.sections)
    if result.checkpoints:
        sections.append(checkpoints_section(result.checkpoints))
    if len(result.timeline) > 1:
        sections.append(timeline_section(result.timeline))
    for section in sections:
        table = section_table(section)
        fit_table(table, console, text={len(section.columns) - 1})
        console.print(table)
    nodes = nodes_table(result)
    fit_table(nodes, console)
    console.print(nodes)
    render_summary(result, console, reasons=False)


def render_summary(result: SimulationResult, console: Console, *, reasons: bool) -> None:
    """The summary line, with `reasons` the Reasons table, then what was skipped and the
    default plugins left out."""
    console.print(summary_line(result))
    latency = latency_line(result)
    if latency:
        console.print(latency)
    if reasons and result.checkpoints:
        console.print(section_table(checkpoints_section(result.checkpoints)))
    if reasons and result.reasons():
        console.print(reasons_table(result, console))
    for line in skipped_lines(result.skipped):
        console.print(line)
    for notice in left_out_notices(result):
        console.print(f"[dim]{escape(notice)}[/]")


def summary_line(result: SimulationResult) -> str:
    """`7 pods: 5 bound, 1 unschedulable, 0 waiting, 1 pending on 3 nodes (...)`, errors,
    preempted and terminating pods only when there are some (rich markup)."""
    s = result.summary
    rare = "".join(
        f", [{STATUS_STYLE[k]}]{s[k.lower()]} {k.lower()}[/]"
        for k in ("Error", "Preempted", "Terminating", "Succeeded", "Failed")
        if s.get(k.lower())
    )
    return (
        f"[bold]{s['pods']} pods[/]: [green]{s['bound']} bound[/], "
        f"[red]{s['unschedulable']} unschedulable[/], [yellow]{s['waiting']} waiting[/], "
        f"[magenta]{s['pending']} pending[/]{rare} on {s['nodes']} nodes "
        f"({s['attempts']} attempts, {s['virtualSeconds']}s virtual time, seed {s['seed']})"
    )


def latency_line(result: SimulationResult) -> str:
    """`Scheduling latency of 9 pods (created → bound): p50 0s, p90 1s, p99 3s, max 3s`,
    or "" when the scheduler bound no pod."""
    latency = result.latency
    if not latency["pods"]:
        return ""
    figures = ", ".join(
        f"{key} {format_seconds(latency[key])}" for key in ("p50", "p90", "p99", "max")
    )
    pods = latency["pods"]
    return (
        f"Scheduling latency of {pods:,} pod{'s' if pods != 1 else ''} (created → bound): {figures}"
    )


def pods_table(
    result: SimulationResult, console: Console, only: Collection[str] = ()
) -> RenderableType:
    """One row per pod (of the statuses in `only`, when given): name, scheduler when there
    are several, node, status and message, fitted to `console`. When the console is too
    narrow for whole names and a readable message side by side, the messages follow the
    table instead, one paragraph per pod (`namespace/name: message`)."""
    shown = [p for p in result.pods if not only or p.status in only]
    title = "Pods"
    if only:
        title += f" ({', '.join(only)}: {len(shown):,} of {len(result.pods):,})"
    several = len({p.scheduler_name for p in result.pods}) > 1
    table = _pods_table(title, shown, several=several, messages=True)
    if fit_table(table, console, text={len(table.columns) - 1}):
        return table
    table = _pods_table(title, shown, several=several, messages=False)
    fit_table(table, console)
    paragraphs = [
        Text.from_markup(f"[bold]{escape(_key(p))}[/]: {_message(p)}")
        for p in shown
        if p.message or p.error
    ]
    if not paragraphs:
        return table
    return Group(table, Text("Messages", style="table.title"), *paragraphs)


def _pods_table(title: str, pods: list[PodResult], *, several: bool, messages: bool) -> Table:
    table = Table(title=escape(title), title_justify="left")
    table.add_column("Pod")
    if several:
        table.add_column("Scheduler")
    for name in ("Node", "Status", "Message") if messages else ("Node", "Status"):
        table.add_column(name)
    for p in pods:
        row = [escape(_key(p))]
        if several:
            row.append(escape(p.scheduler_name))
        style = STATUS_STYLE.get(p.status)
        row += [escape(p.node or "-"), f"[{style}]{p.status}[/]" if style else escape(p.status)]
        if messages:
            row.append(_message(p))
        table.add_row(*row)
    return table


def _key(p: PodResult) -> str:
    return f"{p.namespace}/{p.name}"


def _message(p: PodResult) -> str:
    """The pod's message; an Error's plugin, exception and where it was raised under it."""
    message = escape(p.message)
    error = p.error
    if error is None:
        return message
    if error.exception:
        where = f" at {error.location}" if error.location else ""
        raised = f"{error.exception} raised{where}"
        detail = f"{error.plugin}: {raised}" if error.plugin else raised
    elif error.plugin:
        detail = f"{error.plugin} returned an Error status"
    else:
        return message
    return f"{message}\n[red]{escape(detail)}[/]"


def reasons_table(result: SimulationResult, console: Console) -> Table:
    """The pods not bound, counted by status and message, most frequent first."""
    table = Table(title="Why pods are not bound", title_justify="left")
    table.add_column("Pods", justify="right")
    table.add_column("Status")
    table.add_column("Message")
    for reason in result.reasons():
        style = STATUS_STYLE.get(reason["status"], "")
        table.add_row(
            f"{reason['count']:,}",
            f"[{style}]{reason['status']}[/]" if style else escape(reason["status"]),
            escape(reason["message"]),
        )
    fit_table(table, console, text={2})
    return table


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
        row = [escape(n.name)]
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


def checkpoints_section(checkpoints: Sequence[Checkpoint]) -> ReportSection:
    """The scenario's checkpoints as a table: one row per checkpoint, its counts, then the
    bound pods per node (`node: n`)."""
    rows = []
    for c in checkpoints:
        per_node: dict[str, int] = {}
        for node in c.placements.values():
            per_node[node] = per_node.get(node, 0) + 1
        spread = ", ".join(f"{node}: {n}" for node, n in sorted(per_node.items()))
        counts = c.counts
        rows.append(
            [
                c.name,
                f"{c.at:g}s",
                str(counts.get("bound", 0)),
                str(counts.get("pending", 0)),
                str(counts.get("nodes", 0)),
                spread or "-",
            ]
        )
    return ReportSection(
        key="checkpoints",
        title="Checkpoints",
        columns=["Checkpoint", "At", "Bound", "Pending", "Nodes", "Bound pods per node"],
        rows=rows,
    )


def timeline_section(
    points: Sequence[TimelinePoint], *, rows: int = TIMELINE_ROWS
) -> ReportSection:
    """The pod counts over virtual time: one row per instant they changed, or, when there
    are more than `rows` of those, the counts at the end of each of `rows` equal spans of
    the run. Terminating, Succeeded and Failed columns only when some row has some."""
    shown = list(points)
    caption = ""
    if len(shown) > rows:
        start, end = shown[0].at, shown[-1].at
        ends = [start + (end - start) * (i + 1) / rows for i in range(rows)]
        sampled = [points[0]]
        i = 0
        for t in ends:
            while i + 1 < len(points) and points[i + 1].at <= t:
                i += 1
            if points[i] is not sampled[-1]:
                sampled.append(points[i])
        caption = (
            f"{len(points):,} changes; the counts at the end of each 1/{rows} of the run "
            f"(-o json lists every change)"
        )
        shown = sampled
    keys = ["pods", "pending", "bound"]
    keys += [k for k in ("terminating", "succeeded", "failed") if any(p.count(k) for p in shown)]
    keys.append("nodes")
    return ReportSection(
        key="timeline",
        title="Timeline",
        columns=["At", *(k.capitalize() for k in keys)],
        rows=[[format_seconds(p.at), *(str(p.count(k)) for k in keys)] for p in shown],
        caption=caption,
    )


def section_table(section: ReportSection) -> Table:
    """A hook module's report section as a table: cells are plain text; the last column
    wraps and keeps at least 20 characters, the others do not wrap (`render_result` then
    fits every column to its console, the last as text)."""
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


def skipped_lines(skipped: Sequence[dict[str, Any]]) -> list[str]:
    """One line per kind of object the input held that no installed package registers
    (rich markup): the object itself when it is alone, else how many and the first."""
    lines = []
    for group in skipped:
        where = f"{group['file']} document {group['document']}"
        count = group.get("count", 1)
        if count == 1:
            lines.append(f"[yellow]skipped[/] {escape(where)}: {escape(group['reason'])}")
        else:
            lines.append(
                f"[yellow]skipped[/] {count:,} objects (first {escape(where)}): "
                f"{escape(group['reason'])}"
            )
    return lines


def left_out_notices(result: SimulationResult) -> list[str]:
    """`default plugins left out (<why>): A, B`, one line per reason (plain text)."""
    by_reason: dict[str, list[str]] = {}
    for name, dist in result.left_out:
        by_reason.setdefault(left_out_reason(dist), []).append(name)
    return [
        f"default plugins left out ({reason}): {', '.join(names)}"
        for reason, names in by_reason.items()
    ]


def left_out_reason(distribution: str) -> str:
    """Why a default plugin is missing: its package is absent, or does not have it yet."""
    try:
        version = importlib_metadata.version(distribution)
    except importlib_metadata.PackageNotFoundError:
        return f"{distribution} is not installed"
    return f"not provided by the installed {distribution} {version}"
