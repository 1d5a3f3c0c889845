"""The scheduling queue: where unscheduled pods wait for a scheduling attempt.

Layer: imports `kubesched.api`, `kubesched.framework`, `kubesched.clock` and
`kubesched.features` only.

`SchedulingQueue` holds the active heap (QueueSort order), the backoff heap, the
unschedulable pool (rejected and PreEnqueue-gated pods), the in-flight pods with the cluster
events seen while they were being scheduled, and the nominator. It follows upstream v1.34
with QueueingHints enabled, with these decisions (details in `_scheduling_queue.py`):

- v1.34 backoff counting: rejections back off by `unschedulable_count`, errors by
  `consecutive_errors_count` (initial * 2^(n-1) capped at max; n = 0 means none).
- SchedulerPopFromBackoffQ (KEP-5142, on by default as in v1.34): when the active queue is
  empty, `pop` takes a rejected pod from the backoff queue before its backoff ends; backoff
  ends fall on 1 s windows ordered by QueueSort. The feature gate turns it off.
- No periodic flush: `pop` sleeps exactly until the next backoff end or pool deadline, so
  a pod leaves the unschedulable pool exactly `max_in_unschedulable` (5 min) after entering it.
- Events that arrive while a pod is in flight are replayed when it comes back rejected.
"""

from kubesched.queue._backoff import backoff_duration
from kubesched.queue._heaps import LessFunc
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
