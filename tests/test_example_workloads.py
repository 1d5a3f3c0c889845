"""`examples/workloads` does what its README promises, for every seed: the Deployment spread
two per zone, the StatefulSet on three nodes with its claims, one DaemonSet pod per worker,
and the Job's eight pods Succeeded after three rounds of ten virtual minutes.

Runs through `kubesched simulate` with the installed plugins and hooks, so it needs
kubesched-builtin and kubesched-volumebinding installed with their entry points.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from kubesched.cli._main import main

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = ROOT / "examples" / "workloads"
ZONE = {"a1": "a", "a2": "a", "b1": "b", "b2": "b", "c1": "c", "c2": "c"}
WORKERS = sorted(ZONE)


def _report(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main(["simulate", str(WORKLOADS), "-o", "json", *args])
    out = capsys.readouterr().out
    assert code == 0
    data: dict[str, Any] = json.loads(out)
    return data


def _pods(data: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    return [p for p in data["pods"] if p["name"].startswith(prefix)]


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_the_workloads_land_as_the_readme_says(
    capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    data = _report(capsys, "--seed", str(seed))

    web = _pods(data, "web-")
    assert [p["status"] for p in web] == ["Bound"] * 6
    assert Counter(ZONE[p["node"]] for p in web) == {"a": 2, "b": 2, "c": 2}

    db = _pods(data, "db-")
    assert [p["name"] for p in db] == ["db-0", "db-1", "db-2"]
    assert len({p["node"] for p in db}) == 3 and all(p["status"] == "Bound" for p in db)

    exporters = _pods(data, "node-exporter-")
    assert sorted(p["node"] for p in exporters) == WORKERS

    reports = _pods(data, "report-")
    assert [p["status"] for p in reports] == ["Succeeded"] * 8
    assert all(p["node"] in ZONE for p in reports)

    assert data["summary"]["succeeded"] == 8 and data["summary"]["virtualSeconds"] == 1800.0
    workloads = {(w["kind"], w["name"]): w for w in data["sections"]["workloads"]}
    assert workloads["Job", "report"]["message"].startswith("Complete:")
    assert workloads["DaemonSet", "node-exporter"]["desired"] == 6


def test_the_same_seed_gives_the_same_names_and_placements(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = _report(capsys, "--seed", "5")
    again = _report(capsys, "--seed", "5")
    other = _report(capsys, "--seed", "6")

    def placements(data: dict[str, Any]) -> list[tuple[str, str | None]]:
        return [(p["name"], p["node"]) for p in data["pods"]]

    assert placements(first) == placements(again)
    assert [p["name"] for p in first["pods"]] != [p["name"] for p in other["pods"]]


def test_the_table_report_shows_the_workloads_and_the_finished_pods(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["simulate", str(WORKLOADS), "--no-progress"]) == 0
    out = capsys.readouterr().out

    assert "Workloads" in out and "Job/default/report" in out
    assert "8 succeeded" in out
    assert "skipped" not in out
