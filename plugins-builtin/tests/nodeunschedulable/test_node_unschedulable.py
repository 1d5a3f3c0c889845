"""NodeUnschedulable, from upstream nodeunschedulable/node_unschedulable_test.go."""

from __future__ import annotations

from typing import Any

import pytest
from builtin_helpers import make_node, make_pod, node_info
from fakes import fake_handle

from kubesched.api import Node, Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    CycleState,
    EventResource,
    NoArgs,
    QueueingHint,
    Status,
)
from kubesched_builtin.nodeunschedulable import (
    ERR_REASON_NODE_NOT_FOUND,
    ERR_REASON_UNSCHEDULABLE,
    NodeUnschedulable,
)

UNSCHEDULABLE_KEY = "node.kubernetes.io/unschedulable"


def _plugin() -> NodeUnschedulable:
    return NodeUnschedulable(NoArgs(), fake_handle())


@pytest.mark.parametrize(
    ("name", "pod", "node", "want"),
    [
        (
            "does not schedule pod to unschedulable node",
            make_pod("p").obj(),
            make_node("n").unschedulable().obj(),
            Status.unresolvable(ERR_REASON_UNSCHEDULABLE),
        ),
        ("schedules pod to normal node", make_pod("p").obj(), make_node("n").obj(), None),
        (
            "schedules pod with toleration to unschedulable node",
            make_pod("p")
            .toleration(key=UNSCHEDULABLE_KEY, operator="Exists", effect="NoSchedule")
            .obj(),
            make_node("n").unschedulable().obj(),
            None,
        ),
        (
            "a toleration for any effect tolerates it too",
            make_pod("p").toleration(key=UNSCHEDULABLE_KEY, operator="Exists", effect="").obj(),
            make_node("n").unschedulable().obj(),
            None,
        ),
        (
            "a NoExecute toleration does not",
            make_pod("p")
            .toleration(key=UNSCHEDULABLE_KEY, operator="Exists", effect="NoExecute")
            .obj(),
            make_node("n").unschedulable().obj(),
            Status.unresolvable(ERR_REASON_UNSCHEDULABLE),
        ),
        (
            "a node with no Node object",
            make_pod("p").obj(),
            None,
            Status.unresolvable(ERR_REASON_NODE_NOT_FOUND),
        ),
    ],
)
def test_filter(name: str, pod: Pod, node: Node | None, want: Status | None) -> None:
    assert _plugin().filter(CycleState(), pod, node_info(node)) == want


def test_reasons_are_upstream_text() -> None:
    assert ERR_REASON_UNSCHEDULABLE == "node(s) were unschedulable"
    assert ERR_REASON_NODE_NOT_FOUND == "node not found"


@pytest.mark.parametrize(
    ("name", "old", "new", "want"),
    [
        ("error-wrong-new-object", None, "not-a-node", QueueingHint.Queue),
        (
            "error-wrong-old-object",
            "not-a-node",
            make_node("n").unschedulable().obj(),
            QueueingHint.Queue,
        ),
        (
            "skip-queue-on-unschedulable-node-added",
            None,
            make_node("n").unschedulable().obj(),
            QueueingHint.QueueSkip,
        ),
        ("queue-on-schedulable-node-added", None, make_node("n").obj(), QueueingHint.Queue),
        (
            "skip-unrelated-change-unschedulable-true",
            make_node("n").unschedulable().obj(),
            make_node("n").unschedulable().taint("node.kubernetes.io/not-ready", "NoExecute").obj(),
            QueueingHint.QueueSkip,
        ),
        (
            "skip-unrelated-change-unschedulable-false",
            make_node("n").obj(),
            make_node("n").taint("node.kubernetes.io/not-ready", "NoExecute").obj(),
            QueueingHint.QueueSkip,
        ),
        (
            "queue-on-unschedulable-field-change",
            make_node("n").unschedulable().obj(),
            make_node("n").obj(),
            QueueingHint.Queue,
        ),
    ],
)
def test_is_schedulable_after_node_change(
    name: str, old: Any, new: Any, want: QueueingHint
) -> None:
    assert _plugin().is_schedulable_after_node_change(make_pod("p").obj(), old, new) is want


@pytest.mark.parametrize(
    ("name", "pod", "old", "new", "want"),
    [
        ("error-wrong-new-object", make_pod("p").obj(), None, "not-a-pod", QueueingHint.Queue),
        (
            "error-wrong-old-object",
            make_pod("p").obj(),
            "not-a-pod",
            make_pod("p").obj(),
            QueueingHint.Queue,
        ),
        (
            "skip-different-pod-update",
            make_pod("p").uid("uid").obj(),
            make_pod("q").uid("different-uid").obj(),
            make_pod("q")
            .uid("different-uid")
            .toleration(key=UNSCHEDULABLE_KEY, operator="Exists", effect="NoSchedule")
            .obj(),
            QueueingHint.QueueSkip,
        ),
        (
            "queue-when-the-unsched-pod-gets-toleration",
            make_pod("p").uid("uid").obj(),
            make_pod("p").uid("uid").obj(),
            make_pod("p")
            .uid("uid")
            .toleration(key=UNSCHEDULABLE_KEY, operator="Exists", effect="NoSchedule")
            .obj(),
            QueueingHint.Queue,
        ),
        (
            "skip-when-the-unsched-pod-gets-unrelated-toleration",
            make_pod("p").uid("uid").obj(),
            make_pod("p").uid("uid").obj(),
            make_pod("p")
            .uid("uid")
            .toleration(key="unrelated-key", operator="Exists", effect="NoSchedule")
            .obj(),
            QueueingHint.QueueSkip,
        ),
    ],
)
def test_is_schedulable_after_pod_toleration_change(
    name: str, pod: Pod, old: Any, new: Any, want: QueueingHint
) -> None:
    assert _plugin().is_schedulable_after_pod_toleration_change(pod, old, new) is want


def test_events_to_register() -> None:
    events = [r.event for r in _plugin().events_to_register()]
    assert events == [
        ClusterEvent(EventResource.Node, ActionType.Add | ActionType.UpdateNodeTaint),
        ClusterEvent(EventResource.Pod, ActionType.UpdatePodToleration),
    ]
    assert all(r.hint is not None for r in _plugin().events_to_register())
