"""What the API server does to a pod on create besides priority: pod-level resources
defaulted or dropped by the PodLevelResources gate (pkg/apis/core/v1/defaults.go,
pkg/api/pod/util.go dropDisabledPodLevelResources) and the SchedulingGated condition
(pkg/registry/core/pod/strategy.go applySchedulingGatedCondition)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Pod, PodCondition, ResourceRequirements
from kubesched.clock import VirtualClock
from kubesched.cluster.memory import MemoryCluster
from kubesched.features import ENV_VAR

APP = {"name": "app", "image": "app"}


def _create(cluster: MemoryCluster, spec: dict[str, Any], **status: Any) -> Pod:
    spec = {"containers": [APP], **spec}
    pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": spec, "status": status})
    [stored] = cluster.create_many([pod])
    assert isinstance(stored, Pod)
    return stored


def test_a_gated_pod_gets_the_api_servers_condition(
    cluster: MemoryCluster, clock: VirtualClock
) -> None:
    clock.advance(42)
    pod = _create(cluster, {"schedulingGates": [{"name": "example.com/wait"}]})
    assert pod.status.conditions == [
        PodCondition(
            type="PodScheduled",
            status="False",
            reason="SchedulingGated",
            message="Scheduling is blocked due to non-empty scheduling gates",
            last_transition_time=clock.wall_time(),
        )
    ]


def test_a_pod_without_gates_gets_no_condition(cluster: MemoryCluster) -> None:
    assert _create(cluster, {}).status.conditions == []


def test_a_gated_pod_keeps_a_pod_scheduled_condition_it_has(cluster: MemoryCluster) -> None:
    own = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "x"}
    pod = _create(cluster, {"schedulingGates": [{"name": "g"}]}, conditions=[own])
    assert [(c.reason, c.message) for c in pod.status.conditions] == [("Unschedulable", "x")]


def test_pod_level_requests_are_defaulted_on_create(cluster: MemoryCluster) -> None:
    pod = _create(
        cluster,
        {
            "resources": {"limits": {"cpu": "2", "memory": "1Gi"}},
            "containers": [{**APP, "resources": {"requests": {"cpu": "500m"}}}],
        },
    )
    assert pod.spec.resources == ResourceRequirements.model_validate(
        {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "1Gi"}}
    )


def test_with_the_gate_off_pod_level_resources_are_dropped(
    cluster: MemoryCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV_VAR, "PodLevelResources=false")
    pod = _create(cluster, {"resources": {"requests": {"cpu": "2"}}})
    assert pod.spec.resources is None
