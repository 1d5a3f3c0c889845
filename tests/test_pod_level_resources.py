"""End to end through `kubesched simulate`: pod-level resources (KEP-2837, PodLevelResources
beta and on in v1.34) are what a pod takes from its node, and a pod held by scheduling gates
reports the condition the API server gave it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubesched.cli._main import main
from kubesched.features import ENV_VAR

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
"""

# big-1 asks 1.5 CPU at the pod level, big-2 only limits the pod to 1.5 CPU (the API server
# defaults the pod-level request from that limit); neither container requests anything.
POD_LEVEL_PODS = """
apiVersion: v1
kind: Pod
metadata: {name: big-1}
spec:
  resources:
    requests: {cpu: 1500m, memory: 1Gi}
  containers: [{name: app, image: app}]
---
apiVersion: v1
kind: Pod
metadata: {name: big-2}
spec:
  resources:
    limits: {cpu: 1500m}
  containers: [{name: app, image: app}]
"""

GATED_PODS = """
apiVersion: v1
kind: Pod
metadata: {name: gated}
spec:
  schedulingGates: [{name: example.com/wait}]
  containers: [{name: app, image: app}]
---
apiVersion: v1
kind: Pod
metadata: {name: free}
spec:
  containers: [{name: app, image: app}]
"""


def _simulate(capsys: pytest.CaptureFixture[str], tmp_path: Path, *docs: str) -> dict[str, Any]:
    manifest = tmp_path / "cluster.yaml"
    manifest.write_text("---".join(docs))
    code = main(["simulate", str(manifest), "--output", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    data: dict[str, Any] = json.loads(out.out)
    return data


def _pods(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in data["pods"]}


def test_pod_level_requests_do_not_over_commit_a_node(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = _simulate(capsys, tmp_path, NODE, POD_LEVEL_PODS)
    pods = _pods(data)

    assert (pods["big-1"]["status"], pods["big-1"]["node"]) == ("Bound", "n1")
    assert pods["big-2"]["status"] == "Unschedulable"
    assert pods["big-2"]["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: "
        "1 No preemption victims found for incoming pod."
    )
    [node] = data["nodes"]
    assert node["requested"]["cpu"] == 1500
    assert node["requested"]["memory"] == 1024**3


def test_with_the_gate_off_pod_level_resources_count_for_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, "PodLevelResources=false")
    data = _simulate(capsys, tmp_path, NODE, POD_LEVEL_PODS)

    assert {p["status"] for p in data["pods"]} == {"Bound"}
    [node] = data["nodes"]
    assert (node["requested"]["cpu"], node["requested"]["memory"]) == (0, 0)


def test_a_gated_pod_reports_the_api_servers_condition(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = _simulate(capsys, tmp_path, NODE, GATED_PODS)
    pods = _pods(data)

    assert pods["free"]["status"] == "Bound"
    gated = pods["gated"]
    assert (gated["status"], gated["node"], gated["attempts"]) == ("Pending", None, 0)
    assert gated["message"] == "Scheduling is blocked due to non-empty scheduling gates"
    # the SchedulingGates PreEnqueue message is the scheduler's own business
    assert "waiting for scheduling gates" not in json.dumps(data)
