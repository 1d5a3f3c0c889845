"""NodeResourcesFit with pod-level resources: the pod-level cases of upstream
noderesources/fit_test.go TestEnoughRequests (podLevelResourcesEnabled), and the scoring
requests of resource_allocation.go calculatePodResourceRequest."""

from __future__ import annotations

import pytest
from builtin_helpers import PodBuilder
from fit_helpers import fit_plugin
from test_fit import ENOUGH_NODE, HUGEPAGE_A, _ir, _node, _status, pod, res

from kubesched.api import Pod, ResourceRequirements
from kubesched.features import ENV_VAR
from kubesched.framework import CycleState, PodInfo
from kubesched_builtin.balancedallocation.plugin import pod_request_list
from kubesched_builtin.noderesources import InsufficientResource, fits_request
from kubesched_builtin.noderesources.resource_allocation import pod_resource_request_list


def with_pod_level(builder: PodBuilder, **requests: str) -> Pod:
    """upstream newPodLevelResourcesPod."""
    the_pod = builder.obj()
    the_pod.spec.resources = ResourceRequirements.model_validate({"requests": requests})
    return the_pod


POD_LEVEL_HP = {"cpu": "3m", "memory": "2", HUGEPAGE_A: "5"}

CASES: list[tuple[str, Pod, dict[str, str], list[InsufficientResource]]] = [
    (
        "both pod-level and container-level resources fit",
        with_pod_level(pod(res(1, 1)), cpu="1m", memory="2"),
        res(5, 5),
        [],
    ),
    (
        "pod-level cpu resource not fit",
        with_pod_level(pod(res(1, 1)), cpu="7m", memory="2"),
        res(5, 5),
        [_ir("cpu", 7, 5, 10)],
    ),
    (
        "pod-level memory resource not fit",
        with_pod_level(pod(res(1, 1)), cpu="3m", memory="2"),
        res(5, 19),
        [_ir("memory", 2, 19, 20)],
    ),
    (
        "pod-level hugepages resource fit",
        with_pod_level(pod(res()), **POD_LEVEL_HP),
        res(),
        [],
    ),
    (
        "both pod-level and container-level hugepages resource fit",
        with_pod_level(pod(res(1, 1) | {HUGEPAGE_A: "3"}), **POD_LEVEL_HP),
        res(),
        [],
    ),
    (
        "pod-level hugepages resource not fit",
        with_pod_level(pod(res()), cpu="3m", memory="2", **{HUGEPAGE_A: "10"}),
        res(),
        # 10 is more than the node's whole allocatable (5): unresolvable (kubernetes#131345)
        [_ir(HUGEPAGE_A, 10, 0, 5, unresolvable=True)],
    ),
    (
        "one pod-level cpu resource fits and all init and non-init containers resources fit",
        with_pod_level(pod(res(1, 1), init=(res(1, 1),)), cpu="3m", memory="2"),
        res(5, 19),
        [_ir("memory", 2, 19, 20)],
    ),
]


@pytest.mark.parametrize(("name", "the_pod", "existing", "want"), CASES, ids=[c[0] for c in CASES])
def test_enough_requests_with_pod_level_resources(
    name: str, the_pod: Pod, existing: dict[str, str], want: list[InsufficientResource]
) -> None:
    plugin = fit_plugin()
    info = _node(ENOUGH_NODE, existing)
    state = CycleState()
    result, status = plugin.pre_filter(state, the_pod, [info])
    assert result is None and status is None
    assert plugin.filter(state, the_pod, info) == _status(want)
    assert fits_request(PodInfo(the_pod).requests, info) == want


def test_with_the_gate_off_only_containers_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "PodLevelResources=false")
    the_pod = with_pod_level(pod(res(1, 1)), cpu="7m", memory="2")
    info = _node(ENOUGH_NODE, res(5, 5))
    state = CycleState()
    plugin = fit_plugin()
    plugin.pre_filter(state, the_pod, [info])
    assert plugin.filter(state, the_pod, info) is None


def test_scoring_requests_take_pod_level_values(monkeypatch: pytest.MonkeyPatch) -> None:
    # two containers without requests, 3 CPU and 1Gi at the pod level
    the_pod = with_pod_level(pod({}, {}), cpu="3", memory="1Gi")
    resources = ["cpu", "memory"]
    assert pod_resource_request_list(the_pod, resources) == [3000, 1024**3]
    assert pod_request_list(the_pod, resources) == [3000, 1024**3]
    monkeypatch.setenv(ENV_VAR, "PodLevelResources=false")
    # the non-zero defaults per container (LeastAllocated), the bare requests (Balanced)
    assert pod_resource_request_list(the_pod, resources) == [200, 400 * 1024**2]
    assert pod_request_list(the_pod, resources) == [0, 0]
