"""SchedulingGates, from upstream schedulinggates/scheduling_gates_test.go."""

from __future__ import annotations

from typing import Any

import pytest
from builtin_helpers import make_pod
from fakes import fake_handle

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    EventResource,
    NoArgs,
    QueueingHint,
    Status,
)
from kubesched_builtin.schedulinggates import SchedulingGates


def _plugin() -> SchedulingGates:
    return SchedulingGates(NoArgs(), fake_handle())


@pytest.mark.parametrize(
    ("name", "pod", "want"),
    [
        ("pod does not carry scheduling gates", make_pod("p").obj(), None),
        (
            "pod carries scheduling gates",
            make_pod("p").gates("foo", "bar").obj(),
            Status.unresolvable("waiting for scheduling gates: [foo bar]"),
        ),
        (
            "one gate",
            make_pod("p").gates("example.com/wait").obj(),
            Status.unresolvable("waiting for scheduling gates: [example.com/wait]"),
        ),
    ],
)
def test_pre_enqueue(name: str, pod: Pod, want: Status | None) -> None:
    assert _plugin().pre_enqueue(pod) == want


@pytest.mark.parametrize(
    ("name", "pod", "old", "new", "want"),
    [
        ("backoff-wrong-new-object", make_pod("p").obj(), None, "not-a-pod", QueueingHint.Queue),
        (
            "skip-queue-on-other-pod-updated",
            make_pod("p").uid("uid0").obj(),
            make_pod("p1").uid("uid1").gates("foo").obj(),
            make_pod("p1").uid("uid1").obj(),
            QueueingHint.QueueSkip,
        ),
        (
            "queue-on-gates-eliminated",
            make_pod("p").uid("uid0").gates("foo").obj(),
            make_pod("p").uid("uid0").gates("foo").obj(),
            make_pod("p").uid("uid0").obj(),
            QueueingHint.Queue,
        ),
        (
            "skip-queue-while-gates-remain",
            make_pod("p").uid("uid0").gates("foo", "bar").obj(),
            make_pod("p").uid("uid0").gates("foo", "bar").obj(),
            make_pod("p").uid("uid0").gates("bar").obj(),
            QueueingHint.QueueSkip,
        ),
    ],
)
def test_is_schedulable_after_pod_change(
    name: str, pod: Pod, old: Any, new: Any, want: QueueingHint
) -> None:
    assert _plugin().is_schedulable_after_pod_change(pod, old, new) is want


def test_events_to_register() -> None:
    (registration,) = _plugin().events_to_register()
    assert registration.event == ClusterEvent(
        EventResource.Pod, ActionType.UpdatePodSchedulingGatesEliminated
    )
    assert registration.hint is not None
    assert registration.event.matches(
        ClusterEvent(EventResource.UnscheduledPod, ActionType.UpdatePodSchedulingGatesEliminated)
    )
    assert not registration.event.matches(
        ClusterEvent(EventResource.Pod, ActionType.UpdatePodLabel)
    )
