"""What the scheduling queue reports to metrics, when something listens.

Upstream: pkg/scheduler/backend/queue/scheduling_queue.go records
`scheduler_queue_incoming_pods_total{queue,event}` where a pod enters the active queue,
the backoff queue or the unschedulable pool, and
`scheduler_queueing_hint_execution_duration_seconds{plugin,event,hint}` around each
QueueingHint call (metricsRecorder.ObserveQueueingHintDurationAsync), and
active_queue.go `scheduler_inflight_events{event}` as pods go in flight and events are kept
for them and let go (ObserveInFlightEventsAsync). The queue only calls
these methods; `kubesched.run` turns them into metrics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Protocol

if TYPE_CHECKING:
    from kubesched.framework import QueuedPodInfo

__all__ = [
    "ACTIVE",
    "BACKOFF",
    "HINT_ERROR",
    "POD_POPPED",
    "UNSCHEDULABLE",
    "QueueMetricsRecorder",
]

ACTIVE: Final = "active"
BACKOFF: Final = "backoff"
UNSCHEDULABLE: Final = "unschedulable"
"""The `queue` label values (gated pods are in the unschedulable pool too)."""

HINT_ERROR: Final = "Error"
"""The `hint` label of a QueueingHint that raised (it counts as Queue)."""

POD_POPPED: Final = "PodPopped"
"""The `event` label counting the pods in flight themselves (metrics.PodPoppedInFlightEvent)."""


class QueueMetricsRecorder(Protocol):
    def pod_incoming(self, queue: str, event: str, pinfo: QueuedPodInfo) -> None:
        """`pinfo` entered `queue` (ACTIVE, BACKOFF or UNSCHEDULABLE) because of `event`
        (a cluster event's label, or UnscheduledPodAdd, ScheduleAttemptFailure,
        BackoffComplete, ForceActivate ...); its rejector plugins are set."""

    def queueing_hint_ran(self, plugin: str, event: str, hint: str, seconds: float) -> None:
        """`plugin`'s QueueingHint for `event` answered `hint` (Queue, QueueSkip or
        HINT_ERROR) in `seconds`; a registration without a hint function counts as one
        answering Queue, as upstream's defaultQueueingHintFn."""

    def in_flight_changed(self, event: str, delta: int) -> None:
        """`delta` more events labelled `event` are kept for the pods in flight (POD_POPPED:
        pods in flight)."""
