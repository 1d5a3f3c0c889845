"""Pods being scheduled and the cluster events seen meanwhile (QueueingHints enabled).

A pod popped from the queue is "in flight" until `done`. Events that arrive while any pod is
in flight are kept, numbered, so that when a pod comes back rejected the queue can replay the
events that happened after it was popped and requeue it at once if one of them may help.
Events older than every in-flight pod are pruned on `done`.

Upstream: pkg/scheduler/backend/queue/active_queue.go (inFlightPods, inFlightEvents,
addEventIfAnyInFlight, clusterEventsForPod, done).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from kubesched.framework import ClusterEvent, QueuedPodInfo
from kubesched.queue._recorder import POD_POPPED, QueueMetricsRecorder

__all__ = ["InFlightPods", "RecordedEvent"]


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    seq: int
    event: ClusterEvent
    old: object
    new: object


class InFlightPods:
    def __init__(self) -> None:
        # uid -> (pod, number of the last event recorded before it was popped). Insertion
        # order is pop order, so the first entry is the oldest in-flight pod.
        self._pods: dict[str, tuple[QueuedPodInfo, int]] = {}
        self._events: deque[RecordedEvent] = deque()
        self._seq = 0
        self.recorder: QueueMetricsRecorder | None = None
        """Told how many events of each kind, and pods, are kept (scheduler_inflight_events)."""

    def __len__(self) -> int:
        return len(self._pods)

    def __contains__(self, uid: str) -> bool:
        return uid in self._pods

    def start(self, pinfo: QueuedPodInfo) -> None:
        if self._pods.pop(pinfo.uid, None) is None:
            self._changed(POD_POPPED, 1)
        self._pods[pinfo.uid] = (pinfo, self._seq)

    def record(self, event: ClusterEvent, old: object, new: object) -> bool:
        """Keep `event` for the pods in flight now; returns False (and keeps nothing) when
        there are none."""
        if not self._pods:
            return False
        self._seq += 1
        self._events.append(RecordedEvent(self._seq, event, old, new))
        self._changed(str(event), 1)
        return True

    def events_for(self, uid: str) -> list[RecordedEvent] | None:
        """Events recorded since `uid` was popped, oldest first; None if it is not in flight."""
        entry = self._pods.get(uid)
        if entry is None:
            return None
        start = entry[1]
        return [e for e in self._events if e.seq > start]

    def done(self, uid: str) -> None:
        if self._pods.pop(uid, None) is None:
            return
        self._changed(POD_POPPED, -1)
        events = self._events
        oldest_start = next(iter(self._pods.values()))[1] if self._pods else self._seq
        while events and events[0].seq <= oldest_start:
            self._changed(str(events.popleft().event), -1)

    def pods(self) -> list[QueuedPodInfo]:
        return [entry[0] for entry in self._pods.values()]

    def _changed(self, label: str, delta: int) -> None:
        # upstream: active_queue.go metricsRecorder.ObserveInFlightEventsAsync
        if self.recorder is not None:
            self.recorder.in_flight_changed(label, delta)
