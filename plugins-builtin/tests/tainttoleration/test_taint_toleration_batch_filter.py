"""TaintToleration's batch Filter (`filter_nodes`) equals its Filter node by node: on the
inputs of upstream's taint_toleration_test.go (TestTaintTolerationFilter), asking each
case's pod about every case's node, and on generated pods and nodes (hypothesis)."""

from __future__ import annotations

import pytest
from fakes import fake_handle
from hypothesis import given, settings
from test_taint_toleration import FILTER_CASES, _plugin

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NoArgs, NodeInfo, Status
from kubesched.testing import Scenario, batch_filter_mismatch
from kubesched.testing import strategies as kst
from kubesched_builtin.tainttoleration import TaintToleration


@pytest.mark.parametrize(
    ("name", "pod", "node", "want"), FILTER_CASES, ids=[c[0][:60] for c in FILTER_CASES]
)
def test_filter_nodes_on_upstream_table(
    name: str, pod: Pod, node: Node, want: Status | None
) -> None:
    plugin = _plugin()
    infos = [NodeInfo(node), *(NodeInfo(c[2]) for c in FILTER_CASES), NodeInfo()]
    assert batch_filter_mismatch(plugin, CycleState(), pod, infos) is None
    assert batch_filter_mismatch(plugin, CycleState(), pod, infos[::-1]) is None
    got = plugin.filter_nodes(CycleState(), pod, infos)
    assert got[0] == want
    last = got[-1]  # a node info without its node
    assert last is not None and last.message() == "node not found"


@settings(max_examples=100, deadline=None)
@given(scenario=kst.scenarios(max_nodes=6))
def test_filter_nodes_equals_filter(scenario: Scenario) -> None:
    snapshot = scenario.snapshot()
    plugin = TaintToleration(NoArgs(), fake_handle(snapshot=snapshot))
    assert batch_filter_mismatch(plugin, CycleState(), scenario.pod, snapshot.list()) is None
