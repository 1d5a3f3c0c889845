"""InterPodAffinity's events and queueing hints, from upstream interpodaffinity/plugin_test.go
(Test_isSchedulableAfterPodChange, Test_isSchedulableAfterNodeChange)."""

from __future__ import annotations

from typing import Any

import pytest
from interpodaffinity_helpers import affinity, make_node, make_pod, plugin_for, term

from kubesched.api import Node, Pod
from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint

Q, SKIP = QueueingHint.Queue, QueueingHint.QueueSkip
SCAN = ["securityscan", "value2"]


def _plugin() -> Any:
    return plugin_for([], [])[0]


def test_events_to_register() -> None:
    registrations = _plugin().events_to_register()
    assert [r.event for r in registrations] == [
        ClusterEvent(
            EventResource.Pod, ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete
        ),
        ClusterEvent(EventResource.Node, ActionType.Add | ActionType.UpdateNodeLabel),
    ]
    assert all(r.hint is not None for r in registrations)
    assert registrations[0].event.matches(
        ClusterEvent(EventResource.AssignedPod, ActionType.Delete)
    )
    assert not registrations[1].event.matches(
        ClusterEvent(EventResource.Node, ActionType.UpdateNodeTaint)
    )


def _target_affinity() -> Pod:
    return make_pod("p", aff=affinity(required=[term("service", "In", SCAN, "region")]))


def _target_two_terms() -> Pod:
    return make_pod(
        "p",
        aff=affinity(
            required=[term("aaa", "Exists", [], "hostname"), term("bbb", "Exists", [], "hostname")]
        ),
    )


def _target_anti() -> Pod:
    return make_pod("p", aff=affinity(anti=[term("service", "In", SCAN, "region")]))


def _scheduled(**labels: str) -> Pod:
    return make_pod(labels=labels, node="fake-node")


# (name, target pod, old pod, new pod, hint)
POD_CASES: list[tuple[str, Pod, Pod | None, Pod | None, QueueingHint]] = [
    (
        "add a pod matching the affinity",
        _target_affinity(),
        None,
        _scheduled(service="securityscan"),
        Q,
    ),
    (
        "add an unscheduled pod",
        _target_affinity(),
        None,
        make_pod(labels={"service": "securityscan"}),
        SKIP,
    ),
    ("add a pod not matching the affinity", _target_affinity(), None, _scheduled(aaa="a"), SKIP),
    (
        "update a pod from non-match to match",
        _target_affinity(),
        _scheduled(aaa="a"),
        _scheduled(service="securityscan"),
        Q,
    ),
    (
        "the pod matches the affinity before and after",
        _target_affinity(),
        _scheduled(service="value2"),
        _scheduled(service="securityscan"),
        SKIP,
    ),
    (
        "update an unscheduled pod",
        _target_affinity(),
        make_pod(labels={"service": "securityscan"}),
        make_pod(labels={"service": "securityscan"}),
        SKIP,
    ),
    (
        "update a pod from match to non-match",
        _target_affinity(),
        _scheduled(service="securityscan"),
        _scheduled(aaa="a"),
        SKIP,
    ),
    (
        "update from match to non-match, several terms",
        _target_two_terms(),
        _scheduled(aaa="a"),
        _scheduled(service="securityscan"),
        SKIP,
    ),
    (
        "update from non-match to match, several terms",
        _target_two_terms(),
        _scheduled(aaa="a"),
        _scheduled(aaa="", bbb=""),
        Q,
    ),
    (
        "relabel a pod so it no longer matches the anti-affinity",
        _target_anti(),
        _scheduled(service="securityscan"),
        _scheduled(service="aaaa"),
        Q,
    ),
    (
        "relabel a pod so it matches the anti-affinity",
        _target_anti(),
        _scheduled(service="bbb"),
        _scheduled(service="securityscan"),
        SKIP,
    ),
    (
        "delete a pod not matching the anti-affinity",
        _target_anti(),
        _scheduled(aaa="a"),
        None,
        SKIP,
    ),
    (
        "delete a pod matching the anti-affinity",
        _target_anti(),
        _scheduled(service="securityscan"),
        None,
        Q,
    ),
    ("an object that is not a pod", _target_anti(), None, "not-a-pod", Q),  # type: ignore[list-item]
]


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"), [c[1:] for c in POD_CASES], ids=[c[0] for c in POD_CASES]
)
def test_is_schedulable_after_pod_change(
    pod: Pod, old: Pod | None, new: Pod | None, want: QueueingHint
) -> None:
    hint = _plugin().events_to_register()[0].hint
    assert hint is not None
    assert hint(pod, old, new) is want


def _zone_affinity() -> Pod:
    return make_pod("p", aff=affinity(required=[term("service", "In", SCAN, "zone")]))


def _zone_anti() -> Pod:
    selector = {"labelSelector": {"matchLabels": {"another": "label"}}, "topologyKey": "zone"}
    return make_pod("p", aff=affinity(anti=[selector]))


def _node(**labels: str) -> Node:
    return make_node("node-a", **labels)


# (name, target pod, old node, new node, hint)
NODE_CASES: list[tuple[str, Pod, Node | None, Node, QueueingHint]] = [
    ("add a node with the affinity topology key", _zone_affinity(), None, _node(zone="zone1"), Q),
    (
        "add a node without the affinity topology key",
        make_pod("p", aff=affinity(required=[term("service", "In", SCAN, "region")])),
        None,
        _node(zone="zone1"),
        SKIP,
    ),
    (
        "update a label that is not the topology key",
        _zone_affinity(),
        _node(aaa="a"),
        _node(aaa="b"),
        SKIP,
    ),
    (
        "add an unrelated label",
        _zone_affinity(),
        _node(zone="zone1"),
        _node(zone="zone1", **{"unrelated-label": "unrelated"}),
        SKIP,
    ),
    (
        "move to another affinity domain",
        _zone_affinity(),
        _node(zone="zone1"),
        _node(zone="zone2"),
        Q,
    ),
    ("gain the affinity topology key", _zone_affinity(), _node(aaa="a"), _node(zone="zone1"), Q),
    ("add a node with the anti-affinity topology key", _zone_anti(), None, _node(zone="zone1"), Q),
    ("add a node without the anti-affinity topology key", _zone_anti(), None, _node(), Q),
    (
        "add an unrelated label (anti-affinity)",
        _zone_anti(),
        _node(zone="zone1"),
        _node(zone="zone1", **{"unrelated-label": "unrelated"}),
        SKIP,
    ),
    (
        "move to another anti-affinity domain",
        _zone_anti(),
        _node(zone="zone1"),
        _node(zone="zone2"),
        Q,
    ),
    (
        "gain the anti-affinity topology key",
        _zone_anti(),
        _node(aaa="a"),
        _node(zone="zone1"),
        SKIP,
    ),
    ("lose the anti-affinity topology key", _zone_anti(), _node(zone="zone1"), _node(aaa="a"), Q),
]


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"), [c[1:] for c in NODE_CASES], ids=[c[0] for c in NODE_CASES]
)
def test_is_schedulable_after_node_change(
    pod: Pod, old: Node | None, new: Node, want: QueueingHint
) -> None:
    hint = _plugin().events_to_register()[1].hint
    assert hint is not None
    assert hint(pod, old, new) is want
