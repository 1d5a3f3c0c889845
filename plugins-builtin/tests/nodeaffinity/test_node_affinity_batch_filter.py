"""NodeAffinity's batch Filter (`filter_nodes`) equals its Filter node by node: on the inputs
of upstream's node_affinity_test.go (TestNodeAffinity: each case's pod, with and without
PreFilter and with the case's added affinity, asked about every case's node), and on
generated pods and nodes (hypothesis)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from nodeaffinity_helpers import affinity_plugin, make_affinity_node
from test_node_affinity import CASES

from kubesched.api import Pod
from kubesched.framework import CycleState, NodeInfo, Status
from kubesched.testing import Scenario, batch_filter_mismatch
from kubesched.testing import strategies as kst

NODES = [NodeInfo(make_affinity_node(c.values[2], c.values[1])) for c in CASES]


@pytest.mark.parametrize(
    (
        "pod",
        "labels",
        "node_name",
        "want",
        "want_pre_filter",
        "want_result",
        "args",
        "run_pre_filter",
    ),
    CASES,
)
def test_filter_nodes_on_upstream_table(
    pod: Pod,
    labels: dict[str, str] | None,
    node_name: str,
    want: Status | None,
    want_pre_filter: Status | None,
    want_result: set[str] | None,
    args: dict[str, Any] | None,
    run_pre_filter: bool,
) -> None:
    plugin = affinity_plugin(args)
    own = NodeInfo(make_affinity_node(node_name, labels))
    infos = [own, *NODES, NodeInfo()]
    state = CycleState()
    if run_pre_filter:
        plugin.pre_filter(state, pod, infos)
    assert batch_filter_mismatch(plugin, state, pod, infos) is None
    assert batch_filter_mismatch(plugin, state, pod, infos[::-1]) is None
    assert batch_filter_mismatch(plugin, CycleState(), pod, infos) is None  # no PreFilter
    assert plugin.filter_nodes(state, pod, infos)[0] == want


@settings(max_examples=100, deadline=None)
@given(scenario=kst.scenarios(max_nodes=6))
def test_filter_nodes_equals_filter(scenario: Scenario) -> None:
    snapshot = scenario.snapshot()
    plugin = affinity_plugin(snapshot=snapshot)
    state = CycleState()
    _, status = plugin.pre_filter(state, scenario.pod, snapshot.list())
    if status is not None and status.is_skip:
        return  # Filter does not run
    assert batch_filter_mismatch(plugin, state, scenario.pod, snapshot.list()) is None
