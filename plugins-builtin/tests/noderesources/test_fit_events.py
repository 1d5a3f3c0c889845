"""NodeResourcesFit's events and queueing hints, from upstream noderesources/fit_test.go
(TestEventsToRegister, Test_isSchedulableAfterPodChange, Test_isSchedulableAfterNodeChange)."""

from __future__ import annotations

from typing import Any

import pytest
from builtin_helpers import make_node, make_pod
from fit_helpers import fit_plugin

from kubesched.api import Pod
from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"


def test_events_to_register() -> None:
    registrations = fit_plugin().events_to_register()
    assert [r.event for r in registrations] == [
        ClusterEvent(EventResource.Pod, ActionType.Delete | ActionType.UpdatePodScaleDown),
        ClusterEvent(EventResource.Node, ActionType.Add | ActionType.UpdateNodeAllocatable),
    ]
    assert all(r.hint is not None for r in registrations)
    pod_delete = ClusterEvent(EventResource.AssignedPod, ActionType.Delete)
    assert registrations[0].event.matches(pod_delete)
    assert not registrations[1].event.matches(
        ClusterEvent(EventResource.Node, ActionType.UpdateNodeLabel)
    )


POD_CASES: list[tuple[str, Pod, Any, Any, QueueingHint]] = [
    ("backoff-wrong-old-object", make_pod().obj(), "not-a-pod", None, QueueingHint.Queue),
    ("backoff-wrong-new-object", make_pod().obj(), None, "not-a-pod", QueueingHint.Queue),
    (
        "queue-on-other-pod-deleted",
        make_pod("pod1").req(cpu="1").obj(),
        make_pod("pod2").req(cpu="1").node("fake").obj(),
        None,
        QueueingHint.Queue,
    ),
    (
        "skip-queue-on-unscheduled-pod-deleted",
        make_pod("pod1").obj(),
        make_pod("pod2").obj(),
        None,
        QueueingHint.QueueSkip,
    ),
    (
        "skip-queue-on-other-unscheduled-pod",
        make_pod("pod1").uid("uid0").req(cpu="1").obj(),
        make_pod("pod2").uid("uid1").req(cpu="2").obj(),
        make_pod("pod2").uid("uid1").req(cpu="1").obj(),
        QueueingHint.QueueSkip,
    ),
    (
        "skip-queue-on-other-pod-non-resource-changes",
        make_pod("pod1").obj(),
        make_pod("pod2").label(k="v").node("fake").obj(),
        make_pod("pod2").label(foo="bar").node("fake").obj(),
        QueueingHint.QueueSkip,
    ),
    (
        "skip-queue-on-other-pod-unrelated-resource-changes",
        make_pod("pod1").req(cpu="1").obj(),
        make_pod("pod2").req(memory="2").node("fake").obj(),
        make_pod("pod2").req(memory="1").node("fake").obj(),
        QueueingHint.QueueSkip,
    ),
    (
        "skip-queue-on-other-pod-resource-scale-up",
        make_pod("pod1").req(cpu="1").obj(),
        make_pod("pod2").req(cpu="1").node("fake").obj(),
        make_pod("pod2").req(cpu="2").node("fake").obj(),
        QueueingHint.QueueSkip,
    ),
    (
        "queue-on-other-pod-some-resource-scale-down",
        make_pod("pod1").req(cpu="1").obj(),
        make_pod("pod2").req(cpu="2").node("fake").obj(),
        make_pod("pod2").req(cpu="1").node("fake").obj(),
        QueueingHint.Queue,
    ),
    (
        "queue-on-target-pod-some-resource-scale-down",
        make_pod("pod1").req(cpu="1").obj(),
        make_pod("pod1").req(cpu="2").obj(),
        make_pod("pod1").req(cpu="1").obj(),
        QueueingHint.Queue,
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "old", "new", "want"), POD_CASES, ids=[c[0] for c in POD_CASES]
)
def test_is_schedulable_after_pod_event(
    name: str, pod: Pod, old: Any, new: Any, want: QueueingHint
) -> None:
    assert fit_plugin().is_schedulable_after_pod_event(pod, old, new) is want


NODE_CASES: list[tuple[str, Pod, Any, Any, QueueingHint]] = [
    ("backoff-wrong-new-object", make_pod().obj(), None, "not-a-node", QueueingHint.Queue),
    (
        "backoff-wrong-old-object",
        make_pod().obj(),
        "not-a-node",
        make_node().obj(),
        QueueingHint.Queue,
    ),
    (
        "skip-queue-on-node-add-without-sufficient-resources",
        make_pod().req(memory="2").obj(),
        None,
        make_node().alloc(memory="1").obj(),
        QueueingHint.QueueSkip,
    ),
    (
        "skip-queue-on-node-add-without-required-resource-type",
        make_pod().req({EXT_A: "1"}).obj(),
        None,
        make_node().alloc({EXT_B: "1"}).obj(),
        QueueingHint.QueueSkip,
    ),
    (
        "queue-on-node-add-with-sufficient-resources",
        make_pod().req({"memory": "2", EXT_A: "1"}).obj(),
        None,
        make_node().alloc({"memory": "4", EXT_A: "2"}).obj(),
        QueueingHint.Queue,
    ),
    (
        "skip-queue-on-node-changes-from-suitable-to-unsuitable",
        make_pod().req({"memory": "2", EXT_A: "1"}).obj(),
        make_node().alloc({"memory": "4", EXT_A: "2"}).obj(),
        make_node().alloc({"memory": "1", EXT_A: "2"}).obj(),
        QueueingHint.QueueSkip,
    ),
    (
        "queue-on-node-changes-from-unsuitable-to-suitable",
        make_pod().req({"memory": "2", EXT_A: "1"}).obj(),
        make_node().alloc({"memory": "1", EXT_A: "2"}).obj(),
        make_node().alloc({"memory": "4", EXT_A: "2"}).obj(),
        QueueingHint.Queue,
    ),
    (
        "skip-queue-on-node-update-without-requested-resource-increase",
        make_pod().req(memory="2").obj(),
        make_node().alloc(memory="4", cpu="1").obj(),
        make_node().alloc(memory="4", cpu="2").obj(),
        QueueingHint.QueueSkip,
    ),
    (
        "queue-on-node-update-with-more-pods-allowed",
        make_pod().obj(),
        make_node().alloc(pods="1").obj(),
        make_node().alloc(pods="2").obj(),
        QueueingHint.Queue,
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "old", "new", "want"), NODE_CASES, ids=[c[0] for c in NODE_CASES]
)
def test_is_schedulable_after_node_change(
    name: str, pod: Pod, old: Any, new: Any, want: QueueingHint
) -> None:
    assert fit_plugin().is_schedulable_after_node_change(pod, old, new) is want
