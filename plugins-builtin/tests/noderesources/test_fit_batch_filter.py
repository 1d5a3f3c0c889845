"""NodeResourcesFit's batch Filter (`filter_nodes`) equals its Filter node by node: on the
inputs of upstream's fit_test.go (TestEnoughRequests, TestNotEnoughRequests,
TestStorageRequests), with every reason in upstream's order, without PreFilter, and on
generated requests and nodes dense in shortages (hypothesis)."""

from __future__ import annotations

from typing import Any

import pytest
from builtin_helpers import make_node, make_pod, node_info
from fit_helpers import fit_plugin
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fit import (
    ENOUGH_CASES,
    ENOUGH_NODE,
    EXT_A,
    NOT_ENOUGH_CASES,
    STORAGE_CASES,
    _node,
    _status,
    pod,
    res,
)

from kubesched.api import Pod
from kubesched.framework import Code, CycleState, NodeInfo, Status
from kubesched.testing import batch_filter_mismatch
from kubesched_builtin.noderesources import NodeResourcesFit, nodes_short_of

# every node of the upstream tables: each case's pod is also asked about the others' nodes
TABLE_NODES = [
    *(_node(ENOUGH_NODE, c[2]) for c in ENOUGH_CASES),
    *(_node({"cpu": "10m", "memory": "20", "pods": "1"}, c[2]) for c in NOT_ENOUGH_CASES),
    *(_node(ENOUGH_NODE, c[2]) for c in STORAGE_CASES),
]


def _batch(plugin: NodeResourcesFit, the_pod: Pod, nodes: list[NodeInfo]) -> list[Status | None]:
    state = CycleState()
    plugin.pre_filter(state, the_pod, nodes)
    assert batch_filter_mismatch(plugin, state, the_pod, nodes) is None
    assert batch_filter_mismatch(plugin, state, the_pod, nodes[::-1]) is None
    return plugin.filter_nodes(state, the_pod, nodes)


@pytest.mark.parametrize(
    ("name", "pod_builder", "existing", "args", "want"),
    ENOUGH_CASES,
    ids=[c[0] for c in ENOUGH_CASES],
)
def test_enough_requests(
    name: str, pod_builder: Any, existing: dict[str, str], args: dict[str, Any], want: list[Any]
) -> None:
    own = _node(ENOUGH_NODE, existing)
    got = _batch(fit_plugin(args), pod_builder.obj(), [own, *TABLE_NODES])
    assert got[0] == _status(want)


@pytest.mark.parametrize(
    ("name", "pod_builder", "existing"), NOT_ENOUGH_CASES, ids=[c[0] for c in NOT_ENOUGH_CASES]
)
def test_not_enough_requests(name: str, pod_builder: Any, existing: dict[str, str]) -> None:
    own = _node({"cpu": "10m", "memory": "20", "pods": "1"}, existing)
    got = _batch(fit_plugin(), pod_builder.obj(), [*TABLE_NODES, own])
    assert got[-1] == Status.unschedulable("Too many pods")


@pytest.mark.parametrize(
    ("name", "pod_builder", "existing", "want"), STORAGE_CASES, ids=[c[0] for c in STORAGE_CASES]
)
def test_storage_requests(
    name: str, pod_builder: Any, existing: dict[str, str], want: Status | None
) -> None:
    own = _node(ENOUGH_NODE, existing)
    got = _batch(fit_plugin(), pod_builder.obj(), [*TABLE_NODES[:3], own, *TABLE_NODES[3:]])
    assert got[3] == want


def test_every_reason_in_upstream_order() -> None:
    the_pod = pod(res(5, 5, 5) | {EXT_A: "1"}).obj()
    full = _node({"cpu": "4m", "memory": "4", "pods": "1", "ephemeral-storage": "4"}, res())
    roomy = _node({"cpu": "4", "memory": "4Gi", "pods": "9", "ephemeral-storage": "4Gi"})
    got = _batch(fit_plugin(), the_pod, [roomy, full, roomy])
    # the roomy nodes have none of EXT_A at all: unresolvable there too
    assert got[0] == got[2] == Status.unresolvable(f"Insufficient {EXT_A}")
    assert got[1] is not None and got[1].code is Code.UnschedulableAndUnresolvable
    assert got[1].reasons == (
        "Too many pods",
        "Insufficient cpu",
        "Insufficient memory",
        "Insufficient ephemeral-storage",
        f"Insufficient {EXT_A}",
    )


def test_without_pre_filter_every_node_gets_filters_error() -> None:
    plugin = fit_plugin()
    infos = [node_info(make_node("a")), node_info(make_node("b"))]
    the_pod = make_pod().obj()
    assert batch_filter_mismatch(plugin, CycleState(), the_pod, infos) is None
    got = plugin.filter_nodes(CycleState(), the_pod, infos)
    assert [s.message() if s else None for s in got] == [
        'error reading "PreFilterNodeResourcesFit" from cycleState: not found'
    ] * 2


AMOUNT = st.sampled_from([0, 1, 2, 3, 5, 8])


@st.composite
def fit_cases(draw: st.DrawFn) -> tuple[dict[str, Any], Pod, list[NodeInfo]]:
    """A pod and nodes whose amounts are small and close, so most nodes are short of
    something (pods, cpu, memory, storage, an extended or an ignored resource)."""
    ext = ["example.com/a", "example.com/b"]

    def amounts() -> dict[str, str]:
        out = {
            "cpu": f"{draw(AMOUNT)}m",
            "memory": str(draw(AMOUNT)),
            "ephemeral-storage": str(draw(AMOUNT)),
        }
        return out | {e: str(draw(AMOUNT)) for e in ext if draw(st.booleans())}

    nodes = []
    for i in range(draw(st.integers(1, 8))):
        alloc = amounts() | {"pods": str(draw(st.integers(0, 3)))}
        existing = [make_pod(f"e{i}-{j}").req(amounts()) for j in range(draw(st.integers(0, 2)))]
        nodes.append(node_info(make_node(f"n{i}").alloc(alloc), *existing))
    args = draw(
        st.sampled_from(
            [{}, {"ignoredResources": [ext[0]]}, {"ignoredResourceGroups": ["example.com"]}]
        )
    )
    return args, make_pod().req(amounts()).obj(), nodes


@settings(max_examples=200, deadline=None)
@given(fit_cases())
def test_filter_nodes_equals_filter(case: tuple[dict[str, Any], Pod, list[NodeInfo]]) -> None:
    args, the_pod, nodes = case
    plugin = fit_plugin(args)
    state = CycleState()
    plugin.pre_filter(state, the_pod, nodes)
    assert batch_filter_mismatch(plugin, state, the_pod, nodes) is None
    short = {i for i, n in enumerate(nodes) if plugin.filter(state, the_pod, n) is not None}
    request = state.read("PreFilterNodeResourcesFit").requests
    ignored, groups = plugin.ignored_resources, plugin.ignored_resource_groups
    assert set(nodes_short_of(request, nodes, ignored, groups)) == short
