"""Making a new Node schedulable the way a cluster does, for tests without a kubelet.

Every real API server taints a new Node `node.kubernetes.io/not-ready:NoSchedule` (the
TaintNodesByCondition admission plugin, on by default). On a cluster the Node's kubelet then
posts a `Ready=True` condition, and the node lifecycle controller of kube-controller-manager
makes the Node's condition taints match its conditions, which removes `not-ready`. envtest
and the fake API server run neither, so a test that wants a Node pods can be bound to does
both through the API with `make_node_ready`: the envtest harness and the fake-server tests
share it, so a Node comes about in the same writes, and the same watch events, in both.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

__all__ = ["CONDITION_TAINTS", "kubelet_ready_status", "lifecycle_taint_changes", "make_node_ready"]

Raw = dict[str, Any]
Patch = Callable[[str, Raw], Raw]
"""(path, strategic merge patch) -> the object the API server stored."""

# pkg/controller/nodelifecycle/node_lifecycle_controller.go nodeConditionToTaintKeyStatusMap
CONDITION_TAINTS: Final = {
    ("Ready", "False"): "node.kubernetes.io/not-ready",
    ("Ready", "Unknown"): "node.kubernetes.io/unreachable",
    ("MemoryPressure", "True"): "node.kubernetes.io/memory-pressure",
    ("DiskPressure", "True"): "node.kubernetes.io/disk-pressure",
    ("NetworkUnavailable", "True"): "node.kubernetes.io/network-unavailable",
    ("PIDPressure", "True"): "node.kubernetes.io/pid-pressure",
}
UNSCHEDULABLE_TAINT: Final = "node.kubernetes.io/unschedulable"
_MANAGED: Final = {*CONDITION_TAINTS.values(), UNSCHEDULABLE_TAINT}


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def kubelet_ready_status(now: str) -> Raw:
    """The `nodes/status` patch of a kubelet whose node is ready (pkg/kubelet/nodestatus
    ReadyCondition)."""
    ready = {
        "type": "Ready",
        "status": "True",
        "reason": "KubeletReady",
        "message": "kubelet is posting ready status",
        "lastHeartbeatTime": now,
        "lastTransitionTime": now,
    }
    return {"status": {"conditions": [ready]}}


def lifecycle_taint_changes(node: Raw) -> tuple[list[str], list[str]]:
    """The taint keys the node lifecycle controller adds and removes (doNoScheduleTaintingPass):
    NoSchedule taints for the node's conditions, and `unschedulable` for `spec.unschedulable`,
    against the node's NoSchedule taints with those keys."""
    status, spec = node.get("status") or {}, node.get("spec") or {}
    wanted = [
        CONDITION_TAINTS[(c.get("type"), c.get("status"))]
        for c in status.get("conditions") or []
        if (c.get("type"), c.get("status")) in CONDITION_TAINTS
    ]
    if spec.get("unschedulable"):
        wanted.append(UNSCHEDULABLE_TAINT)
    present = [
        t["key"]
        for t in spec.get("taints") or []
        if t.get("effect") == "NoSchedule" and t.get("key") in _MANAGED
    ]
    return [k for k in wanted if k not in present], [k for k in present if k not in wanted]


def make_node_ready(patch: Patch, name: str) -> list[Raw]:
    """Post `Ready=True` to the Node's status as its kubelet would, then change its taints as
    the node lifecycle controller would (SwapNodeControllerTaint: taints to add in one patch,
    taints to remove in another, each with the resourceVersion it was computed from).

    Returns the objects written, in order: each is one MODIFIED watch event."""
    path = f"/api/v1/nodes/{name}"
    written = [patch(f"{path}/status", kubelet_ready_status(_now()))]
    add, remove = lifecycle_taint_changes(written[-1])
    for keys, adding in ((add, True), (remove, False)):
        if not keys:
            continue
        node = written[-1]
        taints = [
            t
            for t in node["spec"].get("taints") or []
            if adding or not (t["key"] in keys and t.get("effect") == "NoSchedule")
        ]
        if adding:
            taints += [{"key": k, "effect": "NoSchedule", "timeAdded": _now()} for k in keys]
        body = {
            "metadata": {"resourceVersion": node["metadata"]["resourceVersion"]},
            "spec": {"taints": taints or None},
        }
        written.append(patch(path, body))
    return written
