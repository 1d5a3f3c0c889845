"""The comparison's HTML report: the metrics side by side, each run's allocation as a tile
map (nodes from the fullest), and the pods placed differently; self-contained as the
simulation's report is (its stylesheet, inline SVG, the document embedded as JSON)."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from kubesched.compare._models import ComparisonReport
from kubesched.compare._table import comparison_rows, run_label
from kubesched.report import render_page, tile_map

__all__ = ["render_comparison_html"]


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
    """Per run: its label and a tile map of cpu and of memory, nodes fullest first."""
    seeds = len(document["seeds"])
    maps = []
    for run in document["runs"]:
        charts = []
        for resource in ("cpu", "memory"):
            fractions = [
                (n["name"], n["requested"].get(resource, 0) / n["allocatable"][resource])
                for n in run["nodes"]
                if n["allocatable"].get(resource)
            ]
            tiles = [(f"{name}: {f:.0%}", f) for name, f in fractions]
            tiles.sort(key=lambda t: -t[1])
            charts.append(Markup(tile_map(tiles, columns=30, size=18)))
        maps.append((run_label(run, seeds), charts[0], charts[1]))
    return maps
