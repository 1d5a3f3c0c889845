"""NodeResourcesFit PreFilter/Filter and fitsRequest, from upstream noderesources/fit_test.go
(TestEnoughRequests, TestPreFilterDisabled, TestNotEnoughRequests, TestStorageRequests,
TestIsFit)."""

from __future__ import annotations

from typing import Any

import pytest
from builtin_helpers import PodBuilder, make_node, make_pod, node_info
from fit_helpers import fit_plugin

from kubesched.api import Pod
from kubesched.framework import Code, CycleState, NodeInfo, PodInfo, Snapshot, Status
from kubesched_builtin.noderesources import (
    PRE_FILTER_STATE_KEY,
    InsufficientResource,
    fits,
    fits_request,
)

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGEPAGE_A = "hugepages-2Mi"


def res(m: int = 0, mem: int = 0, eph: int = 0, **scalar: int) -> dict[str, str]:
    """Requests as upstream's newResourcePod writes them: millicores, bytes, scalars."""
    return {"cpu": f"{m}m", "memory": str(mem), "ephemeral-storage": str(eph)} | {
        k: str(v) for k, v in scalar.items()
    }


def pod(*containers: dict[str, str], init: tuple[dict[str, str], ...] = ()) -> PodBuilder:
    builder = make_pod("p")
    for c in containers:
        builder.req(c)
    for c in init:
        builder.init_req(c)
    return builder


def _node(allocatable: dict[str, str], *existing: dict[str, str]) -> NodeInfo:
    pods = [make_pod(f"e{i}").req(r) for i, r in enumerate(existing)]
    return node_info(make_node("n").alloc(allocatable), *pods)


def _ir(
    name: str, requested: int, used: int, capacity: int, unresolvable: bool = False
) -> InsufficientResource:
    return InsufficientResource(
        name, f"Insufficient {name}", requested, used, capacity, unresolvable
    )


def _status(want: list[InsufficientResource]) -> Status | None:
    """Upstream's wantStatus: every reason; UnschedulableAndUnresolvable when a request
    exceeds the node's whole allocatable (v1.34, kubernetes/kubernetes#131345)."""
    if not want:
        return None
    if any(r.unresolvable for r in want):
        return Status.unresolvable(*(r.reason for r in want))
    return Status.unschedulable(*(r.reason for r in want))


# node allocatable of TestEnoughRequests: makeAllocatableResources(10, 20, 32, 5, 20, 5)
ENOUGH_NODE = {
    "cpu": "10m",
    "memory": "20",
    "pods": "32",
    EXT_A: "5",
    "ephemeral-storage": "20",
    HUGEPAGE_A: "5",
}

ENOUGH_CASES: list[
    tuple[str, PodBuilder, dict[str, str], dict[str, Any], list[InsufficientResource]]
] = [
    ("no resources requested always fits", make_pod("p"), res(10, 20), {}, []),
    (
        "too many resources fails",
        pod(res(1, 1)),
        res(10, 20),
        {},
        [_ir("cpu", 1, 10, 10), _ir("memory", 1, 20, 20)],
    ),
    (
        "too many resources fails due to init container cpu",
        pod(res(1, 1), init=(res(3, 1),)),
        res(8, 19),
        {},
        [_ir("cpu", 3, 8, 10)],
    ),
    (
        "too many resources fails due to highest init container cpu",
        pod(res(1, 1), init=(res(3, 1), res(2, 1))),
        res(8, 19),
        {},
        [_ir("cpu", 3, 8, 10)],
    ),
    (
        "too many resources fails due to init container memory",
        pod(res(1, 1), init=(res(1, 3),)),
        res(9, 19),
        {},
        [_ir("memory", 3, 19, 20)],
    ),
    (
        "too many resources fails due to highest init container memory",
        pod(res(1, 1), init=(res(1, 3), res(1, 2))),
        res(9, 19),
        {},
        [_ir("memory", 3, 19, 20)],
    ),
    (
        "init container fits because it's the max, not sum, of containers and init containers",
        pod(res(1, 1), init=(res(1, 1),)),
        res(9, 19),
        {},
        [],
    ),
    (
        "multiple init containers fit because it's the max, not sum",
        pod(res(1, 1), init=(res(1, 1), res(1, 1))),
        res(9, 19),
        {},
        [],
    ),
    ("both resources fit", pod(res(1, 1)), res(5, 5), {}, []),
    ("one resource memory fits", pod(res(2, 1)), res(9, 5), {}, [_ir("cpu", 2, 9, 10)]),
    ("one resource cpu fits", pod(res(1, 2)), res(5, 19), {}, [_ir("memory", 2, 19, 20)]),
    ("equal edge case", pod(res(5, 1)), res(5, 19), {}, []),
    ("equal edge case for init container", pod(res(4, 1), init=(res(5, 1),)), res(5, 19), {}, []),
    ("extended resource fits", pod({EXT_A: "1"}), res(), {}, []),
    ("extended resource fits for init container", pod(res(), init=({EXT_A: "1"},)), res(), {}, []),
    (
        "extended resource capacity enforced",
        pod(res(1, 1) | {EXT_A: "10"}),
        res() | {EXT_A: "0"},
        {},
        [_ir(EXT_A, 10, 0, 5, unresolvable=True)],
    ),
    (
        "extended resource capacity enforced for init container",
        pod(res(), init=(res(1, 1) | {EXT_A: "10"},)),
        res() | {EXT_A: "0"},
        {},
        [_ir(EXT_A, 10, 0, 5, unresolvable=True)],
    ),
    (
        "extended resource allocatable enforced",
        pod(res(1, 1) | {EXT_A: "1"}),
        res() | {EXT_A: "5"},
        {},
        [_ir(EXT_A, 1, 5, 5)],
    ),
    (
        "extended resource allocatable enforced for init container",
        pod(res(), init=(res(1, 1) | {EXT_A: "1"},)),
        res() | {EXT_A: "5"},
        {},
        [_ir(EXT_A, 1, 5, 5)],
    ),
    (
        "extended resource allocatable enforced for multiple containers",
        pod(res(1, 1) | {EXT_A: "3"}, res(1, 1) | {EXT_A: "3"}),
        res() | {EXT_A: "2"},
        {},
        [_ir(EXT_A, 6, 2, 5, unresolvable=True)],
    ),
    (
        "extended resource allocatable admits multiple init containers",
        pod(res(), init=(res(1, 1) | {EXT_A: "3"}, res(1, 1) | {EXT_A: "3"})),
        res() | {EXT_A: "2"},
        {},
        [],
    ),
    (
        "extended resource allocatable enforced for multiple init containers",
        pod(res(), init=(res(1, 1) | {EXT_A: "6"}, res(1, 1) | {EXT_A: "3"})),
        res() | {EXT_A: "2"},
        {},
        [_ir(EXT_A, 6, 2, 5, unresolvable=True)],
    ),
    (
        "extended resource allocatable enforced for unknown resource",
        pod(res(1, 1) | {EXT_B: "1"}),
        res(),
        {},
        [_ir(EXT_B, 1, 0, 0, unresolvable=True)],
    ),
    (
        "extended resource allocatable enforced for unknown resource for init container",
        pod(res(), init=(res(1, 1) | {EXT_B: "1"},)),
        res(),
        {},
        [_ir(EXT_B, 1, 0, 0, unresolvable=True)],
    ),
    (
        "kubernetes.io resource capacity enforced",
        pod(res(1, 1) | {K8S_IO_A: "10"}),
        res(),
        {},
        [_ir(K8S_IO_A, 10, 0, 0, unresolvable=True)],
    ),
    (
        "kubernetes.io resource capacity enforced for init container",
        pod(res(), init=(res(1, 1) | {K8S_IO_B: "10"},)),
        res(),
        {},
        [_ir(K8S_IO_B, 10, 0, 0, unresolvable=True)],
    ),
    (
        "hugepages resource capacity enforced",
        pod(res(1, 1) | {HUGEPAGE_A: "10"}),
        res() | {HUGEPAGE_A: "0"},
        {},
        [_ir(HUGEPAGE_A, 10, 0, 5, unresolvable=True)],
    ),
    (
        "hugepages resource capacity enforced for init container",
        pod(res(), init=(res(1, 1) | {HUGEPAGE_A: "10"},)),
        res() | {HUGEPAGE_A: "0"},
        {},
        [_ir(HUGEPAGE_A, 10, 0, 5, unresolvable=True)],
    ),
    (
        "hugepages resource allocatable enforced for multiple containers",
        pod(res(1, 1) | {HUGEPAGE_A: "3"}, res(1, 1) | {HUGEPAGE_A: "3"}),
        res() | {HUGEPAGE_A: "2"},
        {},
        [_ir(HUGEPAGE_A, 6, 2, 5, unresolvable=True)],
    ),
    (
        "skip checking ignored extended resource",
        pod(res(1, 1) | {EXT_B: "1"}),
        res(),
        {"ignoredResources": [EXT_B]},
        [],
    ),
    (
        "resources + pod overhead fits",
        pod(res(1, 1)).overhead(cpu="3m", memory="13"),
        res(5, 5),
        {},
        [],
    ),
    (
        "requests + overhead does not fit for memory",
        pod(res(1, 1)).overhead(cpu="1m", memory="15"),
        res(5, 5),
        {},
        [_ir("memory", 16, 5, 20)],
    ),
    (
        "skip checking ignored extended resource via resource groups",
        pod(res(1, 1) | {EXT_B: "1", K8S_IO_A: "1"}),
        res(),
        {"ignoredResourceGroups": ["example.com"]},
        [_ir(K8S_IO_A, 1, 0, 0, unresolvable=True)],
    ),
    (
        "kubernetes.io resources cannot be ignored",
        pod(res(1, 1) | {K8S_IO_A: "1"}),
        res(),
        {"ignoredResources": [K8S_IO_A]},
        [_ir(K8S_IO_A, 1, 0, 0, unresolvable=True)],
    ),
    (
        "skip checking extended resource request with quantity zero",
        pod(res(1, 1) | {EXT_A: "0"}),
        res() | {EXT_A: "6"},
        {},
        [],
    ),
    (
        "skip checking resource request with quantity zero",
        pod({EXT_A: "1", "cpu": "0", "memory": "0"}),
        res(20, 30) | {EXT_A: "1"},
        {},
        [],
    ),
]


@pytest.mark.parametrize(
    ("name", "pod_builder", "existing", "args", "want"),
    ENOUGH_CASES,
    ids=[c[0] for c in ENOUGH_CASES],
)
def test_enough_requests(
    name: str,
    pod_builder: PodBuilder,
    existing: dict[str, str],
    args: dict[str, Any],
    want: list[InsufficientResource],
) -> None:
    plugin = fit_plugin(args)
    the_pod = pod_builder.obj()
    info = _node(ENOUGH_NODE, existing)
    state = CycleState()
    result, status = plugin.pre_filter(state, the_pod, [info])
    assert result is None and status is None

    got = plugin.filter(state, the_pod, info)
    assert got == _status(want)
    assert plugin.filter_vectorized(state, the_pod, Snapshot([info]).columns).tolist() == [not want]

    short = fits_request(
        PodInfo(the_pod).requests,
        info,
        frozenset(args.get("ignoredResources", [])),
        frozenset(args.get("ignoredResourceGroups", [])),
    )
    assert short == want


def test_filter_without_pre_filter_is_an_error() -> None:
    status = fit_plugin().filter(CycleState(), make_pod().obj(), node_info(make_node("n")))
    assert status is not None and status.code is Code.Error
    assert status.message() == f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found'
    assert PRE_FILTER_STATE_KEY == "PreFilterNodeResourcesFit"


NOT_ENOUGH_CASES = [
    (
        "even without specified resources, fails when there's no space for another pod",
        make_pod("p"),
        res(10, 20),
    ),
    (
        "even if both resources fit, fails when there's no space for another pod",
        pod(res(1, 1)),
        res(5, 5),
    ),
    (
        "even for equal edge case, fails when there's no space for another pod",
        pod(res(5, 1)),
        res(5, 19),
    ),
    (
        "even for equal edge case, fails when there's no space for another pod (init container)",
        pod(res(5, 1), init=(res(5, 1),)),
        res(5, 19),
    ),
]


@pytest.mark.parametrize(
    ("name", "pod_builder", "existing"), NOT_ENOUGH_CASES, ids=[c[0] for c in NOT_ENOUGH_CASES]
)
def test_not_enough_requests(name: str, pod_builder: PodBuilder, existing: dict[str, str]) -> None:
    plugin = fit_plugin()
    the_pod = pod_builder.obj()
    info = _node({"cpu": "10m", "memory": "20", "pods": "1"}, existing)
    state = CycleState()
    plugin.pre_filter(state, the_pod, [info])
    assert plugin.filter(state, the_pod, info) == Status.unschedulable("Too many pods")


def test_too_many_pods_comes_first_and_all_reasons_are_kept() -> None:
    plugin = fit_plugin()
    the_pod = pod(res(5, 5, 5) | {EXT_A: "1"}).obj()
    info = _node({"cpu": "4m", "memory": "4", "pods": "1", "ephemeral-storage": "4"}, res())
    state = CycleState()
    plugin.pre_filter(state, the_pod, [info])
    status = plugin.filter(state, the_pod, info)
    # every request exceeds the node's whole allocatable
    assert status is not None and status.code is Code.UnschedulableAndUnresolvable
    assert status.reasons == (
        "Too many pods",
        "Insufficient cpu",
        "Insufficient memory",
        "Insufficient ephemeral-storage",
        f"Insufficient {EXT_A}",
    )


STORAGE_CASES = [
    ("empty storage requested, and pod fits", pod(res(1, 1)), res(2, 10), None),
    (
        "storage ephemeral local storage request exceeds allocatable",
        pod(res(eph=25)),
        res(2, 2),
        Status.unresolvable("Insufficient ephemeral-storage"),
    ),
    ("ephemeral local storage is sufficient", pod(res(eph=5)), res(2, 2, 10), None),
    ("pod fits", pod(res(eph=10)), res(2, 2), None),
]


@pytest.mark.parametrize(
    ("name", "pod_builder", "existing", "want"), STORAGE_CASES, ids=[c[0] for c in STORAGE_CASES]
)
def test_storage_requests(
    name: str, pod_builder: PodBuilder, existing: dict[str, str], want: Status | None
) -> None:
    plugin = fit_plugin()
    the_pod = pod_builder.obj()
    info = _node(ENOUGH_NODE, existing)
    state = CycleState()
    plugin.pre_filter(state, the_pod, [info])
    assert plugin.filter(state, the_pod, info) == want


@pytest.mark.parametrize(
    ("name", "the_pod", "allocatable", "expected"),
    [
        ("insufficient resource", make_pod().req(cpu="2").obj(), {"cpu": "1"}, False),
        ("sufficient resource", make_pod().req(cpu="1").obj(), {"cpu": "2"}, True),
    ],
)
def test_fits(name: str, the_pod: Pod, allocatable: dict[str, str], expected: bool) -> None:
    assert (not fits(the_pod, node_info(make_node("n").alloc(allocatable)))) is expected


UNRESOLVABLE_CASES = [
    # (name, pod requests, node allocatable, existing pod's requests, want)
    (
        "more than what is left is resolvable: preemption may free it",
        {"cpu": "2"},
        {"cpu": "3", "pods": "10"},
        {"cpu": "2"},
        Status.unschedulable("Insufficient cpu"),
    ),
    (
        "more cpu than the node's whole allocatable",
        {"cpu": "8"},
        {"cpu": "1", "pods": "10"},
        {},
        Status.unresolvable("Insufficient cpu"),
    ),
    (
        "more memory than the node's whole allocatable",
        {"memory": "2Gi"},
        {"memory": "1Gi", "pods": "10"},
        {},
        Status.unresolvable("Insufficient memory"),
    ),
    (
        "one unresolvable shortage makes the whole status unresolvable",
        {"cpu": "2", "memory": "2Gi"},
        {"cpu": "3", "memory": "1Gi", "pods": "10"},
        {"cpu": "2"},
        Status.unresolvable("Insufficient cpu", "Insufficient memory"),
    ),
    (
        "an extended resource the node does not have",
        {EXT_A: "1"},
        {"pods": "10"},
        {},
        Status.unresolvable(f"Insufficient {EXT_A}"),
    ),
    (
        "too many pods stays resolvable, even on a node allowing none",
        {},
        {"cpu": "1", "pods": "0"},
        None,
        Status.unschedulable("Too many pods"),
    ),
    (
        "too many pods beside an unresolvable shortage",
        {"cpu": "2"},
        {"cpu": "1", "pods": "1"},
        {},
        Status.unresolvable("Too many pods", "Insufficient cpu"),
    ),
]


@pytest.mark.parametrize(
    ("name", "requests", "allocatable", "existing", "want"),
    UNRESOLVABLE_CASES,
    ids=[c[0] for c in UNRESOLVABLE_CASES],
)
def test_request_beyond_allocatable_is_unresolvable(
    name: str,
    requests: dict[str, str],
    allocatable: dict[str, str],
    existing: dict[str, str] | None,
    want: Status,
) -> None:
    """v1.34 (kubernetes/kubernetes#131345): UnschedulableAndUnresolvable when a request
    exceeds the node's allocatable (so preemption skips the node); the pod count never is."""
    plugin = fit_plugin()
    the_pod = make_pod("p").req(**requests).obj()
    pods = [] if existing is None else [make_pod("e").req(**existing)]
    info = node_info(make_node("n").alloc(allocatable), *pods)
    state = CycleState()
    plugin.pre_filter(state, the_pod, [info])
    assert plugin.filter(state, the_pod, info) == want
    assert plugin.filter_nodes(state, the_pod, [info]) == [want]


def test_sidecar_requests_beyond_allocatable_are_unresolvable() -> None:
    """upstream TestRestartableInitContainers: "not allow pod if the total requested
    resources do exceed the node's allocatable resources"."""
    plugin = fit_plugin()
    the_pod = Pod.model_validate(
        {
            "metadata": {"name": "p", "namespace": "default", "uid": "p"},
            "spec": {
                "containers": [{"name": "regular", "resources": {"requests": {"cpu": "1m"}}}],
                "initContainers": [
                    {
                        "name": "restartable-init",
                        "restartPolicy": "Always",
                        "resources": {"requests": {"cpu": "2m"}},
                    }
                ],
            },
        }
    )
    info = node_info(make_node("n").alloc({"cpu": "2m", "memory": "0", "pods": "1"}))
    state = CycleState()
    plugin.pre_filter(state, the_pod, [info])
    assert plugin.filter(state, the_pod, info) == Status.unresolvable("Insufficient cpu")
