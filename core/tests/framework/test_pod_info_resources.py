"""What a pod adds to NodeInfo.requested and NodeInfo.non_zero_requested, from upstream
pkg/scheduler/framework/types_test.go (TestPodInfoCalculateResources, the cases without
DRA), with the PodLevelResources gate on and off."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, Pod
from kubesched.features import ENV_VAR
from kubesched.framework import NodeInfo, PodInfo, Resource
from kubesched.testing import make_pod

Mi = 1024 * 1024
CPU500M = {"cpu": "500m", "memory": "500Mi"}
CPU700M = {"cpu": "700m", "memory": "800Mi"}
POD_LEVEL_1200 = {"requests": {"cpu": "1200m", "memory": "1200Mi"}}


def _c(requests: dict[str, str] | None = None, *, sidecar: bool = False) -> dict[str, Any]:
    c: dict[str, Any] = {"resources": {"requests": requests or {}}}
    if sidecar:
        c["restartPolicy"] = "Always"
    return c


def _pod(
    containers: list[dict[str, Any]],
    inits: list[dict[str, Any]] | None = None,
    pod_resources: dict[str, dict[str, str]] | None = None,
) -> Pod:
    """Pod "p" with these containers (kubesched.testing's builder: none are added for it)."""
    pod = make_pod("p", namespace=None, uid="p").no_containers().spec(initContainers=inits or [])
    for c in containers:
        pod.container(**c)
    if pod_resources is not None:
        pod.spec(resources=pod_resources)
    return pod.obj()


# (name, pod, (milli_cpu, memory, ephemeral_storage), non0_cpu, non0_mem)
CASES: list[tuple[str, Pod, tuple[int, int, int], int, int]] = [
    (
        "requestless container",
        _pod([_c()]),
        (0, 0, 0),
        DEFAULT_MILLI_CPU_REQUEST,
        DEFAULT_MEMORY_REQUEST,
    ),
    ("1X container with requests", _pod([_c(CPU500M)]), (500, 500 * Mi, 0), 500, 500 * Mi),
    (
        "2X container with requests",
        _pod([_c(CPU500M), _c(CPU700M)]),
        (1200, 1300 * Mi, 0),
        1200,
        1300 * Mi,
    ),
    (
        "1X container and 1X init container with pod-level requests",
        _pod([_c(CPU500M)], [_c(CPU500M)], POD_LEVEL_1200),
        (1200, 1200 * Mi, 0),
        1200,
        1200 * Mi,
    ),
    (
        "1X container and 1X sidecar container with pod-level requests",
        _pod([_c(CPU500M)], [_c(CPU500M, sidecar=True)], POD_LEVEL_1200),
        (1200, 1200 * Mi, 0),
        1200,
        1200 * Mi,
    ),
    (
        "1X container with pod-level memory requests",
        _pod([_c()], [_c()], {"requests": {"memory": "1200Mi"}}),
        (0, 1200 * Mi, 0),
        DEFAULT_MILLI_CPU_REQUEST,
        1200 * Mi,
    ),
    (
        "1X container with pod-level cpu requests",
        _pod([_c()], [_c()], {"requests": {"cpu": "500m"}}),
        (500, 0, 0),
        500,
        DEFAULT_MEMORY_REQUEST,
    ),
    (
        "1X container unsupported resources and pod-level supported resources",
        _pod(
            [_c({"ephemeral-storage": "800Mi"})],
            [_c({"ephemeral-storage": "500Mi"})],
            {"requests": {"cpu": "500m"}},
        ),
        (500, 0, 800 * Mi),
        500,
        DEFAULT_MEMORY_REQUEST,
    ),
    (
        # getNonMissingContainerRequests: with pod-level requests a default stands in only
        # for a resource nobody requests; the scoring form would count 1100m here
        "a container's cpu request keeps the default away from the others",
        _pod([_c({"cpu": "1"}), _c()], None, {"requests": {"memory": "1Gi"}}),
        (1000, 1024 * Mi, 0),
        1000,
        1024 * Mi,
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "requested", "non0_cpu", "non0_mem"), CASES, ids=[c[0] for c in CASES]
)
def test_pod_info_calculate_resources(
    name: str, pod: Pod, requested: tuple[int, int, int], non0_cpu: int, non0_mem: int
) -> None:
    info = PodInfo(pod)
    cpu, memory, ephemeral = requested
    assert info.requests == Resource(milli_cpu=cpu, memory=memory, ephemeral_storage=ephemeral)
    assert (info.non_zero_requests.milli_cpu, info.non_zero_requests.memory) == (
        non0_cpu,
        non0_mem,
    )


def test_node_info_counts_pod_level_requests_and_takes_them_back() -> None:
    node_info = NodeInfo()
    pod = _pod([_c(CPU500M)], [_c(CPU500M, sidecar=True)], POD_LEVEL_1200)
    node_info.add_pod(pod)
    assert (node_info.requested.milli_cpu, node_info.requested.memory) == (1200, 1200 * Mi)
    assert node_info.non_zero_requested.milli_cpu == 1200
    node_info.remove_pod(pod)
    assert (node_info.requested.milli_cpu, node_info.requested.memory) == (0, 0)
    assert (node_info.non_zero_requested.milli_cpu, node_info.non_zero_requested.memory) == (0, 0)


def test_with_the_gate_off_pod_level_requests_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "PodLevelResources=false")
    info = PodInfo(_pod([_c(), _c()], None, {"requests": {"cpu": "2", "memory": "1Gi"}}))
    assert info.requests == Resource()
    assert (info.non_zero_requests.milli_cpu, info.non_zero_requests.memory) == (
        2 * DEFAULT_MILLI_CPU_REQUEST,
        2 * DEFAULT_MEMORY_REQUEST,
    )
