"""The scheduling queue: where unscheduled pods wait for a scheduling attempt.

Layer: imports `kubesched.api`, `kubesched.framework` and `kubesched.clock` only.

`SchedulingQueue` holds the active heap (QueueSort order), the backoff heap, the
unschedulable pool (rejected and PreEnqueue-gated pods), the in-flight pods with the cluster
events seen while they were being scheduled, and the nominator. It follows upstream v1.34
with QueueingHints enabled, with these decisions (details in `_scheduling_queue.py`):

- v1.34 backoff counting: rejections back off by `unschedulable_count`, errors by
  `consecutive_errors_count` (initial * 2^(n-1) capped at max; n = 0 means none).
- No periodic flush: `pop` sleeps exactly until the next backoff expiry or pool deadline, so
  a pod leaves the unschedulable pool exactly `max_in_unschedulable` (5 min) after entering it.
- KEP-5142 (pop from backoff when the active queue is empty) is not done (v1.31 behaviour).
- Events that arrive while a pod is in flight are replayed when it comes back rejected.
"""

from kubesched.queue._heaps import LessFunc, backoff_duration
from kubesched.queue._hints import (
    FORCE_ACTIVATE,
    UNSCHEDULABLE_TIMEOUT,
    QueueingStrategy,
    QueueProfile,
    pod_update_action,
)
from kubesched.queue._scheduling_queue import SchedulingQueue

__all__ = [
    "FORCE_ACTIVATE",
    "UNSCHEDULABLE_TIMEOUT",
    "LessFunc",
    "QueueProfile",
    "QueueingStrategy",
    "SchedulingQueue",
    "backoff_duration",
    "pod_update_action",
]
