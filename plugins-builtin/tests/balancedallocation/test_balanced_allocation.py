"""NodeResourcesBalancedAllocation, from upstream noderesources/balanced_allocation_test.go
(v1.34, the cases without DRA) and validation_pluginargs_test.go
TestValidateNodeResourcesBalancedAllocationArgs."""

from __future__ import annotations

from typing import Any

import pytest
from builtin_helpers import node_infos
from fakes import fake_handle
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, Snapshot, Status, is_success
from kubesched.testing import make_node as make_node_builder
from kubesched.testing import make_pod as make_pod_builder
from kubesched_builtin.balancedallocation import (
    PRE_SCORE_STATE_KEY,
    NodeResourcesBalancedAllocation,
    NodeResourcesBalancedAllocationArgs,
    balanced_resource_score,
)

GPU = "nvidia.com/gpu"
CPU_MEM_GPU = {"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": GPU, "weight": 1}]}


def make_node(
    name: str, milli_cpu: int, memory: int, extended: dict[str, int] | None = None
) -> Node:
    amounts = {"cpu": f"{milli_cpu}m", "memory": str(memory), **(extended or {})}
    return make_node_builder(name).alloc(amounts).obj()


def pod(node: str = "", *requests: dict[str, str], name: str = "p") -> Pod:
    """A pod with one container per `requests` (none if none are given)."""
    builder = make_pod_builder(name, uid=name).no_containers().node(node)
    for r in requests:
        builder.req(r)
    return builder.obj()


def cpu_only(node: str, name: str = "cpu-only") -> Pod:
    return pod(node, {"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}, name=name)


def cpu_and_memory(node: str, name: str = "cpu-mem") -> Pod:
    return pod(
        node, {"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"}, name=name
    )


def cpu_memory_gpu(node: str, name: str = "cpu-mem-gpu") -> Pod:
    return pod(
        node,
        {"cpu": "1000m", "memory": "2000"},
        {"cpu": "2000m", "memory": "3000", GPU: "3"},
        name=name,
    )


def plugin_with(args: dict[str, Any] | None = None) -> NodeResourcesBalancedAllocation:
    return NodeResourcesBalancedAllocation(
        NodeResourcesBalancedAllocationArgs.model_validate(args or {}), fake_handle()
    )


GPU8 = {GPU: 8}
EXISTING = [cpu_only("node1"), cpu_and_memory("node2")]

CASES = [
    pytest.param(
        pod(),
        [make_node("node1", 4000, 10000), make_node("node2", 4000, 10000)],
        [],
        None,
        None,
        Status.skip(),
        id="nothing scheduled, nothing requested, skip in PreScore",
    ),
    pytest.param(
        cpu_and_memory(""),
        [make_node("node1", 4000, 10000), make_node("node2", 6000, 10000)],
        [],
        [87, 100],
        None,
        None,
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        cpu_and_memory(""),
        [make_node("node1", 10000, 20000), make_node("node2", 10000, 20000)],
        EXISTING,
        [82, 95],
        None,
        None,
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        cpu_and_memory(""),
        [make_node("node1", 10000, 20000), make_node("node2", 10000, 50000)],
        EXISTING,
        [82, 80],
        None,
        None,
        id="resources requested, pods scheduled with resources, differently sized nodes",
    ),
    pytest.param(
        cpu_only(""),
        [make_node("node1", 6000, 10000), make_node("node2", 6000, 10000)],
        EXISTING,
        [50, 75],
        None,
        None,
        id="requested resources at node capacity",
    ),
    pytest.param(
        pod("", {"memory": "0", GPU: "1"}),
        [make_node("node1", 3500, 40000, GPU8), make_node("node2", 3500, 40000, GPU8)],
        [cpu_and_memory("node2"), cpu_memory_gpu("node1")],
        [70, 65],
        CPU_MEM_GPU,
        None,
        id="include scalar resource on a node for balanced resource allocation",
    ),
    pytest.param(
        cpu_and_memory(""),
        [make_node("node1", 3500, 40000, GPU8), make_node("node2", 3500, 40000)],
        [],
        [63, 63],
        CPU_MEM_GPU,
        None,
        id="node without the scalar resource should skip the scalar resource",
    ),
    # beyond upstream's table
    pytest.param(
        cpu_and_memory(""),
        [make_node("node1", 0, 0), make_node("node2", 3000, 0)],
        [],
        [100, 100],
        None,
        None,
        id="resources the node lacks are left out (one or no fraction: std 0)",
    ),
    pytest.param(
        pod("", {"cpu": "1", "ephemeral-storage": "2"}),
        [make_node("node1", 2000, 1000, {"ephemeral-storage": 2})],
        [],
        [75],
        {"resources": [{"name": "cpu"}, {"name": "ephemeral-storage"}]},
        None,
        id="ephemeral storage counts like cpu and memory",
    ),
]


@pytest.mark.parametrize(("target", "nodes", "existing", "want", "args", "want_pre_score"), CASES)
def test_balanced_allocation(
    target: Pod,
    nodes: list[Node],
    existing: list[Pod],
    want: list[int] | None,
    args: dict[str, Any] | None,
    want_pre_score: Status | None,
) -> None:
    plugin = plugin_with(args)
    infos = Snapshot(node_infos(nodes, existing)).list()
    state = CycleState()
    status = plugin.pre_score(state, target, infos)
    assert status == want_pre_score
    if status is not None:
        assert PRE_SCORE_STATE_KEY not in state
        return
    got = []
    for info in infos:
        score, score_status = plugin.score(state, target, info)
        assert is_success(score_status)
        got.append(score)
    assert got == want


def test_score_without_pre_score() -> None:
    """upstream "... if PreScore not called": the requests are computed in Score; a
    best-effort pod then scores 0."""
    plugin = plugin_with()
    infos = node_infos(
        [make_node("node1", 10000, 20000), make_node("node2", 10000, 20000)], EXISTING
    )
    assert [plugin.score(CycleState(), cpu_and_memory(""), i)[0] for i in infos] == [82, 95]
    assert [plugin.score(CycleState(), pod(), i) for i in infos] == [(0, None), (0, None)]


def test_real_requests_not_scoring_defaults() -> None:
    # a container without requests counts as nothing (NodeResourcesFit would count 100m/200Mi)
    plugin = plugin_with()
    info = node_infos([make_node("n", 1000, 1000)], [pod("n", {}, name="empty")])[0]
    target = pod("", {"cpu": "500m", "memory": "500"})
    state = CycleState()
    assert plugin.pre_score(state, target, [info]) is None
    assert plugin.score(state, target, info) == (100, None)


def test_args_defaults() -> None:
    assert [(r.name, r.weight) for r in NodeResourcesBalancedAllocationArgs().resources] == [
        ("cpu", 1),
        ("memory", 1),
    ]
    empty = NodeResourcesBalancedAllocationArgs.model_validate({"resources": []})
    assert [r.name for r in empty.resources] == ["cpu", "memory"]
    zero = NodeResourcesBalancedAllocationArgs.model_validate(
        {"resources": [{"name": "cpu", "weight": 0}]}
    )
    assert [(r.name, r.weight) for r in zero.resources] == [("cpu", 1)]


@pytest.mark.parametrize(
    ("resources", "want"),
    [
        pytest.param(
            [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}], None, id="valid config"
        ),
        pytest.param(
            [{"name": "cpu", "weight": 2}, {"name": "memory", "weight": 1}],
            "resources[0].weight: Invalid value: 2: must be 1",
            id="invalid config",
        ),
        pytest.param(
            [{"name": "cpu", "weight": 1}, {"name": "cpu", "weight": 1}],
            'resources[1].name: Duplicate value: "cpu"',
            id="repeated resources",
        ),
        pytest.param(
            [{"name": "cpu", "weight": 3}, {"name": "cpu", "weight": 1}],
            "[resources[0].weight: Invalid value: 3: must be 1, "
            'resources[1].name: Duplicate value: "cpu"]',
            id="several errors",
        ),
    ],
)
def test_args_validation(resources: list[dict[str, Any]], want: str | None) -> None:
    if want is None:
        NodeResourcesBalancedAllocationArgs.model_validate({"resources": resources})
        return
    with pytest.raises(ValidationError) as info:
        NodeResourcesBalancedAllocationArgs.model_validate({"resources": resources})
    assert want in str(info.value)


def test_plugin_refuses_other_args() -> None:
    from kubesched.framework import NoArgs

    with pytest.raises(TypeError, match="NodeResourcesBalancedAllocationArgs"):
        NodeResourcesBalancedAllocation(NoArgs(), fake_handle())


def test_a_pod_requesting_only_an_extended_resource_is_scored() -> None:
    plugin = plugin_with(CPU_MEM_GPU)
    state = CycleState()
    target = pod("", {GPU: "2"})
    assert plugin.pre_score(state, target, []) is None
    info = node_infos([make_node("n", 1000, 1000, GPU8)])[0]
    # cpu 0/1000, memory 0/1000, gpu 2/8: std of (0, 0, 0.25) is ~0.118
    assert plugin.score(state, target, info) == (88, None)


@given(st.lists(st.tuples(st.integers(0, 10**12), st.integers(0, 10**12)), min_size=0, max_size=6))
def test_score_in_range(pairs: list[tuple[int, int]]) -> None:
    requested = [r for r, _ in pairs]
    allocatable = [a for _, a in pairs]
    score = balanced_resource_score(requested, allocatable)
    assert 0 <= score <= 100
    counted = [min(r / a, 1.0) for r, a in pairs if a]
    if len(set(counted)) <= 1:
        if len(counted) <= 2:
            assert score == 100  # no spread: the two-value formula gives exactly 0
        else:
            # upstream's float64 mean of equal values can be off by one ulp, so its std is
            # ~1e-16 and `int64((1 - std) * 100)` truncates to 99 (Go does the same)
            assert score in (99, 100)


def test_equal_fractions_of_three_resources_can_score_99_as_upstream() -> None:
    # 1586/1640 three times: the mean is one ulp above the fraction (found by hypothesis)
    assert balanced_resource_score([1586] * 3, [1640] * 3) == 99
    assert balanced_resource_score([1586] * 2, [1640] * 2) == 100
