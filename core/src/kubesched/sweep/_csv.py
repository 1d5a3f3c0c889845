"""The sweep table as CSV for spreadsheets and notebooks (`kubesched sweep --csv FILE`): a
row per run, a column per figure, named by its path in the JSON document
(`utilization.cpu.stddev`); numbers as numbers (CPU in millicores, memory in bytes,
fractions 0..1), an empty cell where the JSON has null."""

from __future__ import annotations

import csv
import os
from typing import Any, Final

__all__ = ["SWEEP_COLUMNS", "write_sweep_csv"]

_SPREAD: Final = ("mean", "stddev", "min", "max")
SWEEP_COLUMNS: Final = (
    "cluster",
    "config",
    "seed",
    "summary.pods",
    "summary.bound",
    "summary.unschedulable",
    "summary.error",
    "summary.pending",
    "summary.waiting",
    "summary.preempted",
    "preemptions",
    "summary.nodes",
    "nodesUsed",
    *(f"utilization.{r}.{s}" for r in ("cpu", "memory") for s in _SPREAD),
    "packing.cpu",
    "packing.memory",
    "largestFree.cpu",
    "largestFree.memory",
    "free.cpu",
    "free.memory",
    "zoneSkew.max",
    "gangs.total",
    "gangs.placed",
    "gangs.timeToQuorum.mean",
    "gangs.timeToQuorum.max",
    "latency.p50",
    "latency.p90",
    "latency.p99",
    "latency.max",
    "summary.virtualSeconds",
    "summary.attempts",
    "placedDifferently",
)
"""The CSV's columns: paths into each run of the sweep document."""


def write_sweep_csv(document: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write the sweep's runs to `path` as CSV (SWEEP_COLUMNS)."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(SWEEP_COLUMNS)
        for run in document["runs"]:
            writer.writerow([_value(run, column) for column in SWEEP_COLUMNS])


def _value(run: dict[str, Any], column: str) -> Any:
    value: Any = run
    for key in column.split("."):
        if value is None:
            break
        value = value[key]
    return "" if value is None else value
