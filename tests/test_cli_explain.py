"""`kubesched simulate --explain POD` on the basic example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesched.cli._main import main

EXAMPLE = str(Path(__file__).parent.parent / "examples" / "basic")


def test_explain_json_gives_each_filter_verdict_and_score(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", EXAMPLE, "--output", "json", "--explain", "web-2"]) == 0
    data = json.loads(capsys.readouterr().out)
    exp = data["explanations"]["default/web-2"]
    nodes = {n["node"]: n for n in exp["nodes"]}
    assert nodes["node-c"]["filters"]["NodeUnschedulable"] == (
        "UnschedulableAndUnresolvable: node(s) were unschedulable"
    )
    assert nodes["node-a"]["feasible"] and nodes["node-b"]["feasible"]
    # as examples/basic/README.md works out: Fit 43 + Balanced 81 vs 40 + 71, TaintToleration
    # 100 x 3 on both
    a, b = nodes["node-a"], nodes["node-b"]
    assert (a["weightedScores"]["NodeResourcesFit"], b["weightedScores"]["NodeResourcesFit"]) == (
        43,
        40,
    )
    assert (a["total"], b["total"]) == (424, 411)
    assert exp["outcome"] == "assumed on node-a"


def test_explain_table(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["simulate", EXAMPLE, "--no-progress", "--explain", "batch-big"]) == 0
    out = capsys.readouterr().out
    assert "Explanation for default/batch-big" in out
    # 6 CPUs on 4-CPU nodes: more than their whole allocatable (v1.34 fit.go)
    assert "NodeResourcesFit: UnschedulableAndUnresolvable: Insufficient cpu" in out
    assert "No node passed every filter" in out


def test_explaining_a_pod_never_attempted(capsys: pytest.CaptureFixture[str]) -> None:
    # `existing` is bound in the manifest: the scheduler never tries it
    assert main(["simulate", EXAMPLE, "--no-progress", "--explain", "existing"]) == 0
    assert "default/existing was never attempted" in capsys.readouterr().out


@pytest.mark.parametrize("output", ["table", "json"])
def test_explaining_a_pod_not_in_the_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], output: str
) -> None:
    code = main(["simulate", EXAMPLE, "--no-progress", "-o", output, "--explain", "web-4"])
    captured = capsys.readouterr()

    assert code == 2
    assert captured.out == ""
    assert captured.err == (
        'error: --explain: no pod "default/web-4" in the input; '
        "did you mean default/web-1, default/web-2, default/web-3?\n"
    )


def test_explaining_an_unknown_pod_with_nothing_close(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", EXAMPLE, "--no-progress", "--explain", "kube-system/zzz"]) == 2
    assert capsys.readouterr().err == 'error: --explain: no pod "kube-system/zzz" in the input\n'
