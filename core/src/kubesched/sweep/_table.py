"""The sweep as rows of text, a row per run and a column per metric (compare's metrics):
what the terminal table and the HTML page both show."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, Final

from kubesched.compare import METRICS

__all__ = ["KEY_METRICS", "sweep_rows"]

KEY_METRICS: Final = frozenset(
    {
        "Pods bound",
        "Unschedulable",
        "Preemptions",
        "Nodes used",
        "CPU requested: mean ± stddev",
        "CPU packing (nodes used)",
        "Largest CPU free on a node",
        "Zone skew (max of groups)",
        "Gangs placed",
    }
)
"""The metrics a narrow terminal shows (the others are in the JSON, CSV and HTML)."""

_LABELS: Final = 3
"""Cluster, Config, Seed: the columns before the metrics."""


def sweep_rows(
    document: dict[str, Any], metrics: Collection[str] | None = None
) -> tuple[list[str], list[list[str]]]:
    """The header (cluster, configuration, seed, each metric, the pods placed differently
    from the first configuration) and a row per run, in the sweep's order. Only the
    `metrics` named (None: all), and none that no run has (a `-` in every row)."""
    first = document["configs"][0]
    chosen = [(n, c) for n, c in METRICS if metrics is None or n in metrics]
    header = ["Cluster", "Config", "Seed", *(name for name, _ in chosen), "Placed differently"]
    rows = [
        [
            run["cluster"],
            run["config"],
            str(run["seed"]),
            *(cell(run) for _, cell in chosen),
            "-" if run["config"] == first else str(run["placedDifferently"]),
        ]
        for run in document["runs"]
    ]
    keep = [
        i
        for i in range(len(header))
        if i < _LABELS or i == len(header) - 1 or any(row[i] != "-" for row in rows)
    ]
    return [header[i] for i in keep], [[row[i] for i in keep] for row in rows]
