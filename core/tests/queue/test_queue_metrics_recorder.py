"""What the queue tells its metrics recorder (scheduling_queue.go, active_queue.go): the
queue and event of every pod that enters the active queue, the backoff queue or the
unschedulable pool; each QueueingHint call with its answer; the pods and events kept while
pods are in flight."""

from __future__ import annotations

from collections import Counter
from typing import Any

from queue_builders import (
    NODE_ADD,
    GatesPlugin,
    fail,
    make_pod,
    make_queue,
    where,
)

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.framework import ClusterEventWithHint, QueuedPodInfo, QueueingHint
from kubesched.queue import SchedulingQueue


class Recorder:
    def __init__(self) -> None:
        self.incoming: list[tuple[str, str, str]] = []
        self.hints: list[tuple[str, str, str]] = []
        self.in_flight: Counter[str] = Counter()

    def pod_incoming(self, queue: str, event: str, pinfo: QueuedPodInfo) -> None:
        self.incoming.append((queue, event, pinfo.pod.metadata.name))

    def queueing_hint_ran(self, plugin: str, event: str, hint: str, seconds: float) -> None:
        assert seconds >= 0
        self.hints.append((plugin, event, hint))

    def in_flight_changed(self, event: str, delta: int) -> None:
        self.in_flight[event] += delta


def _queue(clock: VirtualClock, **kwargs: Any) -> tuple[SchedulingQueue, Recorder]:
    queue = make_queue(clock, pop_from_backoff=False, **kwargs)
    recorder = Recorder()
    queue.set_metrics_recorder(recorder)
    return queue, recorder


def test_each_entry_is_recorded_with_its_queue_and_event() -> None:
    clock = VirtualClock()
    q, rec = _queue(clock)
    q.add(make_pod("a"))
    a = q.pop_nowait()
    assert a is not None
    fail(q, a, unschedulable=("NodeFit",))
    q.add(make_pod("b"))
    b = q.pop_nowait()
    assert b is not None
    fail(q, b)  # an error: no rejector, to backoff
    q.on_cluster_event(NODE_ADD, None, {"labels": {"big": ""}})  # moves a
    clock.advance(20)
    q.flush()
    assert rec.incoming == [
        ("active", "UnscheduledPodAdd", "a"),
        ("unschedulable", "ScheduleAttemptFailure", "a"),
        ("active", "UnscheduledPodAdd", "b"),
        ("backoff", "ScheduleAttemptFailure", "b"),
        ("backoff", "NodeAdd", "a"),
        ("active", "BackoffComplete", "a"),
        ("active", "BackoffComplete", "b"),
    ]


def test_a_gated_pod_enters_the_unschedulable_pool_once() -> None:
    clock = VirtualClock()
    q, rec = _queue(clock, pre_enqueue=[GatesPlugin()])
    q.add(make_pod("g", gates=["wait"]))
    q.update(make_pod("g", gates=["wait"]), make_pod("g", gates=["wait"], labels={"x": "y"}))
    assert where(q, "g") == "unschedulable"
    assert rec.incoming == [("unschedulable", "UnscheduledPodAdd", "g")]
    q.activate([make_pod("g", gates=["wait"])])  # still gated: stays where it is
    assert rec.incoming == [("unschedulable", "UnscheduledPodAdd", "g")]


def test_hint_calls_are_recorded_with_their_answer() -> None:
    def broken(pod: Pod, old: Any, new: Any) -> QueueingHint:
        raise RuntimeError("boom")

    clock = VirtualClock()
    q, rec = _queue(clock, hints={"Broken": [ClusterEventWithHint(NODE_ADD, broken)]})
    for name, plugin in (("a", "NodeFit"), ("b", "Waiter"), ("c", "Broken")):
        q.add(make_pod(name))
        p = q.pop_nowait()
        assert p is not None
        fail(q, p, unschedulable=(plugin,))
    q.on_cluster_event(NODE_ADD, None, {"labels": {}})
    assert sorted(rec.hints) == [
        ("Broken", "NodeAdd", "Error"),  # a hint that raises counts as Queue
        ("NodeFit", "NodeAdd", "QueueSkip"),
        ("Waiter", "NodeAdd", "Queue"),  # no hint function: always Queue
    ]


def test_in_flight_pods_and_their_events_are_counted_until_done() -> None:
    clock = VirtualClock()
    q, rec = _queue(clock)
    for name in ("a", "b"):
        q.add(make_pod(name))
    a, b = q.pop_nowait(), q.pop_nowait()
    assert a is not None and b is not None
    q.on_cluster_event(NODE_ADD, None, {"labels": {}})
    assert rec.in_flight == {"PodPopped": 2, "NodeAdd": 1}
    q.done(a.uid)  # b, popped before the event, still needs it
    assert rec.in_flight == {"PodPopped": 1, "NodeAdd": 1}
    q.done(b.uid)
    assert rec.in_flight == {"PodPopped": 0, "NodeAdd": 0}
