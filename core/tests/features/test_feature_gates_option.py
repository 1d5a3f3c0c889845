"""`--feature-gates` on `kubesched simulate` and `kubesched run`: it sets the gate table,
wins over $KUBESCHED_FEATURE_GATES, and a bad list is one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesched.cli._main import main
from kubesched.features import ENV_VAR, feature_enabled

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]
"""


@pytest.fixture
def cluster(tmp_path: Path) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER)
    return str(path)


def test_simulate_sets_the_gates(cluster: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", cluster, "-o", "json", "--no-progress"]
    code = main([*argv, "--feature-gates", "SchedulerPopFromBackoffQ=false"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["pods"][0]["status"] == "Bound"
    assert feature_enabled("SchedulerPopFromBackoffQ") is False
    assert main(argv) == 0  # without the option, the defaults again
    assert feature_enabled("SchedulerPopFromBackoffQ") is True


def test_the_flag_wins_over_the_environment(
    cluster: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV_VAR, "SchedulerPopFromBackoffQ=false,StorageCapacityScoring=true")
    argv = ["simulate", cluster, "-o", "json", "--no-progress"]
    assert main([*argv, "--feature-gates", "SchedulerPopFromBackoffQ=true"]) == 0
    assert feature_enabled("SchedulerPopFromBackoffQ") is True
    assert feature_enabled("StorageCapacityScoring") is True


@pytest.mark.parametrize("command", ["simulate", "run"])
@pytest.mark.parametrize(
    ("gates", "message"),
    [
        ("Foo=true", "unrecognized feature gate: Foo"),
        (
            "SchedulerPopFromBackoffQ=nope",
            "invalid value of SchedulerPopFromBackoffQ=nope, err: strconv.ParseBool: parsing "
            '"nope": invalid syntax',
        ),
        (
            "SchedulerQueueingHints=false",
            "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true",
        ),
    ],
)
def test_a_bad_flag_is_one_line_and_exit_2(
    command: str, gates: str, message: str, cluster: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [command, cluster] if command == "simulate" else [command]
    assert main([*argv, "--feature-gates", gates]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"error: --feature-gates: {message}\n"
    assert captured.out == ""


def test_a_bad_environment_is_reported_before_any_work(
    cluster: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV_VAR, "NotAGate=true")
    assert main(["simulate", cluster]) == 2
    assert capsys.readouterr().err == f"error: {ENV_VAR}: unrecognized feature gate: NotAGate\n"
