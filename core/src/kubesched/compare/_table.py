"""The comparison as rows of text, one per metric and a column per run: what the terminal
table and the HTML page both show."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesched.report import format_amount

__all__ = ["METRICS", "comparison_rows", "run_label"]


def run_label(run: dict[str, Any], seeds: int) -> str:
    """`most.yaml`, or `most.yaml seed 3` when the comparison has several seeds."""
    return run["config"] if seeds == 1 else f"{run['config']} seed {run['seed']}"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:g}s"


_Cell = Callable[[dict[str, Any]], str]

METRICS: list[tuple[str, _Cell]] = [
    ("Pods bound", lambda r: f"{r['summary']['bound']} / {r['summary']['pods']}"),
    ("Unschedulable", lambda r: str(r["summary"]["unschedulable"])),
    ("Pending / waiting", lambda r: f"{r['summary']['pending']} / {r['summary']['waiting']}"),
    ("Preemptions", lambda r: str(r["preemptions"])),
    ("Nodes used", lambda r: f"{r['nodesUsed']} / {r['summary']['nodes']}"),
    (
        "CPU requested: mean ± stddev",
        lambda r: (
            f"{_percent(r['utilization']['cpu']['mean'])} ± "
            f"{_percent(r['utilization']['cpu']['stddev'])}"
        ),
    ),
    (
        "Memory requested: mean ± stddev",
        lambda r: (
            f"{_percent(r['utilization']['memory']['mean'])} ± "
            f"{_percent(r['utilization']['memory']['stddev'])}"
        ),
    ),
    ("CPU packing (nodes used)", lambda r: _percent(r["packing"]["cpu"])),
    ("Memory packing (nodes used)", lambda r: _percent(r["packing"]["memory"])),
    ("Largest CPU free on a node", lambda r: format_amount("cpu", r["largestFree"]["cpu"])),
    (
        "Largest memory free on a node",
        lambda r: format_amount("memory", r["largestFree"]["memory"]),
    ),
    (
        "Zone skew (max of groups)",
        lambda r: "-" if r["zoneSkew"] is None else str(r["zoneSkew"]["max"]),
    ),
    (
        "Gangs placed",
        lambda r: "-" if r["gangs"] is None else f"{r['gangs']['placed']} / {r['gangs']['total']}",
    ),
    (
        "Gang time to quorum (max)",
        lambda r: "-" if r["gangs"] is None else _seconds(r["gangs"]["timeToQuorum"]["max"]),
    ),
    ("Scheduling latency p99", lambda r: _seconds(r["latency"]["p99"])),
]
"""Each metric's name and its text for one run (a `RunMetrics` document): the rows here,
the columns of `kubesched sweep`'s table."""


def comparison_rows(document: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The header (`Metric`, then a column per run) and a row per metric; then, per
    configuration after the first, how many pods it placed differently."""
    runs = document["runs"]
    seeds = len(document["seeds"])
    header = ["Metric", *(run_label(r, seeds) for r in runs)]
    rows = [[name, *(cell(r) for r in runs)] for name, cell in METRICS]
    moved = {(d["config"], d["seed"]): d["placedDifferently"] for d in document["differences"]}
    rows.append(
        [
            f"Pods placed differently from {document['configs'][0]}",
            *(str(moved.get((r["config"], r["seed"]), "-")) for r in runs),
        ]
    )
    return header, rows
