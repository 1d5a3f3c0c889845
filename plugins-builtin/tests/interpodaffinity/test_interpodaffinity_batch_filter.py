"""InterPodAffinity's batch Filter (`filter_nodes`) equals its Filter node by node: on the
inputs of upstream's filtering_test.go (TestRequiredAffinitySingleNode,
TestRequiredAffinityMultipleNodes), without PreFilter, and on generated pods and nodes
(hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from interpodaffinity_helpers import NAMESPACES, plugin_for
from test_interpodaffinity_filtering import MULTIPLE_NODES, NODE1, SINGLE_NODE

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeInfo, Status
from kubesched.testing import Scenario, batch_filter_mismatch
from kubesched.testing import strategies as kst


def _check(
    pod: Pod, pods: list[Pod], nodes: list[Node], namespaces: list[tuple[str, dict[str, str]]]
) -> list[Status | None] | None:
    """filter_nodes after PreFilter (None when PreFilter did not succeed), checked against
    Filter on the nodes, reversed, and with a node info without its node."""
    plugin, snapshot = plugin_for(pods, nodes, namespaces=namespaces)
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod, snapshot.list())
    if pre is not None and not pre.is_success:
        return None
    infos = [*snapshot.list(), NodeInfo()]
    assert batch_filter_mismatch(plugin, state, pod, infos) is None
    assert batch_filter_mismatch(plugin, state, pod, infos[::-1]) is None
    return plugin.filter_nodes(state, pod, snapshot.list())


@pytest.mark.parametrize(
    ("pod", "pods", "want_pre", "want_filter"),
    [c[1:] for c in SINGLE_NODE],
    ids=[c[0] for c in SINGLE_NODE],
)
def test_single_node_table(
    pod: Pod, pods: list[Pod], want_pre: Status | None, want_filter: Status | None
) -> None:
    got = _check(pod, pods, [NODE1], list(NAMESPACES))
    if want_pre is None:
        assert got == [want_filter]


@pytest.mark.parametrize(
    ("pod", "pods", "nodes", "want_pre", "want_filters"),
    [c[1:] for c in MULTIPLE_NODES],
    ids=[c[0] for c in MULTIPLE_NODES],
)
def test_multiple_nodes_table(
    pod: Pod,
    pods: list[Pod],
    nodes: list[Node],
    want_pre: Status | None,
    want_filters: list[Status | None],
) -> None:
    got = _check(pod, pods, nodes, [("NS1", {})])
    if want_pre is None:
        assert got == want_filters


def test_without_pre_filter_every_node_gets_filters_error() -> None:
    plugin, snapshot = plugin_for([], [NODE1])
    pod = SINGLE_NODE[0][1]
    infos = [*snapshot.list(), NodeInfo()]
    assert batch_filter_mismatch(plugin, CycleState(), pod, infos) is None
    got = plugin.filter_nodes(CycleState(), pod, infos)
    assert {s.message() for s in got if s is not None} == {
        'error reading "PreFilterInterPodAffinity" from cycleState: not found'
    }


@settings(max_examples=100, deadline=None)
@given(scenario=kst.scenarios(max_nodes=6, max_existing=8))
def test_filter_nodes_equals_filter(scenario: Scenario) -> None:
    plugin, snapshot = plugin_for(scenario.existing, scenario.nodes)
    state = CycleState()
    _, status = plugin.pre_filter(state, scenario.pod, snapshot.list())
    if status is not None:
        return  # Skip or rejected: Filter does not run
    assert batch_filter_mismatch(plugin, state, scenario.pod, snapshot.list()) is None
