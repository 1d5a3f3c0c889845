"""Cluster events, QueueingHints and in-flight replay (reference section 2.4)."""

from __future__ import annotations

from typing import Any

import pytest
from queue_builders import (
    NODE_ADD,
    PV_ADD,
    WILDCARD,
    fail,
    make_pod,
    make_queue,
    where,
)

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueuedPodInfo,
    QueueingHint,
)
from kubesched.queue import SchedulingQueue, pod_update_action

BIG: dict[str, dict[str, str]] = {"labels": {"big": ""}}
SMALL: dict[str, dict[str, str]] = {"labels": {}}


def _parked(
    clock: VirtualClock,
    *,
    unschedulable: tuple[str, ...] = (),
    pending: tuple[str, ...] = (),
    **queue_kwargs: Any,
) -> tuple[SchedulingQueue, QueuedPodInfo]:
    """A queue holding pod "a" in the unschedulable pool, rejected by the given plugins."""
    q = make_queue(clock, **queue_kwargs)
    q.add(make_pod("a"))
    p = q.pop_nowait()
    assert p is not None
    fail(q, p, unschedulable=unschedulable, pending=pending)
    assert where(q, "a") == "unschedulable"
    return q, p


@pytest.mark.parametrize(
    ("event", "new", "expected"),
    [
        (NODE_ADD, BIG, "backoff"),  # registered, hint says Queue
        (NODE_ADD, SMALL, "unschedulable"),  # registered, hint says QueueSkip
        (PV_ADD, BIG, "unschedulable"),  # nobody registered for it
        (ClusterEvent(EventResource.Node, ActionType.Delete), BIG, "unschedulable"),
        (WILDCARD, None, "backoff"),
        (ClusterEvent("*", ActionType.All, "UnschedulableTimeout"), None, "backoff"),
    ],
)
def test_event_moves_pod_rejected_by_registered_plugin(
    event: ClusterEvent, new: object, expected: str
) -> None:
    clock = VirtualClock()
    q, _ = _parked(clock, unschedulable=("NodeFit",))
    q.on_cluster_event(event, None, new)
    assert where(q, "a") == expected


@pytest.mark.parametrize(
    ("pop_from_backoff", "waited", "expected"),
    [
        (False, 1.0, "active"),  # unschedulable_count 1: the 1 s backoff has passed
        (True, 1.0, "backoff"),  # its end (1.0) is in the current window [1, 2)
        (True, 2.0, "active"),
    ],
)
def test_moved_pod_goes_active_once_backoff_is_over(
    pop_from_backoff: bool, waited: float, expected: str
) -> None:
    clock = VirtualClock()
    q, p = _parked(clock, unschedulable=("NodeFit",), pop_from_backoff=pop_from_backoff)
    clock.advance(waited)
    q.on_cluster_event(NODE_ADD, None, BIG)
    assert where(q, "a") == expected
    assert q.pop_nowait() is p


def test_wildcard_moves_pods_of_plugins_that_register_nothing() -> None:
    clock = VirtualClock()
    q, _ = _parked(clock, unschedulable=("Silent",))
    q.on_cluster_event(NODE_ADD, None, BIG)
    assert where(q, "a") == "unschedulable"
    q.on_cluster_event(WILDCARD, None, None)
    assert where(q, "a") == "backoff"


def test_wildcard_registration_matches_every_event() -> None:
    clock = VirtualClock()
    q, _ = _parked(
        clock,
        unschedulable=("Anything",),
        hints={"Anything": [ClusterEventWithHint(ClusterEvent("*", ActionType.All))]},
    )
    q.on_cluster_event(PV_ADD, None, None)
    assert where(q, "a") == "backoff"


def test_pending_plugin_queue_skips_backoff() -> None:
    clock = VirtualClock()
    q, p = _parked(clock, pending=("Waiter",))
    p.unschedulable_count = 4  # would be an 8 s backoff
    q.on_cluster_event(NODE_ADD, None, SMALL)
    assert where(q, "a") == "active"
    assert q.pop_nowait() is p


def test_pending_beats_unschedulable_plugin() -> None:
    clock = VirtualClock()
    q, _ = _parked(clock, unschedulable=("NodeFit",), pending=("Waiter",))
    q.on_cluster_event(NODE_ADD, None, BIG)  # both say Queue; Pending wins
    assert where(q, "a") == "active"


def test_unschedulable_plugin_queue_respects_backoff() -> None:
    clock = VirtualClock()
    q, _ = _parked(clock, unschedulable=("Waiter",))
    q.on_cluster_event(NODE_ADD, None, SMALL)
    assert where(q, "a") == "backoff"


def test_hint_that_raises_counts_as_queue() -> None:
    def broken(pod: Pod, old: Any, new: Any) -> QueueingHint:
        raise RuntimeError("boom")

    clock = VirtualClock()
    q, _ = _parked(
        clock,
        unschedulable=("Broken",),
        hints={"Broken": [ClusterEventWithHint(NODE_ADD, broken)]},
    )
    q.on_cluster_event(NODE_ADD, None, SMALL)
    assert where(q, "a") == "backoff"


def test_pre_check_filters_bulk_moves() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    for name in ("a", "b"):
        q.add(make_pod(name))
        p = q.pop_nowait()
        assert p is not None
        fail(q, p, unschedulable=["NodeFit"])
    q.move_all_to_active_or_backoff(
        NODE_ADD, None, BIG, pre_check=lambda pod: pod.metadata.name == "b"
    )
    assert (where(q, "a"), where(q, "b")) == ("unschedulable", "backoff")


# -- in-flight replay -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("event", "new", "expected"),
    [
        (NODE_ADD, BIG, "backoff"),  # helpful event while in flight: requeued, not parked
        (NODE_ADD, SMALL, "unschedulable"),  # hint says QueueSkip
        (PV_ADD, BIG, "unschedulable"),  # no plugin registered: not even recorded
        (WILDCARD, None, "backoff"),
    ],
)
def test_events_during_attempt_are_replayed(
    event: ClusterEvent, new: object, expected: str
) -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    p = q.pop_nowait()
    assert p is not None
    q.on_cluster_event(event, None, new)
    fail(q, p, unschedulable=["NodeFit"])
    assert where(q, "a") == expected
    assert q.in_flight_pods() == []


def test_event_before_pop_is_not_replayed() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    q.add(make_pod("b"))
    a = q.pop_nowait()
    assert a is not None
    q.on_cluster_event(NODE_ADD, None, BIG)  # a is in flight, b not yet popped
    b = q.pop_nowait()
    assert b is not None
    fail(q, b, unschedulable=["NodeFit"])
    fail(q, a, unschedulable=["NodeFit"])
    assert (where(q, "a"), where(q, "b")) == ("backoff", "unschedulable")


def test_events_are_pruned_once_nobody_is_in_flight() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    a = q.pop_nowait()
    assert a is not None
    q.on_cluster_event(NODE_ADD, None, BIG)
    q.done(a.uid)  # e.g. bound
    q.add(make_pod("b"))
    b = q.pop_nowait()
    assert b is not None
    fail(q, b, unschedulable=["NodeFit"])
    assert where(q, "b") == "unschedulable"


def test_pod_not_in_flight_goes_to_backoff() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    p = q.pop_nowait()
    assert p is not None
    q.done(p.uid)  # done too early: the queue cannot know what happened meanwhile
    fail(q, p, unschedulable=["NodeFit"])
    assert where(q, "a") == "backoff"


def test_update_of_in_flight_pod_is_replayed() -> None:
    clock = VirtualClock()
    hint_seen: list[object] = []

    def label_hint(pod: Pod, old: Any, new: Any) -> QueueingHint:
        hint_seen.append(new)
        return QueueingHint.Queue

    label_event = ClusterEvent(EventResource.UnscheduledPod, ActionType.UpdatePodLabel)
    q = make_queue(clock, hints={"Labels": [ClusterEventWithHint(label_event, label_hint)]})
    pod = make_pod("a")
    q.add(pod)
    p = q.pop_nowait()
    assert p is not None
    relabelled = pod.model_copy(deep=True)
    relabelled.metadata.labels = {"x": "y"}
    q.update(pod, relabelled)
    assert where(q, "a") is None  # in flight: only recorded
    fail(q, p, unschedulable=["Labels"])
    assert where(q, "a") == "backoff"
    assert hint_seen == [relabelled]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"labels": {"a": "b"}}, ActionType.UpdatePodLabel),
        ({"tolerations": [{"key": "k", "operator": "Exists"}]}, ActionType.UpdatePodToleration),
        ({"schedulingGates": []}, ActionType.UpdatePodSchedulingGatesEliminated),
        ({"cpu": "500m"}, ActionType.UpdatePodScaleDown),
        ({"cpu": "2"}, ActionType.UpdateOther),
        ({"priority": 5}, ActionType.UpdateOther),
        (
            {"labels": {"a": "b"}, "cpu": "100m"},
            ActionType.UpdatePodLabel | ActionType.UpdatePodScaleDown,
        ),
    ],
)
def test_pod_update_action(change: dict[str, Any], expected: ActionType) -> None:
    base: dict[str, Any] = {
        "metadata": {"name": "p", "uid": "u", "labels": {}},
        "spec": {
            "schedulingGates": [{"name": "g"}],
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
        },
    }
    new: dict[str, Any] = {"metadata": dict(base["metadata"]), "spec": dict(base["spec"])}
    for key, value in change.items():
        if key == "labels":
            new["metadata"]["labels"] = value
        elif key == "cpu":
            new["spec"]["containers"] = [{"name": "c", "resources": {"requests": {"cpu": value}}}]
        else:
            new["spec"][key] = value
    assert pod_update_action(Pod.model_validate(base), Pod.model_validate(new)) == expected
