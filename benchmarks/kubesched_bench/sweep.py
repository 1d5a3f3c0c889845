"""`--sweep N,N,...`: one workload at several node counts, and how its cost grows.

Each size runs in a fresh process (`run.py --json`), so that one run's heap, frozen
objects and peak RSS do not carry into the next. The table shows, per node count, the
figures of a normal run and the growth of the scheduling cycle's cost: relative to the
smallest size, and per 1000 nodes added since the previous size.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["add_sweep_argument", "growth_rows", "main_sweep", "node_counts"]


def node_counts(text: str) -> list[int]:
    """`500,1000,5000` → [500, 1000, 5000]: positive, each larger than the one before."""
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of node counts: {text!r}") from None
    if not counts or min(counts) <= 0 or counts != sorted(set(counts)):
        raise argparse.ArgumentTypeError(f"node counts must be positive and increasing: {text!r}")
    return counts


def add_sweep_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--sweep",
        type=node_counts,
        metavar="N,N,...",
        help="run the workload at each node count (e.g. 500,1000,5000,15000), each in a "
        "fresh process, and show how the cost grows",
    )


def _child_argv(run_py: Path, args: argparse.Namespace, nodes: int) -> list[str]:
    argv = [sys.executable, str(run_py), "--workload", args.workload, "--nodes", str(nodes)]
    for flag, value in (
        ("--init-pods", args.init_pods),
        ("--pods", args.pods),
        ("--gang-size", args.gang_size),
        ("--seed", args.seed),
        ("--note", args.note),
    ):
        if value is not None:
            argv += [flag, str(value)]
    if args.record:
        argv += ["--record", "--results-file", str(args.results_file)]
    return [*argv, "--json"]


def growth_rows(results: Sequence[dict[str, Any]]) -> list[list[str]]:
    """One row per result (ascending node counts): nodes, pods/s, cycle ms/pod, CPU
    ms/pod, attempt p50 / p99 ms, peak RSS MiB, load at start, the cycle cost relative to
    the first row, and µs of cycle per pod added by each 1000 nodes since the row before."""
    rows: list[list[str]] = []
    first = results[0]["cycle_ms_per_pod"] if results else 0.0
    previous: dict[str, Any] | None = None
    for r in results:
        cycle = r["cycle_ms_per_pod"]
        ratio = f"{cycle / first:.2f}x" if first else "-"
        slope = "-"
        if previous is not None and r["nodes"] > previous["nodes"]:
            added = (cycle - previous["cycle_ms_per_pod"]) * 1000  # µs
            slope = f"{added * 1000 / (r['nodes'] - previous['nodes']):.1f}"
        load = r.get("load_average")
        rows.append(
            [
                str(r["nodes"]),
                f"{r['throughput']['average']:.1f}",
                f"{cycle:.3f}",
                f"{r['cpu_ms_per_pod']:.3f}",
                f"{r['attempt_latency']['p50']:.2f} / {r['attempt_latency']['p99']:.2f}",
                f"{r['peak_rss_mib']:.0f}",
                "-" if load is None else f"{load:.2f}",
                ratio,
                slope,
            ]
        )
        previous = r
    return rows


_HEADERS = (
    "nodes",
    "pods/s",
    "cycle ms/pod",
    "CPU ms/pod",
    "p50 / p99 ms",
    "RSS MiB",
    "load",
    "cycle x",
    "µs/pod per +1k nodes",
)


def main_sweep(run_py: Path, args: argparse.Namespace, console: Console | None = None) -> int:
    """Run the sweep; print the growth table (or, with --json, the list of results)."""
    results: list[dict[str, Any]] = []
    failed = 0
    for nodes in args.sweep:
        done = subprocess.run(
            _child_argv(run_py, args, nodes), capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            failed = failed or done.returncode
            print(f"error: {nodes} nodes: {done.stderr.strip()}", file=sys.stderr)
            continue
        results.append(json.loads(done.stdout))
    if args.json:
        print(json.dumps(results, indent=2))
    elif results:
        r0 = results[0]
        table = Table(
            title=f"{r0['workload']} sweep: {r0['init_pods']} init pods, {r0['pods']} pods "
            f"(seed {r0['seed']})"
        )
        for header in _HEADERS:
            table.add_column(header, justify="left" if header == "nodes" else "right")
        for row in growth_rows(results):
            table.add_row(*row)
        (console or Console()).print(table)
    return failed
