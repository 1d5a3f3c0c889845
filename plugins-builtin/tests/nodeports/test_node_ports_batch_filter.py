"""NodePorts' batch Filter (`filter_nodes`) equals its Filter node by node: on the inputs
of upstream's node_ports_test.go (TestNodePorts), asking each case's pod about every
case's node, without PreFilter, and on generated pods and nodes (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from test_node_ports import CASES, _plugin, new_pod, node_info_with

from kubesched.api import Pod
from kubesched.framework import CycleState, NodeInfo, Status
from kubesched.testing import Scenario, batch_filter_mismatch
from kubesched.testing import strategies as kst
from kubesched_builtin.nodeports import host_ports

NODES = [c.values[1] for c in CASES]
# upstream's "skip filter" case asks for no host port: PreFilter skips, Filter never runs
FILTERED = [c for c in CASES if host_ports(c.values[0])]


@pytest.mark.parametrize(("pod", "node_info", "want"), FILTERED)
def test_filter_nodes_on_upstream_table(pod: Pod, node_info: NodeInfo, want: Status | None) -> None:
    plugin = _plugin()
    state = CycleState()
    infos = [*NODES, node_info]
    plugin.pre_filter(state, pod, infos)
    assert batch_filter_mismatch(plugin, state, pod, infos) is None
    assert batch_filter_mismatch(plugin, state, pod, infos[::-1]) is None
    assert plugin.filter_nodes(state, pod, infos)[-1] == want


def test_without_pre_filter_every_node_gets_filters_error() -> None:
    plugin = _plugin()
    pod = new_pod("m1", "TCP/127.0.0.1/8080")
    infos = [node_info_with(), node_info_with()]
    assert batch_filter_mismatch(plugin, CycleState(), pod, infos) is None
    got = plugin.filter_nodes(CycleState(), pod, infos)
    assert [s.message() if s else None for s in got] == [
        'reading "PreFilterNodePorts" from cycleState: not found'
    ] * 2


@settings(max_examples=100, deadline=None)
@given(scenario=kst.scenarios(max_nodes=6))
def test_filter_nodes_equals_filter(scenario: Scenario) -> None:
    snapshot = scenario.snapshot()
    plugin = _plugin()
    state = CycleState()
    _, status = plugin.pre_filter(state, scenario.pod, snapshot.list())
    if status is not None:
        return  # Skip: Filter does not run
    assert batch_filter_mismatch(plugin, state, scenario.pod, snapshot.list()) is None
