"""PrioritySort orders the active queue: higher priority first, then first come first served.

Upstream: pkg/scheduler/framework/plugins/queuesort/priority_sort.go.
"""

from __future__ import annotations

from typing import ClassVar

from kubesched.framework import QueuedPodInfo, QueueSortPlugin
from kubesched_builtin.names import PRIORITY_SORT

__all__ = ["PrioritySort"]


class PrioritySort(QueueSortPlugin):
    """Sorts pods by `spec.priority` (unset counts as 0), ties by the time they were queued."""

    name: ClassVar[str] = PRIORITY_SORT

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Whether `a` should be popped before `b`."""
        p1, p2 = a.pod.priority, b.pod.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)
