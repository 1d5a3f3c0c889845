"""Render explanations (`kubesched simulate --explain POD`) as tables."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kubesched.cli._console import fit_table
from kubesched.scheduler import Explanation, NodeExplanation

__all__ = ["render_explanation"]


def render_explanation(exp: Explanation, console: Console) -> None:
    """A Filter table (each plugin's verdict per node, with the reasons, under a verdict
    the plugin's detail lines, `· ...`, and the nominated pods Filter counted there) and a
    Score table (raw → normalized x weight per plugin, and the total) of the nodes the
    cycle scored, for one pod's last attempt; then how the node search ended."""
    console.print(
        f"[bold]Explanation for {exp.pod}[/] (attempt {exp.attempt}, "
        f"t={exp.time:g}s): {exp.outcome}"
    )
    if exp.pre_filter:
        pre = ", ".join(f"{name}: {verdict}" for name, verdict in exp.pre_filter.items())
        console.print(f"PreFilter: {pre}")
    filters = Table(title="Filter", title_justify="left")
    filters.add_column("Node", no_wrap=True)
    filters.add_column("Passed", justify="right", no_wrap=True)
    filters.add_column("Rejected by (plugin: code: reason)", overflow="fold")
    for ne in exp.nodes:
        if ne.excluded:
            filters.add_row(ne.node, "[red]✗[/] -", escape(f"not filtered: {ne.excluded}"))
            continue
        failed = [
            (name, verdict)
            for name, verdict in ne.filters.items()
            if verdict not in ("ok", "skipped")
        ]
        lines: list[str] = []
        for name, verdict in failed:
            lines.append(escape(f"{name}: {verdict}"))
            lines.extend(f"[dim]  · {escape(d)}[/]" for d in ne.details.get(name, ()))
        if ne.nominated_pods:
            counted = ", ".join(ne.nominated_pods)
            lines.append(f"[dim]counting nominated pod(s): {escape(counted)}[/]")
        ran = [v for v in ne.filters.values() if v != "skipped"]
        mark = "[green]✓[/]" if not failed else "[red]✗[/]"
        filters.add_row(ne.node, f"{mark} {len(ran) - len(failed)}/{len(ran)}", "\n".join(lines))
    fit_table(filters, console, text={2})
    console.print(filters)
    skipped = sorted({n for ne in exp.nodes for n, v in ne.filters.items() if v == "skipped"})
    if skipped:
        console.print(f"[dim]Filter skipped (PreFilter said Skip): {', '.join(skipped)}[/]")
    _render_scores(exp, console)
    for note in exp.notes:
        console.print(f"Note: {escape(note)}")


def _render_scores(exp: Explanation, console: Console) -> None:
    scored = [ne for ne in exp.nodes if ne.total is not None]
    if not scored:
        if not any(ne.feasible for ne in exp.nodes):
            console.print("No node passed every filter: nothing was scored.")
        return
    scorers = list(scored[0].raw_scores)
    scores = Table(title="Score (raw → normalized x weight)", title_justify="left")
    scores.add_column("Node", no_wrap=True)
    for name in scorers:
        scores.add_column(f"{name} x{exp.weights.get(name, 1)}", justify="right")
    scores.add_column("Total", justify="right")
    for ne in sorted(scored, key=lambda n: -(n.total or 0)):
        cells = [
            f"{ne.raw_scores[n]} → {ne.normalized_scores.get(n, ne.raw_scores[n])}"
            f" = {ne.weighted_scores.get(n, 0)}"
            for n in scorers
        ]
        scores.add_row(ne.node, *cells, f"[bold]{ne.total}[/]")
    # a column per Score plugin is the clearest, when the console has room for their names
    console.print(scores if fit_table(scores, console) else _scores_by_node(exp, scored, console))


def _scores_by_node(exp: Explanation, scored: list[NodeExplanation], console: Console) -> Table:
    """The Score table for a narrow console: a row per node, its plugins' scores one per
    line (`Plugin xW: raw → normalized = weighted`), so no plugin name is cut."""
    table = Table(title="Score (raw → normalized x weight)", title_justify="left")
    table.add_column("Node")
    table.add_column("Total", justify="right")
    table.add_column("Plugin xweight: raw → normalized = weighted")
    for ne in sorted(scored, key=lambda n: -(n.total or 0)):
        lines = [
            f"{escape(n)} x{exp.weights.get(n, 1)}: {ne.raw_scores[n]} → "
            f"{ne.normalized_scores.get(n, ne.raw_scores[n])} = {ne.weighted_scores.get(n, 0)}"
            for n in ne.raw_scores
        ]
        table.add_row(escape(ne.node), f"[bold]{ne.total}[/]", "\n".join(lines))
    fit_table(table, console)
    return table
