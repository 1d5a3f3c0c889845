"""Show and keep benchmark results: a rich table for people, JSON for programs, and a
dated row appended to `benchmarks/RESULTS.md` with `--record`.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Final

from rich.console import Console
from rich.table import Table

from kubesched_bench.result import BenchmarkResult

__all__ = [
    "COLUMNS",
    "LOADED",
    "MACHINE",
    "RESULTS_HEADER",
    "format_row",
    "record",
    "render_table",
    "row_notes",
    "to_json",
]

MACHINE: Final = "2 cores"
"""The machine the numbers in RESULTS.md were taken on (the team's shared sandbox)."""

LOADED: Final = 1.5
"""A 1-minute load average from which a row is marked as taken on a loaded machine (other
work competes with the run for the 2 cores)."""

COLUMNS: Final = (
    "date",
    "workload",
    "nodes / init / pods",
    "avg pods/s",
    "p50 pods/s",
    "p99 pods/s",
    "attempt p50 ms",
    "attempt p99 ms",
    "python",
    "machine",
    "notes",
    "cycle ms/pod",
    "CPU ms/pod",
    "peak RSS MiB",
    "load at end",
)

RESULTS_HEADER: Final = (
    """\
# Benchmark results

Rows are appended by

    python benchmarks/run.py --workload NAME --nodes N --init-pods N --pods N --record

one row per run, dated, with the default profile (no config file; GangScheduling adds
Coscheduling, and its notes say so) over the plugins installed at the time: the profile
grows as default plugins land, so compare rows of the same period. Nothing here is edited
by hand.

Columns:

- **nodes / init / pods**: nodes created, pods scheduled before measuring, measured pods.
- **avg pods/s**: measured pods / wall-clock seconds from creating the first measured pod
  to binding the last one (pod creation included, as upstream).
- **p50 / p99 pods/s**: percentiles of the per-second throughput samples (nearest rank,
  as upstream's scheduler_perf `throughputCollector`).
- **attempt p50 / p99 ms**: wall-clock milliseconds of one scheduling cycle (PreFilter to
  Reserve/Permit), measured phase only.
- **python**, **machine**: interpreter version and the machine's size.
- **notes**: the 1-minute load average when the run started ("loaded" from 1.5: other work
  was competing for the cores, so the numbers are low), preemption victims, and any
  `--note` given. Workloads that run another profile or check more than pods add (since
  2026-11-22): the profile when it is not the default one (`profile default +
  Coscheduling`); for gang workloads the gangs and their **time to quorum** (`100 gangs
  of 10; time to quorum p50 / p99 / max P50 / P99 / MAX ms`): per gang, the wall-clock ms
  from creating its first member to the bind of its minMember-th member (minMember is
  the gang size, so: to its last member bound), waiting behind the gangs created before
  it included, percentiles nearest-rank over the gangs; for volume workloads the claims
  checked bound at the end (`1500 of 1500 claims bound`).
- **cycle ms/pod** (since 2026-11-26): wall-clock ms of the measured phase's scheduling
  cycles (every attempt) per measured pod: the scheduler's own cost, binding and pod
  creation left out.
- **CPU ms/pod**: the process's CPU time over the measured phase per measured pod
  (steadier than wall-clock figures when other work shares the cores).
- **peak RSS MiB**: the process's peak resident set size (getrusage ru_maxrss), setup
  included.
- **load at end**: the 1-minute load average when the measured phase ended (the one at the
  start is in the notes).

"""
    + "| "
    + " | ".join(COLUMNS)
    + " |\n"
    + "|---" * len(COLUMNS)
    + "|\n"
)


def render_table(result: BenchmarkResult, console: Console | None = None) -> None:
    """Print one result as a table, with the profile's left-out plugins underneath."""
    console = console or Console()
    t, lat = result.throughput, result.latency
    table = Table(
        title=(
            f"{result.workload} {result.nodes}Nodes/{result.init_pods}InitPods/"
            f"{result.pods}Pods (seed {result.seed})"
        )
    )
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("unit")
    rows: list[tuple[str, str, str]] = [
        ("SchedulingThroughput Average", f"{t.average:.1f}", "pods/s"),
        ("SchedulingThroughput Perc50", f"{t.perc50:.1f}", "pods/s"),
        ("SchedulingThroughput Perc90", f"{t.perc90:.1f}", "pods/s"),
        ("SchedulingThroughput Perc99", f"{t.perc99:.1f}", "pods/s"),
        ("throughput samples", str(len(t.samples)), "1 s each"),
        ("attempt latency p50", f"{lat.p50_ms:.2f}", "ms"),
        ("attempt latency p90", f"{lat.p90_ms:.2f}", "ms"),
        ("attempt latency p99", f"{lat.p99_ms:.2f}", "ms"),
        ("attempt latency max", f"{lat.max_ms:.2f}", "ms"),
        ("scheduling cycles per pod", f"{result.cycle_ms_per_pod:.3f}", "ms"),
        ("CPU time per pod", f"{result.cpu_ms_per_pod:.3f}", "ms"),
        ("peak RSS", f"{result.peak_rss_mib:.0f}", "MiB"),
        ("measured wall time", f"{result.wall_seconds:.2f}", "s"),
        ("  of which creating pods", f"{result.create_seconds:.2f}", "s"),
        ("init phase wall time", f"{result.init_seconds:.2f}", "s"),
        ("measured pods bound", f"{result.bound} / {result.pods}", "pods"),
        *_gang_rows(result),
        *_claim_rows(result),
        ("preemption victims", str(result.victims), "pods"),
        (
            "load average at start",
            "-" if result.load_average is None else f"{result.load_average:.2f}",
            "1 min",
        ),
        ("load average at end", _load(result.load_average_end), "1 min"),
        (
            "scheduling attempts",
            " / ".join(
                str(result.attempts.get(k, 0)) for k in ("scheduled", "unschedulable", "error")
            ),
            "ok / unsched / err",
        ),
    ]
    for row in rows:
        table.add_row(*row)
    console.print(table)
    if result.profile != "default":
        console.print(f"profile: {result.profile}", style="dim")
    if result.left_out:
        console.print(
            "default plugins not installed (left out of the profile): "
            + ", ".join(result.left_out),
            style="dim",
        )


def _gang_rows(result: BenchmarkResult) -> list[tuple[str, str, str]]:
    q = result.time_to_quorum
    if q is None:
        return []
    return [
        ("gangs bound whole", str(q.gangs), f"gangs of {result.gang_size} pods"),
        ("time to quorum p50", f"{q.p50_ms:.0f}", "ms"),
        ("time to quorum p90", f"{q.p90_ms:.0f}", "ms"),
        ("time to quorum p99", f"{q.p99_ms:.0f}", "ms"),
        ("time to quorum max", f"{q.max_ms:.0f}", "ms"),
    ]


def _claim_rows(result: BenchmarkResult) -> list[tuple[str, str, str]]:
    if not result.claims:
        return []
    return [("claims bound", f"{result.claims_bound} / {result.claims}", "claims")]


def _load(load: float | None) -> str:
    return "-" if load is None else f"{load:.2f}"


def to_json(result: BenchmarkResult) -> str:
    return json.dumps(result.as_dict(), indent=2)


def row_notes(result: BenchmarkResult, note: str | None = None) -> str:
    """The notes cell: load average (and whether the machine counts as loaded), the
    profile when not the default one, gangs and their time to quorum, claims bound,
    preemption victims, then `note`."""
    parts: list[str] = []
    if result.load_average is not None:
        load = f"load {result.load_average:.2f}"
        parts.append(f"{load} (loaded)" if result.load_average >= LOADED else load)
    if result.profile != "default":
        parts.append(f"profile {result.profile}")
    q = result.time_to_quorum
    if q is not None:
        parts.append(f"{q.gangs} gangs of {result.gang_size}")
        parts.append(
            f"time to quorum p50 / p99 / max {q.p50_ms:.0f} / {q.p99_ms:.0f} / {q.max_ms:.0f} ms"
        )
    if result.claims:
        parts.append(f"{result.claims_bound} of {result.claims} claims bound")
    if result.victims:
        parts.append(f"{result.victims} preemption victims")
    if note:
        parts.append(note.replace("|", "/").replace("\n", " "))
    return "; ".join(parts)


def format_row(
    result: BenchmarkResult, date: datetime.date | None = None, note: str | None = None
) -> str:
    """The RESULTS.md table row for `result`, dated `date` (default today), with `note`
    added to its notes."""
    day = (date or datetime.date.today()).isoformat()
    t, lat = result.throughput, result.latency
    cells = [
        day,
        result.workload,
        f"{result.nodes} / {result.init_pods} / {result.pods}",
        f"{t.average:.1f}",
        f"{t.perc50:.1f}",
        f"{t.perc99:.1f}",
        f"{lat.p50_ms:.2f}",
        f"{lat.p99_ms:.2f}",
        result.python,
        MACHINE,
        row_notes(result, note),
        f"{result.cycle_ms_per_pod:.3f}",
        f"{result.cpu_ms_per_pod:.3f}",
        f"{result.peak_rss_mib:.0f}",
        _load(result.load_average_end),
    ]
    return "| " + " | ".join(cells) + " |"


def record(
    result: BenchmarkResult,
    path: Path,
    date: datetime.date | None = None,
    note: str | None = None,
) -> str:
    """Add `result`'s row at the end of the results file's `simulate` table (the first
    table; other sections, such as the run-mode table, follow it), creating the file with
    its header first; returns the row written."""
    row = format_row(result, date, note)
    if not path.exists():
        path.write_text(RESULTS_HEADER, encoding="utf-8")
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(_with_row(lines, row)) + "\n", encoding="utf-8")
    return row


def _with_row(lines: list[str], row: str) -> list[str]:
    """`lines` with `row` after the last row of the table headed like RESULTS_HEADER's."""
    header = RESULTS_HEADER.rstrip("\n").splitlines()[-2]
    if header not in lines:
        return [*lines, row]
    end = lines.index(header) + 1
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return [*lines[:end], row, *lines[end:]]
