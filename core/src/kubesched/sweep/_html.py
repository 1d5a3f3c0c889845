"""The sweep's HTML report: the table of runs, each run's allocation as a tile map (nodes
from the fullest) and why pods were not bound; built from compare's pieces (its metrics,
the report's stylesheet and tile maps), self-contained as the other reports are."""

from __future__ import annotations

from typing import Any

from kubesched.compare import allocation_maps
from kubesched.report import render_page
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
        maps=[(run_title(run), *allocation_maps(run)) for run in document["runs"]],
    )


def run_title(run: dict[str, Any]) -> str:
    """`manifests, most.yaml, seed 3`."""
    return f"{run['cluster']}, {run['config']}, seed {run['seed']}"
