"""Issue 14's speed targets against the latest recorded figures (`run.py --targets`).

The targets are fixed here, once; the figures are read back from RESULTS.md's `simulate`
table, so the comparison is never typed by hand. For each target the latest fast-path row
of its workload and size counts (rows are appended in time order; per-node-path rows, taken
for comparison, are left out). `--targets --record` writes the comparison into RESULTS.md
between two markers, replacing the previous one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from kubesched_bench.report import RESULTS_HEADER

__all__ = [
    "TARGETS",
    "Target",
    "latest_row",
    "parse_rows",
    "render_targets",
    "write_targets",
]

BEGIN: Final = "<!-- targets: written by `python benchmarks/run.py --targets --record` -->"
END: Final = "<!-- targets end -->"

_PER_NODE_PATH = re.compile(r"per-node path|KUBESCHED_FAST_PATH=0")


@dataclass(frozen=True)
class Target:
    """One bound on one column of one workload's rows."""

    workload: str
    nodes: int
    init_pods: int | None
    """None: any number of init pods (the target names only the nodes)."""
    pods: int | None
    column: str
    """A column of the results table, e.g. `avg pods/s`."""
    op: Literal[">=", "<="]
    bound: float
    why: str
    """Where the bound comes from."""

    @property
    def size(self) -> str:
        init = "*" if self.init_pods is None else str(self.init_pods)
        pods = "*" if self.pods is None else str(self.pods)
        return f"{self.nodes} / {init} / {pods}"

    def met_by(self, value: float) -> bool:
        return value >= self.bound if self.op == ">=" else value <= self.bound

    def matches(self, row: dict[str, str]) -> bool:
        if row.get("workload") != self.workload or _PER_NODE_PATH.search(row.get("notes", "")):
            return False
        nodes, init, pods = (int(part) for part in row["nodes / init / pods"].split(" / "))
        return (
            nodes == self.nodes
            and self.init_pods in (None, init)
            and self.pods in (None, pods)
            and bool(row.get(self.column, "").strip())
        )


_TWICE = "issue 14: twice upstream's CI threshold"

TARGETS: Final = (
    Target("SchedulingBasic", 5000, 1000, 10000, "avg pods/s", ">=", 1500, "issue 14"),
    Target("SchedulingBasic", 5000, 1000, 10000, "cycle ms/pod", "<=", 0.3, "issue 14"),
    Target("SchedulingBasic", 15000, None, None, "avg pods/s", ">=", 1000, "issue 14"),
    Target("TopologySpreading", 5000, 5000, 5000, "avg pods/s", ">=", 460, _TWICE),
    Target("SchedulingPodAntiAffinity", 5000, 1000, 2000, "avg pods/s", ">=", 60, _TWICE),
    Target("SchedulingPodAffinity", 5000, 5000, 5000, "avg pods/s", ">=", 35, _TWICE),
    Target("SchedulingNodeAffinity", 5000, 5000, 10000, "avg pods/s", ">=", 220, _TWICE),
    Target(
        "SchedulingBasic",
        5000,
        10000,
        10000,
        "peak RSS MiB",
        "<=",
        1024,
        "issue 14: under 1 GiB at 5000 nodes / 20000 pods",
    ),
    Target(
        "SchedulingWithResourceClaimTemplate",
        500,
        2500,
        2500,
        "avg pods/s",
        ">=",
        56,
        "upstream's CI threshold (dra/performance-config.yaml, 5000pods_500nodes)",
    ),
)


def parse_rows(text: str) -> list[dict[str, str]]:
    """The rows of the `simulate` table (the one headed as RESULTS_HEADER's), oldest first,
    as {column: cell}; rows written before a column existed lack it."""
    header = RESULTS_HEADER.rstrip("\n").splitlines()[-2]
    lines = text.splitlines()
    if header not in lines:
        return []
    columns = _cells(header)
    rows = []
    for line in lines[lines.index(header) + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(columns, _cells(line), strict=False)))
    return rows


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def latest_row(target: Target, rows: list[dict[str, str]]) -> dict[str, str] | None:
    """The last fast-path row of the target's workload and size, or None."""
    return next((row for row in reversed(rows) if target.matches(row)), None)


def render_targets(rows: list[dict[str, str]]) -> str:
    """A markdown table: each target, its latest figure, and whether it is met."""
    out = [
        "| target | size (nodes / init / pods) | bound | latest figure | date | load | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for target in TARGETS:
        row = latest_row(target, rows)
        bound = f"{target.column} {target.op} {target.bound:g} ({target.why})"
        if row is None:
            out.append(f"| {target.workload} | {target.size} | {bound} | not measured | | | |")
            continue
        value = float(row[target.column])
        load = _load(row.get("notes", ""))
        verdict = "yes" if target.met_by(value) else f"no ({_shortfall(target, value)})"
        out.append(
            f"| {target.workload} | {row['nodes / init / pods']} | {bound} | {value:g} "
            f"| {row['date']} | {load} | {verdict} |"
        )
    return "\n".join(out) + "\n"


def _shortfall(target: Target, value: float) -> str:
    """How far a missed target is, as a percentage of the bound."""
    return f"{abs(value - target.bound) / target.bound:.0%} off"


def _load(notes: str) -> str:
    found = re.match(r"load (\d+(?:\.\d+)?)", notes)
    return found.group(1) if found else ""


def write_targets(path: Path) -> str:
    """Rewrite the targets section of the results file (added at its end the first time);
    returns the section's table."""
    text = path.read_text(encoding="utf-8")
    table = render_targets(parse_rows(text))
    section = f"{BEGIN}\n{table}{END}"
    if BEGIN in text and END in text:
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        text = f"{head}{section}{tail}"
    else:
        text = f"{text.rstrip()}\n\n## Against the targets (issue 14)\n\n{section}\n"
    path.write_text(text, encoding="utf-8")
    return table
