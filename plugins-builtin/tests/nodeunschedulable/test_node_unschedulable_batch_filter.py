"""NodeUnschedulable's batch Filter (`filter_nodes`) equals its Filter node by node: on the
inputs of upstream's node_unschedulable_test.go (TestNodeUnschedulable), asking each
case's pod about every case's node, and on generated pods and nodes (hypothesis)."""

from __future__ import annotations

import pytest
from builtin_helpers import make_node, make_pod, node_info
from fakes import fake_handle
from hypothesis import given, settings

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NoArgs, Status
from kubesched.testing import Scenario, batch_filter_mismatch
from kubesched.testing import strategies as kst
from kubesched_builtin.nodeunschedulable import (
    ERR_REASON_NODE_NOT_FOUND,
    ERR_REASON_UNSCHEDULABLE,
    NodeUnschedulable,
)

UNSCHEDULABLE_KEY = "node.kubernetes.io/unschedulable"
CORDONED = make_node("cordoned").unschedulable().obj()

CASES: list[tuple[str, Pod, Node | None, Status | None]] = [
    (
        "does not schedule pod to unschedulable node",
        make_pod("p").obj(),
        CORDONED,
        Status.unresolvable(ERR_REASON_UNSCHEDULABLE),
    ),
    ("schedules pod to normal node", make_pod("p").obj(), make_node("n").obj(), None),
    (
        "schedules pod with toleration to unschedulable node",
        make_pod("p")
        .toleration(key=UNSCHEDULABLE_KEY, operator="Exists", effect="NoSchedule")
        .obj(),
        CORDONED,
        None,
    ),
    (
        "a NoExecute toleration does not",
        make_pod("p")
        .toleration(key=UNSCHEDULABLE_KEY, operator="Exists", effect="NoExecute")
        .obj(),
        CORDONED,
        Status.unresolvable(ERR_REASON_UNSCHEDULABLE),
    ),
    (
        "a node with no Node object",
        make_pod("p").obj(),
        None,
        Status.unresolvable(ERR_REASON_NODE_NOT_FOUND),
    ),
]


@pytest.mark.parametrize(("name", "pod", "node", "want"), CASES, ids=[c[0] for c in CASES])
def test_filter_nodes_on_upstream_table(
    name: str, pod: Pod, node: Node | None, want: Status | None
) -> None:
    plugin = NodeUnschedulable(NoArgs(), fake_handle())
    infos = [node_info(node), *(node_info(c[2]) for c in CASES)]
    assert batch_filter_mismatch(plugin, CycleState(), pod, infos) is None
    assert batch_filter_mismatch(plugin, CycleState(), pod, infos[::-1]) is None
    assert plugin.filter_nodes(CycleState(), pod, infos)[0] == want


@settings(max_examples=100, deadline=None)
@given(scenario=kst.scenarios(max_nodes=6))
def test_filter_nodes_equals_filter(scenario: Scenario) -> None:
    snapshot = scenario.snapshot()
    plugin = NodeUnschedulable(NoArgs(), fake_handle(snapshot=snapshot))
    assert batch_filter_mismatch(plugin, CycleState(), scenario.pod, snapshot.list()) is None
