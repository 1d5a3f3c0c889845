"""Two of the places a waiting pod can be: the active heap and the unschedulable pool
(the backoff heaps are in `_backoff.py`).

Each is keyed by pod UID. The heap uses lazy deletion (a removed or re-ordered pod leaves a
dead entry that is dropped when it reaches the top), so add, remove and pop are O(log n).

Upstream: pkg/scheduler/backend/queue/{active_queue,unschedulable_pods}.go.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable, Iterator

from kubesched.framework import QueuedPodInfo

__all__ = ["ActiveQueue", "LessFunc", "UnschedulablePool"]

LessFunc = Callable[[QueuedPodInfo, QueuedPodInfo], bool]


class _ActiveEntry:
    """A heap entry ordered by the profile's QueueSort `less`, FIFO among equals."""

    __slots__ = ("less", "live", "pinfo", "seq")

    def __init__(self, pinfo: QueuedPodInfo, seq: int, less: LessFunc) -> None:
        self.pinfo = pinfo
        self.seq = seq
        self.less = less
        self.live = True

    def __lt__(self, other: _ActiveEntry) -> bool:
        a, b = self.pinfo, other.pinfo
        if self.less(a, b):
            return True
        # equals go in FIFO order; only a later entry needs the second comparison
        return self.seq < other.seq and not self.less(b, a)


class ActiveQueue:
    """Pods ready to be scheduled, popped in QueueSort order."""

    def __init__(self, less: LessFunc) -> None:
        self._less = less
        self._heap: list[_ActiveEntry] = []
        self._by_uid: dict[str, _ActiveEntry] = {}
        self._seq = itertools.count()
        self._dead = 0

    def __len__(self) -> int:
        return len(self._by_uid)

    def __contains__(self, uid: str) -> bool:
        return uid in self._by_uid

    def get(self, uid: str) -> QueuedPodInfo | None:
        entry = self._by_uid.get(uid)
        return None if entry is None else entry.pinfo

    def push(self, pinfo: QueuedPodInfo) -> None:
        """Add `pinfo`, or re-place it when its pod is already here (keeping its FIFO rank)."""
        old = self._by_uid.get(pinfo.uid)
        seq = next(self._seq) if old is None else old.seq
        if old is not None:
            self._kill(old)
        entry = _ActiveEntry(pinfo, seq, self._less)
        self._by_uid[pinfo.uid] = entry
        heapq.heappush(self._heap, entry)

    def remove(self, uid: str) -> QueuedPodInfo | None:
        entry = self._by_uid.pop(uid, None)
        if entry is None:
            return None
        self._kill(entry)
        return entry.pinfo

    def pop(self) -> QueuedPodInfo | None:
        heap = self._heap
        while heap:
            entry = heapq.heappop(heap)
            if entry.live:
                del self._by_uid[entry.pinfo.uid]
                return entry.pinfo
            self._dead -= 1
        return None

    def in_order(self) -> list[QueuedPodInfo]:
        """Live pods in the order `pop` would return them."""
        return [e.pinfo for e in sorted(self._by_uid.values())]

    def _kill(self, entry: _ActiveEntry) -> None:
        entry.live = False
        self._dead += 1
        if self._dead > 64 and self._dead > len(self._heap) // 2:
            self._heap = [e for e in self._heap if e.live]
            heapq.heapify(self._heap)
            self._dead = 0


class UnschedulablePool:
    """Rejected and gated pods, each with the moment it must leave (entry + maximum stay).

    Entries are made at the clock's current time with one fixed maximum stay, so deadlines
    only grow with insertion order: a deque is enough to find the earliest.
    """

    def __init__(self) -> None:
        self._by_uid: dict[str, tuple[QueuedPodInfo, float, int]] = {}
        self._deadlines: deque[tuple[float, int, str]] = deque()
        self._seq = itertools.count()

    def __len__(self) -> int:
        return len(self._by_uid)

    def __contains__(self, uid: str) -> bool:
        return uid in self._by_uid

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        return (item[0] for item in self._by_uid.values())

    def get(self, uid: str) -> QueuedPodInfo | None:
        item = self._by_uid.get(uid)
        return None if item is None else item[0]

    def deadline(self, uid: str) -> float | None:
        item = self._by_uid.get(uid)
        return None if item is None else item[1]

    def add(self, pinfo: QueuedPodInfo, deadline: float) -> bool:
        """Park `pinfo` until `deadline`; a pod already here keeps its deadline (its info is
        replaced). Returns whether the pod is new here."""
        item = self._by_uid.get(pinfo.uid)
        if item is not None:
            self._by_uid[pinfo.uid] = (pinfo, item[1], item[2])
            return False
        seq = next(self._seq)
        self._by_uid[pinfo.uid] = (pinfo, deadline, seq)
        self._deadlines.append((deadline, seq, pinfo.uid))
        return True

    def remove(self, uid: str) -> QueuedPodInfo | None:
        item = self._by_uid.pop(uid, None)
        return None if item is None else item[0]

    def next_deadline(self) -> float | None:
        self._drop_stale_front()
        return self._deadlines[0][0] if self._deadlines else None

    def pop_due(self, now: float) -> list[QueuedPodInfo]:
        """Remove and return the pods whose stay ended at or before `now`, oldest first."""
        due: list[QueuedPodInfo] = []
        deadlines = self._deadlines
        while deadlines and deadlines[0][0] <= now:
            _, seq, uid = deadlines.popleft()
            item = self._by_uid.get(uid)
            if item is not None and item[2] == seq:
                del self._by_uid[uid]
                due.append(item[0])
        return due

    def _drop_stale_front(self) -> None:
        deadlines = self._deadlines
        while deadlines:
            _, seq, uid = deadlines[0]
            item = self._by_uid.get(uid)
            if item is not None and item[2] == seq:
                return
            deadlines.popleft()
