"""Active-queue order, attempt bookkeeping and v1.34 backoff (reference sections 2.1-2.3)."""

from __future__ import annotations

import pytest
from queue_builders import NODE_ADD, fail, make_pod, make_queue, where

from kubesched.clock import VirtualClock
from kubesched.queue import backoff_duration


def test_pop_order_is_priority_then_timestamp() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    for name, priority in [("low", 1), ("high-late", 10), ("none", None), ("mid", 5)]:
        q.add(make_pod(name, priority=priority))
        clock.advance(1)
    q.add(make_pod("high-later", priority=10))
    popped = []
    while (p := q.pop_nowait()) is not None:
        popped.append(p.pod.metadata.name)
    assert popped == ["high-late", "high-later", "mid", "low", "none"]


def test_equal_keys_pop_in_arrival_order() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    names = [f"p{i}" for i in range(20)]
    for n in names:
        q.add(make_pod(n))  # same priority, same virtual timestamp
    popped = [q.pop_nowait() for _ in names]
    assert [p.pod.metadata.name for p in popped if p is not None] == names


def test_pop_bookkeeping() -> None:
    clock = VirtualClock(start=7.0)
    q = make_queue(clock)
    q.add(make_pod("a"))
    assert q.scheduling_cycle == 0
    p = q.pop_nowait()
    assert p is not None
    assert (p.attempts, q.scheduling_cycle, p.initial_attempt_timestamp) == (1, 1, 7.0)
    assert q.in_flight_pods() == [p]
    assert not q.is_idle()
    q.done(p.uid)
    assert q.is_idle()
    assert q.pop_nowait() is None


def test_update_in_active_queue_reorders() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    a, b = make_pod("a", priority=1), make_pod("b", priority=2)
    q.add(a)
    q.add(b)
    q.update(a, a.model_copy(update={"spec": a.spec.model_copy(update={"priority": 3})}))
    first = q.pop_nowait()
    assert first is not None and first.pod.metadata.name == "a"
    assert first.pod.priority == 3


@pytest.mark.parametrize(
    ("count", "seconds"), [(0, 0), (1, 1), (2, 2), (3, 4), (4, 8), (5, 10), (6, 10), (500, 10)]
)
def test_backoff_duration(count: int, seconds: float) -> None:
    assert backoff_duration(count, 1.0, 10.0) == seconds


def test_unschedulable_backoff_grows_1_2_4_8_10_10() -> None:
    clock = VirtualClock()
    q = make_queue(clock, pop_from_backoff=False)
    q.add(make_pod("a"))
    p = q.pop_nowait()
    for expected in [1, 2, 4, 8, 10, 10]:
        assert p is not None
        # A node event NodeFit accepts arrives mid-attempt, so the pod backs off, not parks.
        q.on_cluster_event(NODE_ADD, None, {"labels": {"big": ""}})
        fail(q, p, unschedulable=["NodeFit"])
        assert where(q, "a") == "backoff"
        assert q.next_wakeup() == pytest.approx(clock.now() + expected)
        clock.advance(expected - 0.01)
        assert q.pop_nowait() is None
        clock.advance(0.01)
        again = q.pop_nowait()
        assert again is p
    assert p is not None and (p.attempts, p.unschedulable_count) == (7, 6)


@pytest.mark.parametrize("pop_from_backoff", [False, True])
@pytest.mark.parametrize(
    ("unschedulable_count", "errors", "rejected", "expected"),
    [
        (3, 0, False, 1.0),  # an error backs off by consecutive errors, not rejections
        (3, 1, False, 2.0),
        (0, 3, True, 1.0),  # a rejection backs off by rejections and resets errors
        (2, 0, True, 4.0),
    ],
)
def test_error_and_unschedulable_backoff_count_separately(
    unschedulable_count: int, errors: int, rejected: bool, expected: float, pop_from_backoff: bool
) -> None:
    clock = VirtualClock()
    q = make_queue(clock, pop_from_backoff=pop_from_backoff)
    q.add(make_pod("a"))
    p = q.pop_nowait()
    assert p is not None
    q.on_cluster_event(NODE_ADD, None, {"labels": {"big": ""}})
    p.unschedulable_plugins = {"NodeFit"} if rejected else set()
    p.unschedulable_count = unschedulable_count
    p.consecutive_errors_count = errors
    q.add_unschedulable_if_not_present(p, q.scheduling_cycle)
    assert where(q, "a") == "backoff"
    # with the gate a backoff ending at `expected` (a whole second) ends with its window
    assert q.next_wakeup() == pytest.approx(expected + (1.0 if pop_from_backoff else 0.0))


@pytest.mark.parametrize(("pop_from_backoff", "backoff"), [(False, 1.0), (True, 2.0)])
def test_error_goes_to_backoff_without_any_event(pop_from_backoff: bool, backoff: float) -> None:
    clock = VirtualClock()
    q = make_queue(clock, pop_from_backoff=pop_from_backoff)
    q.add(make_pod("a"))
    p = q.pop_nowait()
    assert p is not None
    fail(q, p)  # Error: no rejector plugins
    assert where(q, "a") == "backoff"
    assert q.pop_nowait() is None  # an erring pod is never popped before its backoff ends
    clock.advance(backoff - 0.01)
    assert q.pop_nowait() is None
    clock.advance(0.01)
    assert q.pop_nowait() is p
    assert p.attempts == 2


def test_zero_count_means_no_backoff() -> None:
    assert backoff_duration(0, 1.0, 10.0) == 0


def test_add_unschedulable_twice_keeps_one_copy() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    p = q.pop_nowait()
    assert p is not None
    fail(q, p, unschedulable=["NodeFit"])
    fail(q, p, unschedulable=["NodeFit"])
    assert len(q) == 1
