"""PreEnqueue gating and the unschedulable pool's exact 5-minute flush (sections 2.4-2.5)."""

from __future__ import annotations

import pytest
from queue_builders import (
    NODE_ADD,
    GatesPlugin,
    LabelGate,
    fail,
    make_pod,
    make_queue,
    where,
    with_changes,
)

from kubesched.clock import VirtualClock
from kubesched.framework import Status


def test_gated_pod_waits_in_pool_and_update_removing_gates_activates_it() -> None:
    clock = VirtualClock()
    gates = GatesPlugin()
    q = make_queue(clock, pre_enqueue=[gates])
    pod = make_pod("a", gates=["g1"])
    q.add(pod)
    (parked,) = q.pending_pods()["unschedulable"]
    assert (parked.gated, parked.gating_plugin) == (True, "SchedulingGates")
    assert parked.unschedulable_plugins == {"SchedulingGates"}
    assert q.pop_nowait() is None

    relabelled = with_changes(pod, labels={"x": "1"})
    q.update(pod, relabelled)  # gates still there: the hint is not even asked
    assert where(q, "a") == "unschedulable"

    ungated = with_changes(relabelled, scheduling_gates=[])
    q.update(relabelled, ungated)
    assert where(q, "a") == "active"
    popped = q.pop_nowait()
    assert popped is parked and not popped.gated and popped.pod is ungated
    assert popped.unschedulable_plugins == set()


def test_gated_pod_ignores_events_its_gate_did_not_register() -> None:
    clock = VirtualClock()
    gates = GatesPlugin()
    q = make_queue(clock, pre_enqueue=[gates])
    q.add(make_pod("a", gates=["g"]))
    calls = gates.calls
    q.on_cluster_event(NODE_ADD, None, {"labels": {"big": ""}})
    assert where(q, "a") == "unschedulable"
    assert gates.calls == calls  # skipped early, PreEnqueue not rerun


def test_pre_enqueue_runs_in_order_and_first_failure_gates() -> None:
    clock = VirtualClock()
    label_gate = LabelGate()
    gates = GatesPlugin()
    q = make_queue(clock, pre_enqueue=[label_gate, gates])
    q.add(make_pod("a", labels={"hold": "yes"}, gates=["g"]))
    (p,) = q.pending_pods()["unschedulable"]
    assert p.gating_plugin == "LabelGate"
    assert gates.calls == 0


def test_pre_enqueue_exception_gates_the_pod() -> None:
    class Broken(LabelGate):
        name = "Broken"

        def pre_enqueue(self, pod: object) -> Status | None:
            raise ValueError("bad plugin")

    clock = VirtualClock()
    q = make_queue(clock, pre_enqueue=[Broken()])
    q.add(make_pod("a"))
    assert where(q, "a") == "unschedulable"


@pytest.mark.parametrize(
    ("pop_from_backoff", "backoff", "gated"),
    [
        (False, 1.0, True),  # PreEnqueue runs again when the backoff ends
        # upstream moveToActiveQ skips PreEnqueue for BackoffComplete with the gate: it ran
        # in moveToBackoffQ, before the update (the 1 s backoff ends with window [1, 2))
        (True, 2.0, False),
    ],
)
def test_when_the_gate_is_rechecked_around_backoff(
    pop_from_backoff: bool, backoff: float, gated: bool
) -> None:
    clock = VirtualClock()
    q = make_queue(clock, pre_enqueue=[LabelGate()], pop_from_backoff=pop_from_backoff)
    pod = make_pod("a")
    q.add(pod)
    p = q.pop_nowait()
    assert p is not None
    fail(q, p)  # error -> backoff
    q.update(pod, with_changes(pod, labels={"hold": "yes"}))
    clock.advance(backoff)
    popped = q.pop_nowait()
    assert p.gated is gated
    if gated:
        assert popped is None and where(q, "a") == "unschedulable"
    else:
        assert popped is p


@pytest.mark.parametrize("gated", [False, True])
def test_pool_leftovers_leave_at_exactly_max_stay(gated: bool) -> None:
    clock = VirtualClock(start=100.0)
    q = make_queue(clock, pre_enqueue=[LabelGate()])
    if gated:
        q.add(make_pod("a", labels={"hold": "yes"}))
    else:
        q.add(make_pod("a"))
        p = q.pop_nowait()
        assert p is not None
        fail(q, p, unschedulable=["Silent"])  # nothing but a timeout can help
    assert where(q, "a") == "unschedulable"
    assert q.next_wakeup() == 400.0

    clock.advance_to(399.999)
    assert q.pop_nowait() is None
    assert where(q, "a") == "unschedulable"

    clock.advance_to(400.0)
    popped = q.pop_nowait()
    if gated:
        # Still gated: re-parked with a fresh deadline, never popped.
        assert popped is None
        assert where(q, "a") == "unschedulable"
        assert q.next_wakeup() == 700.0
    else:
        assert popped is not None and popped.pod.metadata.name == "a"
        assert q.next_wakeup() is None


def test_leftover_flush_counts_from_the_last_failure() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    q.add(make_pod("b"))
    a = q.pop_nowait()
    assert a is not None
    fail(q, a, unschedulable=["Silent"])  # parked at 0
    clock.advance(100)
    b = q.pop_nowait()
    assert b is not None
    fail(q, b, unschedulable=["Silent"])  # parked at 100
    clock.advance_to(300)
    assert q.pop_nowait() is a
    assert where(q, "b") == "unschedulable"
    assert q.next_wakeup() == 400


def test_moved_pod_does_not_leave_a_stale_wakeup() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    a = q.pop_nowait()
    assert a is not None
    fail(q, a, unschedulable=["NodeFit"])
    clock.advance(5)
    q.on_cluster_event(NODE_ADD, None, {"labels": {"big": ""}})  # backoff over -> active
    assert where(q, "a") == "active"
    assert q.next_wakeup() is None
