"""NodeResourcesBalancedAllocation's batch Score (`score_nodes`, numpy) equals its Score node
by node, bit for bit: on the inputs of upstream's balanced_allocation_test.go table, on
random clusters (two and more resources, extended ones, nodes lacking some), and with
amounts too large for int64 (scored node by node)."""

from __future__ import annotations

from typing import Any

import pytest
from builtin_helpers import node_infos
from hypothesis import given, settings
from hypothesis import strategies as st
from test_balanced_allocation import CASES, EXISTING, cpu_and_memory, make_node, plugin_with, pod

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeInfo, PodInfo, Snapshot, Status
from kubesched.testing import batch_score_mismatch
from kubesched.testing import make_node as node_builder
from kubesched_builtin.balancedallocation import NodeResourcesBalancedAllocation

GPU = "nvidia.com/gpu"
FPGA = "example.com/fpga"


def _batch(
    plugin: NodeResourcesBalancedAllocation, state: CycleState, target: Pod, infos: list[NodeInfo]
) -> list[int]:
    scores, status = plugin.score_nodes(state, target, infos)
    assert status is None
    assert batch_score_mismatch(plugin, state, target, infos) is None
    assert batch_score_mismatch(plugin, state, target, infos[::-1]) is None
    return scores


@pytest.mark.parametrize(("target", "nodes", "existing", "want", "args", "want_pre_score"), CASES)
def test_batch_score_on_upstream_table(
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
    if plugin.pre_score(state, target, infos) is not None:
        # Score does not run after Skip; without PreScore a best-effort pod scores 0
        assert _batch(plugin, CycleState(), target, infos) == [0] * len(infos)
        return
    assert _batch(plugin, state, target, infos) == want


def test_batch_score_without_pre_score() -> None:
    plugin = plugin_with()
    infos = node_infos(
        [make_node("node1", 10000, 20000), make_node("node2", 10000, 20000)], EXISTING
    )
    assert _batch(plugin, CycleState(), cpu_and_memory(""), infos) == [82, 95]


def test_amounts_beyond_int64_are_scored_node_by_node() -> None:
    plugin = plugin_with({"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": GPU}]})
    infos = node_infos(
        [make_node("big", 4000, 2**62, {GPU: 2**62}), make_node("small", 4000, 10000)], []
    )
    target = pod("", {"cpu": "1", "memory": str(2**61), GPU: "1"})
    state = CycleState()
    assert plugin.pre_score(state, target, infos) is None
    assert _batch(plugin, state, target, infos) == [
        plugin.score(state, target, i)[0] for i in infos
    ]


_AMOUNT = st.integers(0, 64) | st.integers(0, 10**12) | st.sampled_from([0, 1, 3, 2**53 + 1])


@st.composite
def clusters(draw: st.DrawFn) -> tuple[dict[str, Any], Pod, list[NodeInfo]]:
    resources = draw(
        st.lists(
            st.sampled_from(["cpu", "memory", "ephemeral-storage", GPU, FPGA, "pods"]),
            min_size=1,
            max_size=5,
            unique=True,
        )
    )
    args = {"resources": [{"name": r} for r in resources]}

    def amounts(names: list[str], at_least: int = 0) -> dict[str, str]:
        chosen = draw(st.lists(st.sampled_from(names), unique=True, min_size=at_least))
        return {r: (f"{draw(_AMOUNT)}m" if r == "cpu" else str(draw(_AMOUNT))) for r in chosen}

    kinds = ["cpu", "memory", "ephemeral-storage", GPU, FPGA]
    target = pod("", *(amounts(kinds) for _ in range(draw(st.integers(1, 2)))))
    infos = []
    for i in range(draw(st.integers(1, 5))):
        alloc = amounts([*kinds, "pods"], at_least=3)
        info = NodeInfo(node_builder(f"n{i}").alloc(alloc).obj())
        for j in range(draw(st.integers(0, 3))):
            info.add_pod_info(PodInfo(pod(f"n{i}", amounts(kinds), name=f"n{i}-{j}")))
        infos.append(info)
    return args, target, infos


@settings(max_examples=300, deadline=None)
@given(drawn=clusters(), run_pre_score=st.booleans())
def test_batch_score_equals_per_node_score(
    drawn: tuple[dict[str, Any], Pod, list[NodeInfo]], run_pre_score: bool
) -> None:
    args, target, infos = drawn
    plugin = plugin_with(args)
    state = CycleState()
    if run_pre_score and plugin.pre_score(state, target, infos) is not None:
        return  # Skip: Score does not run
    _batch(plugin, state, target, infos)
