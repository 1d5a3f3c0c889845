"""The HTML report: one self-contained page (styles, script, charts and data inline, nothing
fetched), rendered with Jinja2 from the report's JSON document.

The page is rendered from the document alone (checked against `SimulationReport` first),
so a saved document renders the same page. Tables and charts are HTML and SVG written
here; the script only searches the pod table and shows a pod's attempts, reading the
document embedded as JSON (`<script type="application/json" id="report-data">`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from markupsafe import Markup

from kubesched.report._charts import (
    Bar,
    Series,
    bar_chart,
    heat_color,
    histogram,
    step_chart,
    tile_map,
)
from kubesched.report._format import format_amount
from kubesched.report._models import NodeRecord, SimulationReport

__all__ = ["HEATMAP_TABLE_NODES", "render_html", "render_page"]

HEATMAP_TABLE_NODES: Final = 60
"""Up to this many nodes, allocation is a table (a row per node); beyond, a tile map."""


def render_html(document: dict[str, Any]) -> str:
    """The page for a report document (`html_document`); ValidationError when the
    document does not match `SimulationReport`."""
    report = SimulationReport.model_validate(document)
    return render_page(
        "kubesched.report",
        "report.html.j2",
        document,
        report=report,
        cards=_cards(report),
        allocation=_allocation(report),
        timeline=_timeline(report),
        latency=_latency(report),
        script=Markup(_asset("kubesched.report", "report.js")),
    )


def render_page(package: str, template: str, document: dict[str, Any], **context: Any) -> str:
    """A self-contained page from `template` in `package`'s `templates` folder, given the
    report's stylesheet as `style` and `document` as embeddable JSON (`data`)."""
    import jinja2  # here: only a report needs it, and importing it costs every command ~70 ms

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: _asset(package, name)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template(template).render(
        style=Markup(_asset("kubesched.report", "report.css")),
        data=Markup(_script_json(document)),
        **context,
    )


def _asset(package: str, name: str) -> str:
    return (resources.files(package) / "templates" / name).read_text(encoding="utf-8")


def _script_json(document: dict[str, Any]) -> str:
    """The document as JSON that cannot end its `<script>` element early."""
    text = json.dumps(document, separators=(",", ":"), sort_keys=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@dataclass(frozen=True)
class Card:
    label: str
    value: str
    tone: str = ""


def _cards(report: SimulationReport) -> list[Card]:
    """The summary figures at the top of the page."""
    s = report.summary
    cards = [
        Card("Pods", f"{s.pods:,}"),
        Card("Bound", f"{s.bound:,}", "good" if s.bound else ""),
        Card("Unschedulable", f"{s.unschedulable:,}", "bad" if s.unschedulable else ""),
    ]
    for label, value, tone in (
        ("Error", s.error, "bad"),
        ("Pending", s.pending, "warn"),
        ("Waiting", s.waiting, "warn"),
        ("Preempted", s.preempted, "warn"),
        ("Terminating", s.terminating, "warn"),
        ("Succeeded", s.succeeded or 0, "good"),
        ("Failed", s.failed or 0, "bad"),
    ):
        if value:
            cards.append(Card(label, f"{value:,}", tone))
    groups = (report.sections or {}).get("podGroups")
    if isinstance(groups, list) and groups:
        placed = sum(1 for g in groups if isinstance(g, dict) and g.get("scheduled") == "True")
        cards.append(Card("Gangs placed", f"{placed:,} / {len(groups):,}"))
    claims = {
        (key.partition("/")[0], c.name): c.phase
        for key, d in (report.details or {}).items()
        for c in d.claims
    }
    if claims:
        bound = sum(1 for phase in claims.values() if phase == "Bound")
        cards.append(Card("Claims bound", f"{bound:,} / {len(claims):,}"))
    cards.append(Card("Nodes", f"{s.nodes:,}"))
    cards.append(Card("Attempts", f"{s.attempts:,}"))
    cards.append(Card("Virtual time", f"{s.virtual_seconds:g}s"))
    latency = report.timeline.latency if report.timeline is not None else None
    if latency is not None and latency.pods:
        cards.append(Card("Latency p50 / p99", f"{latency.p50:g}s / {latency.p99:g}s"))
    return cards


@dataclass(frozen=True)
class Cell:
    text: str
    title: str
    color: str


@dataclass(frozen=True)
class Allocation:
    """The allocation part of the page: its resources, then either a table of nodes
    (`rows`) or a tile map per resource (`tiles`), and a bar chart per resource of the
    zones (`zones`, empty without zone labels)."""

    resources: list[str]
    rows: list[tuple[str, list[Cell]]]
    tiles: list[tuple[str, Markup]]
    zones: list[tuple[str, Markup]]


def _resources(nodes: Sequence[NodeRecord]) -> list[str]:
    """cpu, memory, the extended resources some node offers, then pods."""
    extended = sorted(
        {k for n in nodes for k, v in n.allocatable.items() if v} - {"cpu", "memory", "pods"}
    )
    return ["cpu", "memory", *extended, "pods"]


def _figures(resource: str, used: int, total: int) -> tuple[float, str]:
    fraction = used / total if total else (1.0 if used else 0.0)
    text = f"{format_amount(resource, used)} / {format_amount(resource, total)}"
    return fraction, f"{text} ({fraction:.0%})"


def _allocation(report: SimulationReport) -> Allocation:
    nodes = report.nodes or []
    names = _resources(nodes)
    rows: list[tuple[str, list[Cell]]] = []
    tiles: list[tuple[str, Markup]] = []
    if len(nodes) <= HEATMAP_TABLE_NODES:
        for n in nodes:
            cells = []
            for r in names:
                fraction, text = _figures(r, n.requested.get(r, 0), n.allocatable.get(r, 0))
                cells.append(Cell(f"{fraction:.0%}", text, heat_color(fraction)))
            rows.append((n.name, cells))
    else:
        for r in names:
            marks = []
            for n in nodes:
                fraction, text = _figures(r, n.requested.get(r, 0), n.allocatable.get(r, 0))
                marks.append((f"{n.name}: {text}", fraction))
            tiles.append((r, Markup(tile_map(marks))))
    zones: list[tuple[str, Markup]] = []
    zone_of = report.zones or {}
    if zone_of:
        for r in names:
            totals: dict[str, list[int]] = {}
            for n in nodes:
                used_total = totals.setdefault(zone_of.get(n.name, "(no zone)"), [0, 0])
                used_total[0] += n.requested.get(r, 0)
                used_total[1] += n.allocatable.get(r, 0)
            bars = [Bar(z, *_figures(r, u, t)) for z, (u, t) in sorted(totals.items())]
            zones.append((r, Markup(bar_chart(bars))))
    return Allocation(names, rows, tiles, zones)


def _timeline(report: SimulationReport) -> Markup | None:
    timeline = report.timeline
    if timeline is None or len(timeline.points) < 2:
        return None
    points = timeline.points
    xs = [p.at for p in points]
    series = [
        Series("pending", "#e45756", [p.pending for p in points]),
        Series("bound", "#54a24b", [p.bound for p in points]),
    ]
    if any(p.succeeded or p.failed for p in points):
        series.append(Series("finished", "#4c78a8", [p.succeeded + p.failed for p in points]))
    marks = [(c.at, c.name) for c in report.checkpoints or []]
    return Markup(step_chart(xs, series, x_label="virtual seconds", marks=marks))


def _latency(report: SimulationReport) -> Markup | None:
    latencies = [p.latency_seconds for p in report.pods or [] if p.latency_seconds is not None]
    if not latencies:
        return None
    return Markup(histogram(latencies, x_label="seconds from creation to binding"))
