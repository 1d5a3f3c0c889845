"""PodTopologySpread's events and queueing hints, from upstream podtopologyspread/plugin_test.go
(Test_isSchedulableAfterNodeChange, Test_isSchedulableAfterPodChange)."""

from __future__ import annotations

from typing import Any

import pytest
from podtopologyspread_helpers import BAR, FOO, UNSCHEDULABLE_TAINT, node, plugin, pod

from kubesched.api import Pod
from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint

Q = QueueingHint.Queue
SKIP = QueueingHint.QueueSkip

ZONE_POD = pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj()
ZONE_NODE_POD = (
    pod()
    .spread_constraint(1, "zone", "DoNotSchedule", FOO)
    .spread_constraint(1, "node", "DoNotSchedule", FOO)
    .obj()
)
FOO_BAR_POD = (
    pod()
    .label(foo="")
    .spread_constraint(1, "zone", "DoNotSchedule", FOO)
    .spread_constraint(1, "node", "DoNotSchedule", BAR)
    .obj()
)


def test_events_to_register() -> None:
    regs = plugin().events_to_register()
    assert [r.event for r in regs] == [
        ClusterEvent(
            EventResource.Pod,
            ActionType.Add
            | ActionType.UpdatePodLabel
            | ActionType.UpdatePodToleration
            | ActionType.Delete,
        ),
        ClusterEvent(
            EventResource.Node,
            ActionType.Add
            | ActionType.Delete
            | ActionType.UpdateNodeLabel
            | ActionType.UpdateNodeTaint,
        ),
    ]
    assert all(r.hint is not None for r in regs)
    assert regs[0].event.matches(ClusterEvent(EventResource.AssignedPod, ActionType.Delete))
    assert not regs[1].event.matches(
        ClusterEvent(EventResource.Node, ActionType.UpdateNodeAllocatable)
    )


NODE_CASES: list[tuple[str, Pod, Any, Any, QueueingHint]] = [
    (
        "node updates label which matches topologyKey",
        ZONE_POD,
        node("node-a").label(zone="zone1").obj(),
        node("node-a").label(zone="zone2").obj(),
        Q,
    ),
    (
        "node that doesn't match topologySpreadConstraints updates non-related label",
        ZONE_POD,
        node("node-a").label(foo="bar1").obj(),
        node("node-a").label(foo="bar2").obj(),
        SKIP,
    ),
    (
        "node that match topologySpreadConstraints adds non-related label",
        ZONE_NODE_POD,
        node("node-a").label(zone="zone1").label(node="node1").label(foo="bar").obj(),
        node("node-a").label(zone="zone1").label(node="node1").obj(),
        SKIP,  # v1.34 compares only the topology keys (checkTopologyKeyLabelsChanged)
    ),
    (
        "create node with non-related labels",
        ZONE_POD,
        None,
        node("node-a").label(foo="bar").obj(),
        SKIP,
    ),
    (
        "create node with related labels",
        ZONE_POD,
        None,
        node("node-a").label(zone="zone1").obj(),
        Q,
    ),
    (
        "delete node with non-related labels",
        ZONE_POD,
        node("node-a").label(foo="bar").obj(),
        None,
        SKIP,
    ),
    (
        "delete node with related labels",
        ZONE_POD,
        node("node-a").label(zone="zone1").obj(),
        None,
        Q,
    ),
    (
        "add node with related labels that only match one of topologySpreadConstraints",
        ZONE_NODE_POD,
        None,
        node("node-a").label(zone="zone1").obj(),
        SKIP,
    ),
    (
        "add node with related labels that match all topologySpreadConstraints",
        ZONE_NODE_POD,
        None,
        node("node-a").label(zone="zone1").label(node="node1").obj(),
        Q,
    ),
    (
        "update node with related labels that only match one of topologySpreadConstraints",
        ZONE_NODE_POD,
        node("node-a").label(zone="zone1").obj(),
        node("node-a").label(zone="zone1").obj(),
        SKIP,
    ),
    (
        "update node with related labels that match all topologySpreadConstraints",
        ZONE_NODE_POD,
        node("node-a").label(zone="zone1").label(node="node1").obj(),
        node("node-a").label(zone="zone1").label(node="node2").obj(),
        Q,
    ),
    (
        "node updates taints while it matches",
        ZONE_POD,
        node("node-a").label(zone="zone1").obj(),
        node("node-a").label(zone="zone1").taint(UNSCHEDULABLE_TAINT).obj(),
        Q,
    ),
    ("not a node", ZONE_POD, None, "not-a-node", Q),
]


@pytest.mark.parametrize(
    ("p", "old", "new", "want"), [c[1:] for c in NODE_CASES], ids=[c[0] for c in NODE_CASES]
)
def test_is_schedulable_after_node_change(p: Pod, old: Any, new: Any, want: QueueingHint) -> None:
    assert plugin().is_schedulable_after_node_change(p, old, new) == want


def scheduled(name: str = "x") -> Any:
    return pod(name).node("fake-node")


POD_CASES: list[tuple[str, Pod, Any, Any, QueueingHint]] = [
    (
        "add pod with labels match topologySpreadConstraints selector",
        ZONE_POD,
        None,
        scheduled().label(foo="").obj(),
        Q,
    ),
    ("add un-scheduled pod", ZONE_POD, None, pod("x").label(foo="").obj(), SKIP),
    (
        "update un-scheduled pod",
        ZONE_POD,
        pod("x").label(bar="").obj(),
        pod("x").label(foo="").obj(),
        SKIP,
    ),
    ("delete un-scheduled pod", ZONE_POD, pod("x").label(foo="").obj(), None, SKIP),
    (
        "add pod with different namespace",
        ZONE_POD,
        None,
        scheduled().namespace("fake-namespace").label(foo="").obj(),
        SKIP,
    ),
    (
        "add pod with labels don't match topologySpreadConstraints selector",
        ZONE_POD,
        None,
        scheduled().label(bar="").obj(),
        SKIP,
    ),
    (
        "delete pod with labels that match topologySpreadConstraints selector",
        ZONE_POD,
        scheduled().label(foo="").obj(),
        None,
        Q,
    ),
    (
        "delete pod with labels that don't match topologySpreadConstraints selector",
        ZONE_POD,
        scheduled().label(bar="").obj(),
        None,
        SKIP,
    ),
    (
        "update pod's non-related label",
        ZONE_POD,
        scheduled().label(foo="").label(bar="bar1").obj(),
        scheduled().label(foo="").label(bar="bar2").obj(),
        SKIP,
    ),
    (
        "add pod's label that matches topologySpreadConstraints selector",
        ZONE_POD,
        scheduled().obj(),
        scheduled().label(foo="").obj(),
        Q,
    ),
    (
        "delete pod label that matches topologySpreadConstraints selector",
        ZONE_POD,
        scheduled().label(foo="").obj(),
        scheduled().obj(),
        Q,
    ),
    (
        "change pod's label that matches topologySpreadConstraints selector",
        ZONE_POD,
        scheduled().label(foo="foo1").obj(),
        scheduled().label(foo="foo2").obj(),
        SKIP,
    ),
    (
        "add pod's label that matches topologySpreadConstraints selector with multi "
        "topologySpreadConstraints",
        FOO_BAR_POD,
        scheduled().label(foo="").obj(),
        scheduled().label(foo="").label(bar="bar2").obj(),
        Q,
    ),
    (
        "change pod's label that doesn't match topologySpreadConstraints selector with multi "
        "topologySpreadConstraints",
        FOO_BAR_POD,
        scheduled().label(foo="").obj(),
        scheduled().label(foo="").label(baz="").obj(),
        SKIP,
    ),
    (
        "change pod's label that match topologySpreadConstraints selector with multi "
        "topologySpreadConstraints",
        FOO_BAR_POD,
        scheduled().label(foo="").label(bar="").obj(),
        scheduled().label(foo="").label(bar="bar2").obj(),
        SKIP,
    ),
    (
        "the pod itself gets a toleration while a constraint honours taints",
        pod()
        .label(foo="")
        .spread_constraint(1, "zone", "DoNotSchedule", FOO, None, None, "Honor")
        .obj(),
        pod().label(foo="").obj(),
        pod()
        .label(foo="")
        .toleration(key="node.kubernetes.io/unschedulable", operator="Exists", effect="NoSchedule")
        .obj(),
        Q,
    ),
    (
        "the pod itself gets a toleration while no constraint honours taints",
        ZONE_POD,
        pod().label(foo="").obj(),
        pod()
        .label(foo="")
        .toleration(key="node.kubernetes.io/unschedulable", operator="Exists", effect="NoSchedule")
        .obj(),
        SKIP,
    ),
]


@pytest.mark.parametrize(
    ("p", "old", "new", "want"), [c[1:] for c in POD_CASES], ids=[c[0] for c in POD_CASES]
)
def test_is_schedulable_after_pod_change(p: Pod, old: Any, new: Any, want: QueueingHint) -> None:
    assert plugin().is_schedulable_after_pod_change(p, old, new) == want
