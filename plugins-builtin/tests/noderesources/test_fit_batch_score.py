"""NodeResourcesFit's batch Score (`score_nodes`) equals its Score node by node: on the
inputs of upstream's tables (least_allocated_test.go, most_allocated_test.go,
requested_to_capacity_ratio_test.go, fit_test.go TestFitScore), on random clusters,
pods and args, and with amounts too large for int64 arithmetic (scored node by node)."""

from __future__ import annotations

from typing import Any

import pytest
import test_least_allocated as least
import test_most_allocated as most
import test_requested_to_capacity_ratio as rtcr
from builtin_helpers import PodBuilder, make_node, make_pod, node_infos
from fit_helpers import fit_plugin, strategy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_vectorized import fit_args, pods
from test_vectorized import node_infos as random_node_infos

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeInfo, Snapshot
from kubesched.testing import batch_score_mismatch
from kubesched_builtin.noderesources import NodeResourcesFit

Case = tuple[str, dict[str, Any], Pod, list[Node], list[Pod], list[int]]


def _cases() -> list[Case]:
    ext = [
        rtcr._ext_node("node1", {"intel.com/foo": 8}),
        rtcr._ext_node("node2", {"intel.com/foo": 4}),
    ]
    multi = [
        rtcr._ext_node("node1", {"intel.com/foo": 8, "intel.com/bar": 4}),
        rtcr._ext_node("node2", {"intel.com/foo": 4, "intel.com/bar": 8}),
    ]
    multi_args = rtcr._rtcr([("intel.com/foo", 3), ("intel.com/bar", 5)], rtcr.PACK_1)
    return [
        *(
            (f"least: {n}", strategy("LeastAllocated", r), p, ns, e, w)
            for n, p, ns, e, r, w in least.CASES
        ),
        *(
            (f"most: {n}", strategy("MostAllocated", r), p, ns, e, w)
            for n, p, ns, e, r, w in most.CASES
        ),
        *(
            (f"rtcr: {n}", rtcr._rtcr(rtcr.DEFAULT, rtcr.SPREAD), p, ns, e, w)
            for n, p, ns, e, w in rtcr.CASES
        ),
        *(
            (f"rtcr ext: {n}", rtcr._rtcr(r, rtcr.PACK_1), p, ext, e, w)
            for n, r, p, e, w in rtcr.EXT_CASES
        ),
        *((f"rtcr multi: {n}", multi_args, p, multi, e, w) for n, p, e, w in rtcr.MULTI_CASES),
        *(
            (f"fit score: {n}", a, p, rtcr.FIT_SCORE_NODES, rtcr.FIT_SCORE_EXISTING, w)
            for n, p, a, w in rtcr.FIT_SCORE_CASES
        ),
        *(
            (f"rtcr edge: {n}", rtcr._rtcr(r, s), p, [node], [], [w])
            for n, r, s, p, node, w in rtcr.EDGE_CASES
        ),
    ]


CASES = _cases()


def _batch(
    plugin: NodeResourcesFit, state: CycleState, pod: Pod, infos: list[NodeInfo]
) -> list[int]:
    scores, status = plugin.score_nodes(state, pod, infos)
    assert status is None
    assert batch_score_mismatch(plugin, state, pod, infos) is None
    assert batch_score_mismatch(plugin, state, pod, infos[::-1]) is None
    return scores


@pytest.mark.parametrize("pre_score", [True, False], ids=["with PreScore", "PreScore not called"])
@pytest.mark.parametrize(
    ("name", "args", "pod", "nodes", "existing", "want"), CASES, ids=[c[0] for c in CASES]
)
def test_batch_score_on_upstream_tables(
    name: str,
    args: dict[str, Any],
    pod: Pod,
    nodes: list[Node],
    existing: list[Pod],
    want: list[int],
    pre_score: bool,
) -> None:
    plugin = fit_plugin(args)
    infos = Snapshot(node_infos(nodes, existing)).list()
    state = CycleState()
    if pre_score:
        assert plugin.pre_score(state, pod, infos) is None
    assert _batch(plugin, state, pod, infos) == want


def test_amounts_beyond_int64_arithmetic_are_scored_node_by_node() -> None:
    huge = str(2**60)
    nodes = [
        make_node("big").alloc(cpu="4", memory=huge, pods=10).obj(),
        make_node("small").alloc(cpu="4", memory="8Gi", pods=10).obj(),
    ]
    for pod in (
        make_pod("p").req(cpu="1", memory="1Gi").obj(),
        make_pod("q").req(memory=huge).obj(),
    ):
        for args in (
            strategy("LeastAllocated", [("cpu", 1), ("memory", 1)]),
            strategy("MostAllocated", [("memory", 2)]),
        ):
            plugin = fit_plugin(args)
            infos = node_infos(nodes, [])
            state = CycleState()
            plugin.pre_score(state, pod, infos)
            assert _batch(plugin, state, pod, infos) == [
                plugin.score(state, pod, i)[0] for i in infos
            ]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    args=fit_args(),
    pod=pods("incoming"),
    nodes=st.lists(random_node_infos(), min_size=1, max_size=6, unique_by=lambda n: n.name),
    run_pre_score=st.booleans(),
)
def test_batch_score_equals_per_node_score(
    args: dict[str, Any], pod: PodBuilder, nodes: list[NodeInfo], run_pre_score: bool
) -> None:
    plugin = fit_plugin(args)
    the_pod = pod.obj()
    state = CycleState()
    if run_pre_score:
        plugin.pre_score(state, the_pod, nodes)
    scores = _batch(plugin, state, the_pod, nodes)
    assert scores == [plugin.score(state, the_pod, n)[0] for n in nodes]
