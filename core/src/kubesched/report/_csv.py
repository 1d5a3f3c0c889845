"""The simulation's pods and nodes as CSV files, for spreadsheets and notebooks
(`kubesched simulate --csv DIR`): `pods.csv` a row per pod with the JSON report's pod keys,
`nodes.csv` a row per node with `allocatable.<resource>` and `requested.<resource>` columns
(CPU in millicores, others in base units)."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

from kubesched.simulate import SimulationResult

__all__ = ["NODE_FILE", "POD_COLUMNS", "POD_FILE", "write_csv"]

POD_FILE = "pods.csv"
NODE_FILE = "nodes.csv"
POD_COLUMNS = (
    "namespace",
    "name",
    "schedulerName",
    "status",
    "node",
    "message",
    "attempts",
    "nominatedNode",
    "preemptedBy",
    "preemptedAt",
    "createdAt",
    "boundAt",
    "finishedAt",
    "latencySeconds",
)
"""pods.csv's columns: the JSON report's pod keys (without `error`), nulls empty."""


def write_csv(result: SimulationResult, folder: str | os.PathLike[str]) -> list[Path]:
    """Write pods.csv and nodes.csv into `folder` (made if missing); the files written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    pods = out / POD_FILE
    with pods.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(POD_COLUMNS)
        for p in result.pods:
            record = p.to_json_dict()
            writer.writerow([_cell(record.get(c)) for c in POD_COLUMNS])
    resources = sorted({r for n in result.nodes for r in n.allocatable})
    nodes = out / NODE_FILE
    with nodes.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(
            [
                "name",
                "pods",
                *(f"allocatable.{r}" for r in resources),
                *(f"requested.{r}" for r in resources),
            ]
        )
        for n in result.nodes:
            writer.writerow(
                [
                    n.name,
                    n.pods,
                    *(n.allocatable.get(r, 0) for r in resources),
                    *(n.requested.get(r, 0) for r in resources),
                ]
            )
    return [pods, nodes]


def _cell(value: Any) -> Any:
    return "" if value is None else value
