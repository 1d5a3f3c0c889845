"""`kubesched simulate` shows preempted pods: `Preempted` once gone from the cluster,
`Terminating` while their grace period runs, with who preempted them and when, in the
table, in `--output json` and in `--explain`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubesched.cli._main import main

PREEMPTION = Path(__file__).resolve().parents[1] / "examples" / "preemption"
PREEMPTED = "preempted by default/urgent on node node-2 at 0s"


def _out(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["simulate", str(PREEMPTION), "--no-progress", *args]) == 0
    return capsys.readouterr().out


def _pods(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[dict[str, Any], Any]:
    data = json.loads(_out(capsys, "--output", "json", *args))
    return {p["name"]: p for p in data["pods"]}, data["summary"]


def test_json_lists_the_victim_after_it_is_gone(capsys: pytest.CaptureFixture[str]) -> None:
    pods, summary = _pods(capsys)

    assert pods["batch-3"] == {
        "namespace": "default",
        "name": "batch-3",
        "schedulerName": "default-scheduler",
        "node": None,
        "status": "Preempted",
        "message": PREEMPTED,
        "attempts": 0,
        "nominatedNode": None,
        "preemptedBy": "default/urgent",
        "preemptedAt": 0.0,
        "error": None,
        # bound by its manifest (spec.nodeName), not by the scheduler: no latency
        "createdAt": 0.0,
        "boundAt": 0.0,
        "finishedAt": None,
        "latencySeconds": None,
    }
    assert (pods["urgent"]["preemptedBy"], pods["urgent"]["preemptedAt"]) == (None, None)
    assert (summary["preempted"], summary["terminating"], summary["pods"]) == (1, 0, 6)
    assert summary["virtualSeconds"] == 30.0


def test_json_shows_a_victim_terminating_when_the_run_stops_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pods, summary = _pods(capsys, "--until", "10s")

    victim = pods["batch-3"]
    assert (victim["status"], victim["node"]) == ("Terminating", "node-2")
    assert victim["message"] == f"{PREEMPTED}; terminating until 30s"
    assert (victim["preemptedBy"], victim["preemptedAt"]) == ("default/urgent", 0.0)
    assert (pods["urgent"]["status"], pods["urgent"]["nominatedNode"]) == (
        "Unschedulable",
        "node-2",
    )
    assert (summary["preempted"], summary["terminating"]) == (0, 1)


@pytest.mark.parametrize(
    ("args", "row", "summary"),
    [
        ((), ("default/batch-3", "-", "Preempted", PREEMPTED), "1 preempted on 2 nodes"),
        (
            ("--until", "10s"),
            ("default/batch-3", "node-2", "Terminating", f"{PREEMPTED}; terminating until 30s"),
            "1 terminating on 2 nodes",
        ),
    ],
    ids=["preempted", "terminating"],
)
def test_table_row_and_summary(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    row: tuple[str, ...],
    summary: str,
) -> None:
    monkeypatch.setenv("COLUMNS", "250")  # one line per row
    out = _out(capsys, *args)

    line = next(line for line in out.splitlines() if "default/batch-3" in line)
    assert [cell.strip() for cell in line.strip("│ ").split("│")] == list(row)
    assert summary in out


def test_table_without_preemption_keeps_its_summary_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    assert main(["simulate", str(PREEMPTION.parent / "basic"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "preempted" not in out and "terminating" not in out


def test_explain_says_what_became_of_the_victim(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    out = _out(capsys, "--explain", "batch-3")
    assert f"default/batch-3 was {PREEMPTED}" in out
    # it was bound from the start: the scheduler never tried it
    assert "default/batch-3 was never attempted: nothing to explain" in out

    out = _out(capsys, "--explain", "default/batch-3", "--until", "10s")
    assert f"default/batch-3 is Terminating: {PREEMPTED}; terminating until 30s" in out
