"""`examples/basic` does what its README promises, through the `kubesched` command.

The expected outcome is read from the README's table, so the README and this test cannot
drift apart: each pod's node, and the status and message of those left unplaced.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from example_tables import Expected, check_outcome, readme_outcome

from kubesched.cli._main import main

ROOT = Path(__file__).resolve().parents[1]
BASIC = ROOT / "examples" / "basic"


def _readme_outcome() -> dict[str, Expected]:
    return readme_outcome(BASIC)


def _simulate_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main(["simulate", str(BASIC), "--output", "json", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data: dict[str, Any] = json.loads(captured.out)
    return data


def test_readme_table_is_parsed() -> None:
    """Guard for the parser: every waiting pod of the README is in the table."""
    outcome = _readme_outcome()
    assert set(outcome) == {
        "critical",
        "web-1",
        "web-2",
        "web-3",
        "batch-big",
        "other-scheduler",
    }
    assert outcome["batch-big"].status == "Unschedulable"
    assert outcome["other-scheduler"].status == "Pending"


def test_basic_example_matches_readme(capsys: pytest.CaptureFixture[str]) -> None:
    data = _simulate_json(capsys)
    pods = {p["name"]: p for p in data["pods"]}

    check_outcome(pods, _readme_outcome())
    assert pods["batch-big"]["message"] == (
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. "
        "no new claims to deallocate, "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
    assert pods["other-scheduler"]["schedulerName"] == "my-other-scheduler"
    assert pods["other-scheduler"]["attempts"] == 0
    # the pod already running stays where it is and is never scheduled
    assert (pods["existing"]["node"], pods["existing"]["attempts"]) == ("node-a", 0)


def test_basic_example_summary_and_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    data = _simulate_json(capsys)

    assert data["summary"] == {
        "pods": 7,
        "bound": 5,
        "unschedulable": 1,
        "error": 0,
        "waiting": 0,
        "pending": 1,
        "preempted": 0,
        "terminating": 0,
        "nodes": 3,
        "virtualSeconds": 0.0,
        "seed": 0,
        # one attempt each for critical, web-1..3 and batch-big
        "attempts": 5,
    }
    requested = {n["name"]: (n["requested"]["cpu"], n["pods"]) for n in data["nodes"]}
    # node-a: existing (2) + web-2 (1); node-b: critical (1.5) + web-1 + web-3; node-c cordoned
    assert requested == {"node-a": (3000, 2), "node-b": (3500, 3), "node-c": (0, 0)}
    assert data["skipped"] == []


@pytest.mark.parametrize("seed", [0, 7])
def test_same_seed_gives_identical_json(capsys: pytest.CaptureFixture[str], seed: int) -> None:
    outputs = []
    for _ in range(2):
        assert main(["simulate", str(BASIC), "-o", "json", "--seed", str(seed)]) == 0
        outputs.append(capsys.readouterr().out)

    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["summary"]["seed"] == seed


def test_installed_console_script_runs_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    """The `kubesched` entry point works as installed, and agrees with the in-process run."""
    script = shutil.which("kubesched", path=str(Path(sys.executable).parent)) or shutil.which(
        "kubesched"
    )
    assert script is not None, "the kubesched console script is not installed"

    proc = subprocess.run(
        [script, "simulate", "examples/basic", "--output", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert proc.returncode == 0, proc.stderr
    from_script = json.loads(proc.stdout)
    in_process = _simulate_json(capsys)
    assert from_script["pods"] == in_process["pods"]
    assert from_script["summary"] == in_process["summary"]
