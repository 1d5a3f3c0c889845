"""SchedulerPopFromBackoffQ (KEP-5142): backoff windows, their order, and popping from the
backoff queue when the active queue is empty.

Ported from upstream v1.34 pkg/scheduler/backend/queue/backoff_queue_test.go
(TestBackoffQueue_popAllBackoffCompleted, TestBackoffQueueOrdering) and
scheduling_queue_test.go (TestPriorityQueue_Pop, the PreEnqueue cases of
TestPriorityQueue_moveToActiveQ), plus the scheduling-queue flows the gate changes.
"""

from __future__ import annotations

import pytest
from queue_builders import (
    NODE_ADD,
    WILDCARD,
    GatesPlugin,
    LabelGate,
    fail,
    make_pod,
    make_queue,
    priority_less,
    where,
)

from kubesched.clock import VirtualClock
from kubesched.features import set_feature_gates
from kubesched.framework import PodInfo, QueuedPodInfo
from kubesched.queue import SchedulingQueue
from kubesched.queue._backoff import BackoffQueue

BIG = {"labels": {"big": ""}}
BOTH = pytest.mark.parametrize("pop_from_backoff", [True, False])


def _info(
    name: str, timestamp: float, *, priority: int = 0, rejected: bool = True
) -> QueuedPodInfo:
    """A pod after one failed attempt: a rejection (plugin "plugin") or an error."""
    pinfo = QueuedPodInfo(PodInfo(make_pod(name, priority=priority)), timestamp=timestamp)
    pinfo.attempts = 1
    if rejected:
        pinfo.unschedulable_plugins = {"plugin"}
        pinfo.unschedulable_count = 1
    else:
        pinfo.consecutive_errors_count = 1
    return pinfo


def _names(pinfos: list[QueuedPodInfo]) -> list[str]:
    return [p.pod.metadata.name for p in pinfos]


# -- backoff_queue_test.go --------------------------------------------------------------


@BOTH
@pytest.mark.parametrize(
    ("in_backoff", "want"),
    [
        ([], []),  # "Both queues empty, no pods moved to activeQ"
        (["pod0", "pod1"], ["pod0"]),  # "Pods only in backoffQ, some pods moved to activeQ"
        (["pod2", "pod3"], ["pod2"]),  # "Pods only in errorBackoffQ, some pods moved"
        (["pod0", "pod1", "pod2", "pod3"], ["pod0", "pod2"]),  # "Pods in both queues, some"
        (["pod0", "pod2"], ["pod0", "pod2"]),  # "Pods in both queues, all pods moved"
        (["pod1", "pod3"], []),  # "Pods in both queues, no pods moved to activeQ"
    ],
)
def test_pop_all_backoff_completed(
    in_backoff: list[str], want: list[str], pop_from_backoff: bool
) -> None:
    # upstream: TestBackoffQueue_popAllBackoffCompleted (its clock is time.Now(), not aligned)
    clock = VirtualClock(start=100.5)
    now = clock.now()
    infos = {
        "pod0": _info("pod0", now - 2),
        "pod1": _info("pod1", now + 1),
        "pod2": _info("pod2", now - 2, rejected=False),
        "pod3": _info("pod3", now + 1, rejected=False),
    }
    bq = BackoffQueue(clock, 1.0, 10.0, priority_less, pop_from_backoff=pop_from_backoff)
    for name in in_backoff:
        bq.push(infos[name])
    assert _names(bq.pop_due()) == want
    assert len(bq) == len(in_backoff) - len(want)


@pytest.mark.parametrize(
    ("pop_from_backoff", "want"),
    [
        # "Pods with the same window are ordered by priority if PopFromBackoffQ is enabled"
        (True, ["pod5", "pod4", "pod2", "pod3"]),
        # "Pods priority doesn't matter if PopFromBackoffQ is disabled". Upstream leaves pod1
        # (backoff ending exactly now) for the next flush tick; kubesched, which has no
        # ticks, releases a pod at its exact backoff end (README, differences on purpose).
        (False, ["pod5", "pod3", "pod4", "pod2", "pod1"]),
    ],
)
def test_backoff_queue_ordering(pop_from_backoff: bool, want: list[str]) -> None:
    # upstream: TestBackoffQueueOrdering; the clock is aligned with the ordering window
    clock = VirtualClock(start=100.0)
    now = clock.now()
    infos = [
        _info("pod0", now, priority=1),
        _info("pod1", now - 1, priority=1),
        _info("pod2", now - 2 + 0.001, priority=2),
        _info("pod3", now - 2, priority=1),
        _info("pod4", now - 2, priority=2),
        _info("pod5", now - 3, priority=1),
    ]
    bq = BackoffQueue(clock, 1.0, 10.0, priority_less, pop_from_backoff=pop_from_backoff)
    for pinfo in infos:
        bq.push(pinfo)
    assert _names(bq.pop_due()) == want


@pytest.mark.parametrize(
    ("timestamp", "backing_off_until"),
    [
        (0.0, 2.0),  # ends at 1.0: window [1, 2) is released at 2.0
        (0.3, 2.0),  # ends at 1.3, same window
        (0.999, 2.0),
        (1.0, 3.0),
    ],
)
def test_a_pod_backs_off_while_its_window_is_current(
    timestamp: float, backing_off_until: float
) -> None:
    # upstream: isPodBackingoff, `!boTime.Before(alignToWindow(now))`
    clock = VirtualClock(start=timestamp)
    bq = BackoffQueue(clock, 1.0, 10.0, priority_less, pop_from_backoff=True)
    pinfo = _info("a", timestamp)
    bq.push(pinfo)
    assert bq.next_due() == backing_off_until
    clock.advance_to(backing_off_until - 0.01)
    assert bq.is_backing_off(pinfo) and bq.pop_due() == []
    clock.advance_to(backing_off_until)
    assert not bq.is_backing_off(pinfo)
    assert bq.pop_due() == [pinfo]


# -- scheduling_queue_test.go -----------------------------------------------------------


def _rejected_with_event(q: SchedulingQueue, name: str, *, priority: int = 0) -> QueuedPodInfo:
    """Add, pop and reject pod `name` by NodeFit while a node it fits arrives: it backs off."""
    q.add(make_pod(name, priority=priority))
    p = q.pop_nowait()
    assert p is not None and p.pod.metadata.name == name
    q.on_cluster_event(NODE_ADD, None, BIG)
    fail(q, p, unschedulable=["NodeFit"])
    assert where(q, name) == "backoff"
    return p


@pytest.mark.parametrize(
    ("pop_from_backoff", "want"),
    [
        # "Pop pods from both activeQ and backoffQ when PopFromBackoffQ is enabled"
        (True, ["med", "high"]),
        # "Pop pod only from activeQ when PopFromBackoffQ is disabled"
        (False, ["med"]),
    ],
)
def test_priority_queue_pop(pop_from_backoff: bool, want: list[str]) -> None:
    # upstream: TestPriorityQueue_Pop
    clock = VirtualClock()
    q = make_queue(clock, pop_from_backoff=pop_from_backoff)
    _rejected_with_event(q, "high", priority=10)  # the rejected pods' backoff heap
    q.add(make_pod("high2", priority=10))
    erring = q.pop_nowait()
    assert erring is not None
    fail(q, erring)  # the erring pods' heap
    q.add(make_pod("unschedulable"))
    parked = q.pop_nowait()
    assert parked is not None
    fail(q, parked, unschedulable=["Silent"])  # the unschedulable pool
    q.add(make_pod("med", priority=5))  # the active queue

    got = []
    for _ in range(len(want) + 1):
        p = q.pop_nowait()
        if p is not None:
            got.append(p.pod.metadata.name)
    assert got == want
    assert (where(q, "high2"), where(q, "unschedulable")) == ("backoff", "unschedulable")


@BOTH
def test_pre_enqueue_runs_on_entering_backoff_with_the_gate(pop_from_backoff: bool) -> None:
    # upstream: moveToBackoffQ runs PreEnqueue with the gate; moveToActiveQ then skips it
    # for BackoffComplete (TestPriorityQueue_moveToActiveQ's gate cases)
    clock = VirtualClock()
    gates = GatesPlugin()
    q = make_queue(clock, pre_enqueue=[gates], pop_from_backoff=pop_from_backoff)
    p = _rejected_with_event(q, "a")  # PreEnqueue ran once on q.add
    assert gates.calls == (2 if pop_from_backoff else 1)
    clock.advance(2)  # past the backoff, with or without windows
    q.flush()
    assert where(q, "a") == "active"
    assert q.pop_nowait() is p
    assert gates.calls == 2  # once more either way: on entering or on leaving backoff


def test_a_pod_gated_on_entering_backoff_goes_to_the_pool() -> None:
    # upstream: moveToBackoffQ, "the pod doesn't pass PreEnqueue plugins, it gets added to
    # unschedulablePods instead"
    clock = VirtualClock()
    q = make_queue(clock, pre_enqueue=[LabelGate()], pop_from_backoff=True)
    q.add(make_pod("a"))
    p = q.pop_nowait()
    assert p is not None
    # the scheduler requeues the pod as the informer last saw it: now held
    p.pod_info = PodInfo(make_pod("a", labels={"hold": "yes"}))
    q.on_cluster_event(NODE_ADD, None, BIG)
    fail(q, p, unschedulable=["NodeFit"])
    assert where(q, "a") == "unschedulable" and p.gated
    assert q.pop_nowait() is None


def test_a_pod_moved_to_backoff_by_an_event_is_popped_at_once() -> None:
    clock = VirtualClock(start=0.25)
    q = make_queue(clock)  # the v1.34 default: the gate is on
    q.add(make_pod("a"))
    p = q.pop_nowait()
    assert p is not None
    fail(q, p, unschedulable=["NodeFit"])
    assert where(q, "a") == "unschedulable"
    clock.advance(0.5)
    q.on_cluster_event(NODE_ADD, None, BIG)  # NodeFit's hint says Queue
    assert where(q, "a") == "backoff"  # still backing off: its window [1, 2) is ahead
    popped = q.pop_nowait()
    assert popped is p and clock.now() == 0.75
    # an early pop is an ordinary attempt: counted, and a new rejection backs off longer
    assert (p.attempts, q.scheduling_cycle, p.unschedulable_plugins) == (2, 2, set())
    q.on_cluster_event(NODE_ADD, None, BIG)
    fail(q, p, unschedulable=["NodeFit"])
    assert p.unschedulable_count == 2
    assert q.next_wakeup() == 3.0  # 0.75 + 2 s = 2.75: window [2, 3)


def test_a_pod_whose_binding_cycle_failed_is_not_popped_early() -> None:
    # v1.34 records no rejector for PreBind/Bind failures: such a pod waits in the erring
    # pods' heap. kubesched keeps a PreBind rejection's plugin (v1.31, README) but not the
    # early pop, which would retry a pod its PreBind keeps rejecting without end.
    clock = VirtualClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    p = q.pop_nowait()
    assert p is not None
    q.done(p.uid)  # it passed Permit: no longer in flight
    fail(q, p, unschedulable=["NodeFit"])  # then PreBind rejected it
    assert where(q, "a") == "backoff" and p.unschedulable_plugins == {"NodeFit"}
    assert q.pop_nowait() is None
    clock.advance(2)  # its 1 s backoff ends with window [1, 2)
    assert q.pop_nowait() is p


def test_an_early_pop_waits_for_the_active_queue() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    p = _rejected_with_event(q, "backing-off", priority=100)
    q.add(make_pod("fresh", priority=1))
    first = q.pop_nowait()
    assert first is not None and first.pod.metadata.name == "fresh"
    assert q.pop_nowait() is p


@BOTH
def test_pods_of_one_window_wait_in_queue_sort_order(pop_from_backoff: bool) -> None:
    clock = VirtualClock(start=0.2)
    q = make_queue(clock, pop_from_backoff=pop_from_backoff)
    _rejected_with_event(q, "low", priority=1)  # ends at 1.2
    clock.advance(0.5)
    _rejected_with_event(q, "high", priority=10)  # ends at 1.7, the same window
    order = _names(q.pending_pods()["backoff"])
    assert order == (["high", "low"] if pop_from_backoff else ["low", "high"])


def test_an_update_reorders_a_backing_off_pod_within_its_window() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    _rejected_with_event(q, "a", priority=5)
    b = _rejected_with_event(q, "b", priority=1)
    assert _names(q.pending_pods()["backoff"]) == ["a", "b"]
    old = b.pod
    new = old.model_copy(update={"spec": old.spec.model_copy(update={"priority": 9})})
    q.update(old, new)
    assert _names(q.pending_pods()["backoff"]) == ["b", "a"]
    popped = q.pop_nowait()
    assert popped is b and popped.pod.priority == 9


def test_activate_takes_a_pod_out_of_backoff() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    p = _rejected_with_event(q, "a")
    q.activate([p.pod])
    assert where(q, "a") == "active"


@BOTH
@pytest.mark.parametrize("rejected", [True, False])
def test_a_maximum_backoff_of_zero_turns_backoff_off(
    pop_from_backoff: bool, rejected: bool
) -> None:
    # upstream: getBackoffTime, "If podMaxBackoff is set to 0, the backoff should be disabled
    # completely" (kubernetes#131965)
    clock = VirtualClock(start=0.5)
    q = SchedulingQueue(
        clock,
        priority_less,
        {},
        initial_backoff=1.0,
        max_backoff=0.0,
        pop_from_backoff=pop_from_backoff,
    )
    q.add(make_pod("a"))
    p = q.pop_nowait()
    assert p is not None
    q.on_cluster_event(WILDCARD, None, None)  # seen in flight: a rejection goes after backoff
    fail(q, p, unschedulable=["NodeFit"] if rejected else [])
    assert where(q, "a") == "active"
    assert q.pop_nowait() is p


@pytest.mark.parametrize(("initial", "maximum"), [(0.0, 10.0), (2.0, 1.0), (1.0, -1.0)])
def test_backoff_bounds_are_checked(initial: float, maximum: float) -> None:
    with pytest.raises(ValueError, match="backoff must satisfy 0 < initial <= max"):
        SchedulingQueue(VirtualClock(), priority_less, {}, initial, maximum)


def test_the_gate_is_read_from_the_feature_table() -> None:
    clock = VirtualClock()
    try:
        set_feature_gates("SchedulerPopFromBackoffQ=false")
        off = make_queue(clock)
    finally:
        set_feature_gates("")
    on = make_queue(clock)
    for q in (off, on):
        _rejected_with_event(q, "a")
    assert off.pop_nowait() is None
    assert on.pop_nowait() is not None
