"""The sweep's HTML report: the table of runs, each run's allocation as a tile map (nodes
from the fullest) and why pods were not bound; built from compare's pieces (its metrics,
the report's stylesheet and tile maps), self-contained as the other reports are."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from kubesched.report import render_page, tile_map
from kubesched.sweep._models import SweepReport
from kubesched.sweep._table import sweep_rows

__all__ = ["render_sweep_html", "run_title"]


def render_sweep_html(document: dict[str, Any]) -> str:
    """The page for a sweep document (`sweep`); ValidationError when it does not match
    `SweepReport`."""
    report = SweepReport.model_validate(document)
    header, rows = sweep_rows(document)
    return render_page(
        "kubesched.sweep",
        "sweep.html.j2",
        document,
        report=report,
        header=header,
        rows=rows,
        maps=[(run_title(run), *_tiles(run)) for run in document["runs"]],
    )


def run_title(run: dict[str, Any]) -> str:
    """`manifests, most.yaml, seed 3`."""
    return f"{run['cluster']}, {run['config']}, seed {run['seed']}"


def _tiles(run: dict[str, Any]) -> tuple[Markup, Markup]:
    """A tile map of cpu and of memory: a square per node, fullest first."""
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
