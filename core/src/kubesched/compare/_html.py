"""The comparison's HTML report: the metrics side by side, each run's allocation as a tile
map (nodes from the fullest), and the pods placed differently; self-contained as the
simulation's report is (its stylesheet, inline SVG, the document embedded as JSON)."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from kubesched.compare._models import ComparisonReport
from kubesched.compare._table import comparison_rows, run_label
from kubesched.report import render_page, tile_map

__all__ = ["allocation_maps", "render_comparison_html"]


def render_comparison_html(document: dict[str, Any]) -> str:
    """The page for a comparison document (`compare`); ValidationError when it does not
    match `ComparisonReport`."""
    report = ComparisonReport.model_validate(document)
    header, rows = comparison_rows(document)
    return render_page(
        "kubesched.compare",
        "compare.html.j2",
        document,
        report=report,
        header=header,
        rows=rows,
        maps=_maps(document),
    )


def _maps(document: dict[str, Any]) -> list[tuple[str, Markup, Markup]]:
    """Per run: its label and its allocation maps."""
    seeds = len(document["seeds"])
    return [(run_label(run, seeds), *allocation_maps(run)) for run in document["runs"]]


def allocation_maps(run: dict[str, Any]) -> tuple[Markup, Markup]:
    """A run's (compare's or sweep's) tile maps of cpu and of memory requested: a square
    per node with allocatable of it, fullest first."""
    charts = []
    for resource in ("cpu", "memory"):
        tiles = [
            (f"{n['name']}: {f:.0%}", f)
            for n in run["nodes"]
            if n["allocatable"].get(resource)
            for f in [n["requested"].get(resource, 0) / n["allocatable"][resource]]
        ]
        tiles.sort(key=lambda t: -t[1])
        charts.append(Markup(tile_map(tiles, columns=30, size=18)))
    return charts[0], charts[1]
