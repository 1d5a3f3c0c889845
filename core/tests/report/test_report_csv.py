"""`kubesched simulate --csv DIR`: the pods and nodes as CSV files (issue 17's exports)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from report_helpers import EXAMPLES

from kubesched.cli._main import main
from kubesched.report._csv import POD_COLUMNS


def test_csv_holds_what_the_json_report_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "out" / "csv"  # made if missing
    args = ["simulate", "--no-progress", str(EXAMPLES / "preemption"), "-o", "json"]
    assert main([*args, "--csv", str(folder)]) == 0
    data = json.loads(capsys.readouterr().out)
    with (folder / "pods.csv").open(newline="") as f:
        pods = list(csv.DictReader(f))
    assert tuple(pods[0]) == POD_COLUMNS
    assert len(pods) == len(data["pods"])
    for row, pod in zip(pods, data["pods"], strict=True):
        for column in POD_COLUMNS:
            assert row[column] == ("" if pod[column] is None else str(pod[column])), column
    victim = next(r for r in pods if r["name"] == "batch-3")
    assert (victim["status"], victim["preemptedBy"]) == ("Preempted", "default/urgent")
    with (folder / "nodes.csv").open(newline="") as f:
        nodes = list(csv.DictReader(f))
    assert [n["name"] for n in nodes] == [n["name"] for n in data["nodes"]]
    for row, node in zip(nodes, data["nodes"], strict=True):
        assert int(row["pods"]) == node["pods"]
        for resource, value in node["allocatable"].items():
            assert int(row[f"allocatable.{resource}"]) == value
            assert int(row[f"requested.{resource}"]) == node["requested"][resource]


def test_csv_into_a_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "taken"
    target.write_text("")
    args = ["simulate", "--no-progress", str(EXAMPLES / "basic"), "--csv", str(target)]
    assert main(args) == 2
    assert "is a file" in capsys.readouterr().err
