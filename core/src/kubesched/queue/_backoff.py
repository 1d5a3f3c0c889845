"""The backoff queue: rejected pods and erring pods waiting out their backoff.

Upstream: pkg/scheduler/backend/queue/backoff_queue.go (v1.34). Two heaps behind one object:
pods rejected by plugins (podBackoffQ) and pods that failed with an error, i.e. with no
rejector plugins (podErrorBackoffQ). A pod's backoff counts its rejections
(`unschedulable_count`) or, after errors, its consecutive errors; it ends at
`timestamp + initial * 2^(count-1)` (capped at the maximum).

With SchedulerPopFromBackoffQ (KEP-5142; beta and on in v1.34) that end is truncated to a
1-second ordering window, the rejected pods' heap orders pods of one window as the active
queue does (QueueSort), a pod still backs off while its window is the current one (so a whole
window is released at once, on the next whole second), and the head of the rejected pods'
heap may be popped before its backoff ends when the active queue is empty (`pop_backoff`).
Erring pods are never popped early.

kubesched has no periodic flush: a pod whose backoff ended is released at the next `pop_due`
(the scheduling queue calls it on every pop and sleeps until `next_due`). Without the gate a
pod is due at its exact expiry (upstream: at the next 1 s flush tick after it); with the gate
upstream's ticks fall on whole seconds, which is exactly when windows end, so the two agree.
"""

from __future__ import annotations

import heapq
import itertools
import math
from typing import Final

from kubesched.clock import Clock
from kubesched.framework import QueuedPodInfo
from kubesched.queue._heaps import LessFunc

__all__ = ["BackoffQueue", "backoff_duration"]

ORDERING_WINDOW: Final = 1.0
"""backoffQOrderingWindowDuration: the width of a backoff ordering window, in seconds."""

_EPS: Final = 1e-6
"""Slack when comparing times: a virtual-time jump (now + (t - now)) may land a hair off t."""

_MAX_DOUBLINGS: Final = 64


def backoff_duration(count: int, initial: float, maximum: float) -> float:
    """initial * 2^(count-1), capped at `maximum`; a count of 0 means no backoff.

    With the defaults (1 s, 10 s) counts 1..6 give 1, 2, 4, 8, 10, 10 seconds.
    """
    # upstream: backoff_queue.go (calculateBackoffDuration)
    if count <= 0:
        return 0.0
    if count - 1 >= _MAX_DOUBLINGS:
        return maximum
    return min(initial * float(2 ** (count - 1)), maximum)


class _Entry:
    """A heap entry: by backoff end, then (rejected pods with the gate) QueueSort, then
    arrival. `live` is cleared when the pod leaves or is re-placed (lazy deletion)."""

    __slots__ = ("end", "less", "live", "pinfo", "seq")

    def __init__(self, pinfo: QueuedPodInfo, end: float, seq: int, less: LessFunc | None) -> None:
        self.pinfo = pinfo
        self.end = end
        self.seq = seq
        self.less = less
        self.live = True

    def __lt__(self, other: _Entry) -> bool:
        if self.end != other.end:
            return self.end < other.end
        # upstream: backoff_queue.go (lessBackoffCompletedWithPriority)
        if self.less is not None:
            if self.less(self.pinfo, other.pinfo):
                return True
            if self.less(other.pinfo, self.pinfo):
                return False
        return self.seq < other.seq


class _Heap:
    """One of the two heaps, keyed by pod UID, with lazy deletion."""

    def __init__(self, less: LessFunc | None) -> None:
        self.less = less
        self.heap: list[_Entry] = []
        self.by_uid: dict[str, _Entry] = {}

    def __len__(self) -> int:
        return len(self.by_uid)

    def push(self, pinfo: QueuedPodInfo, end: float, seq: int) -> None:
        self.remove(pinfo.uid)
        entry = _Entry(pinfo, end, seq, self.less)
        self.by_uid[pinfo.uid] = entry
        heapq.heappush(self.heap, entry)
        if len(self.heap) > 64 and len(self.heap) > 2 * len(self.by_uid):
            self.heap = list(self.by_uid.values())
            heapq.heapify(self.heap)

    def remove(self, uid: str) -> _Entry | None:
        entry = self.by_uid.pop(uid, None)
        if entry is not None:
            entry.live = False
        return entry

    def peek(self) -> _Entry | None:
        heap = self.heap
        while heap and not heap[0].live:
            heapq.heappop(heap)
        return heap[0] if heap else None

    def pop(self) -> QueuedPodInfo | None:
        entry = self.peek()
        if entry is None:
            return None
        heapq.heappop(self.heap)
        del self.by_uid[entry.pinfo.uid]
        return entry.pinfo

    def in_order(self) -> list[_Entry]:
        return sorted(self.by_uid.values())


class BackoffQueue:
    """Pods waiting for their backoff to end (reference section 2.3)."""

    def __init__(
        self,
        clock: Clock,
        initial: float,
        maximum: float,
        less: LessFunc,
        *,
        pop_from_backoff: bool,
    ) -> None:
        self._clock = clock
        self._initial = initial
        self._maximum = maximum
        self.pop_from_backoff = pop_from_backoff
        # upstream: newBackoffQueue; the QueueSort tie-break only with the gate, only for
        # rejected pods
        self._rejected = _Heap(less if pop_from_backoff else None)
        self._erring = _Heap(None)
        self._seq = itertools.count()

    def __len__(self) -> int:
        return len(self._rejected) + len(self._erring)

    def __contains__(self, uid: str) -> bool:
        return uid in self._rejected.by_uid or uid in self._erring.by_uid

    def get(self, uid: str) -> QueuedPodInfo | None:
        entry = self._rejected.by_uid.get(uid) or self._erring.by_uid.get(uid)
        return None if entry is None else entry.pinfo

    # -- backoff time ---------------------------------------------------------------------
    def backoff_end(self, pinfo: QueuedPodInfo) -> float:
        """When the pod's backoff ends, truncated to its window with the gate; -inf when the
        pod has no failure to back off for."""
        # upstream: backoff_queue.go (getBackoffTime): a maximum of 0 turns backoff off
        # (kubernetes#131965); errors count once there are any
        if self._maximum == 0:
            return -math.inf
        count = pinfo.unschedulable_count
        if pinfo.consecutive_errors_count > 0:
            count = pinfo.consecutive_errors_count
        if count == 0:
            return -math.inf
        end = pinfo.timestamp + backoff_duration(count, self._initial, self._maximum)
        return self._align(end) if self.pop_from_backoff else end

    def is_backing_off(self, pinfo: QueuedPodInfo) -> bool:
        """Whether the pod must still wait (upstream isPodBackingoff)."""
        return self._backing_off(self.backoff_end(pinfo))

    def _align(self, t: float) -> float:
        # upstream: alignToWindow (time.Truncate to backoffQOrderingWindowDuration)
        return math.floor((t + _EPS) / ORDERING_WINDOW) * ORDERING_WINDOW

    def _backing_off(self, end: float) -> bool:
        now = self._clock.now()
        if self.pop_from_backoff:
            # a pod whose window is the current one still backs off
            return end >= self._align(now)
        return end > now + _EPS

    def _due_at(self, end: float) -> float:
        return end + ORDERING_WINDOW if self.pop_from_backoff else end

    # -- membership -----------------------------------------------------------------------
    def push(self, pinfo: QueuedPodInfo, *, erring: bool = False) -> None:
        """Add `pinfo` to the heap of its kind (rejected or erring; `erring` forces the
        latter), or re-place it in the heap it is in. A re-placed pod keeps its arrival
        rank among equals."""
        # upstream: backoffQueue.add: no rejector plugins means an error
        uid = pinfo.uid
        old_heap = self._rejected if uid in self._rejected.by_uid else self._erring
        old = old_heap.remove(uid)
        seq = next(self._seq) if old is None else old.seq
        rejected = bool(pinfo.unschedulable_plugins or pinfo.pending_plugins)
        if old is not None:
            heap = old_heap
        else:
            heap = self._rejected if rejected and not erring else self._erring
        heap.push(pinfo, self.backoff_end(pinfo), seq)

    def remove(self, uid: str) -> QueuedPodInfo | None:
        entry = self._rejected.remove(uid) or self._erring.remove(uid)
        return None if entry is None else entry.pinfo

    def pop_due(self) -> list[QueuedPodInfo]:
        """Remove and return the pods whose backoff ended, rejected pods first, each heap in
        its order (upstream popAllBackoffCompleted)."""
        due: list[QueuedPodInfo] = []
        for heap in (self._rejected, self._erring):
            while (entry := heap.peek()) is not None and not self._backing_off(entry.end):
                heap.pop()
                due.append(entry.pinfo)
        return due

    def pop_backoff(self) -> QueuedPodInfo | None:
        """The head of the rejected pods' heap, backoff ended or not (upstream popBackoff);
        erring pods are never popped early."""
        return self._rejected.pop()

    def len_backoff(self) -> int:
        """How many rejected pods wait (upstream lenBackoff)."""
        return len(self._rejected)

    def next_due(self) -> float | None:
        """When the next pod's backoff ends (for the gate, the end of its window), or None."""
        ends = [e.end for e in (self._rejected.peek(), self._erring.peek()) if e is not None]
        return self._due_at(min(ends)) if ends else None

    def values(self) -> list[QueuedPodInfo]:
        """The waiting pods: rejected ones in pop order, then erring ones."""
        return [e.pinfo for e in [*self._rejected.in_order(), *self._erring.in_order()]]
