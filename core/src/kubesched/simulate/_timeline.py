"""The run over virtual time: pod counts as they change, and when each pod was created, bound
and finished, for the report's timeline and scheduling latencies.

`Timeline` watches pods and nodes from the start of the run. Its times are the run's virtual
clock (seconds from the start) at the moment each change was seen: a pod's `created` is the
instant its creationTimestamp records, `bound` the instant its PodScheduled condition turns
True (Binding), `finished` the instant its phase became Succeeded or Failed. They are read
from the clock rather than from those timestamps because metav1.Time keeps whole seconds and
because a snapshot's pods keep their live cluster's creationTimestamp (their age there, not
in the run). A pod created already bound (spec.nodeName in its manifest) has `bound` equal
to `created` and no scheduling latency: the scheduler never placed it.

Pods are counted as a checkpoint counts them (`pod_state`): `pending` without a node,
`bound` on a node and running (`terminating` ones included, as they still hold the node),
`succeeded` and `failed` once finished.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from kubesched.api import Pod
from kubesched.clock import Clock
from kubesched.cluster import Cluster, WatchEvent

__all__ = [
    "COUNT_KEYS",
    "PERCENTILES",
    "PodState",
    "PodTimes",
    "Timeline",
    "TimelinePoint",
    "count_pods",
    "latency_summary",
    "pod_state",
]

PodState = Literal["pending", "bound", "succeeded", "failed"]

COUNT_KEYS: Final = ("pods", "bound", "pending", "terminating", "succeeded", "failed", "nodes")
"""The counts of a checkpoint and of a timeline point, in their JSON order."""

PERCENTILES: Final = (50, 90, 99)


def pod_state(pod: Pod) -> PodState:
    """Where a pod is in its life, as the report counts it."""
    if pod.is_terminal:
        return "succeeded" if pod.status.phase == "Succeeded" else "failed"
    return "bound" if pod.spec.node_name else "pending"


def _terminating(pod: Pod) -> bool:
    return (
        bool(pod.spec.node_name)
        and not pod.is_terminal
        and pod.metadata.deletion_timestamp is not None
    )


def count_pods(pods: Iterable[Pod], nodes: int) -> dict[str, int]:
    """The counts (COUNT_KEYS) of these pods and nodes."""
    counts = dict.fromkeys(COUNT_KEYS, 0)
    for pod in pods:
        counts["pods"] += 1
        counts[pod_state(pod)] += 1
        counts["terminating"] += _terminating(pod)
    counts["nodes"] = nodes
    return counts


@dataclass(frozen=True)
class TimelinePoint:
    """The counts (COUNT_KEYS) from virtual second `at` until the next point."""

    at: float
    counts: tuple[int, ...]

    def to_json_dict(self) -> dict[str, Any]:
        return {"at": round(self.at, 3), **dict(zip(COUNT_KEYS, self.counts, strict=True))}

    def count(self, key: str) -> int:
        return self.counts[COUNT_KEYS.index(key)]


@dataclass
class PodTimes:
    """When one pod was created, bound and finished (virtual seconds; None: not yet)."""

    created: float
    bound: float | None = None
    finished: float | None = None
    bound_at_creation: bool = False
    """Created with spec.nodeName set: never placed by the scheduler."""

    @property
    def latency(self) -> float | None:
        """Seconds from creation to binding, for a pod the scheduler bound."""
        if self.bound is None or self.bound_at_creation:
            return None
        return self.bound - self.created


class Timeline:
    """What a run's pod and node watches saw, over virtual time (see the module)."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.points: list[TimelinePoint] = []
        """One point per virtual instant at which the counts changed, in time order."""
        self.times: dict[str, PodTimes] = {}
        """Pod uid → its times, deleted pods included."""
        self._pods: dict[str, tuple[PodState, bool]] = {}
        self._counts = dict.fromkeys(COUNT_KEYS, 0)

    def watch(self, cluster: Cluster) -> None:
        cluster.watch("Pod", self._on_pod)
        cluster.watch("Node", self._on_node)

    def _on_node(self, event: WatchEvent) -> None:
        if event.type in ("ADDED", "DELETED"):
            self._counts["nodes"] += 1 if event.type == "ADDED" else -1
            self._record()

    def _on_pod(self, event: WatchEvent) -> None:
        pod: Pod = event.obj
        uid = pod.metadata.uid
        now = self._clock.now()
        times = self.times.get(uid)
        if times is None:
            bound = bool(pod.spec.node_name)
            times = self.times[uid] = PodTimes(now, now if bound else None, bound_at_creation=bound)
        if times.bound is None and pod.spec.node_name:
            times.bound = now
        if times.finished is None and pod.is_terminal:
            times.finished = now
        old = self._pods.pop(uid, None)
        if old is not None:
            self._add(old, -1)
        if event.type != "DELETED":
            new = (pod_state(pod), _terminating(pod))
            self._pods[uid] = new
            self._add(new, 1)
        self._record()

    def _add(self, state: tuple[PodState, bool], sign: int) -> None:
        counts = self._counts
        counts["pods"] += sign
        counts[state[0]] += sign
        counts["terminating"] += sign * state[1]

    def _record(self) -> None:
        """The counts now: a new point, or the last one replaced when it is of this instant
        (a point is the state once the instant's changes are done)."""
        now = self._clock.now()
        counts = tuple(self._counts.values())
        points = self.points
        if points and points[-1].at == now:
            points.pop()
        if points and points[-1].counts == counts:
            return
        points.append(TimelinePoint(now, counts))

    def latencies(self) -> list[float]:
        """The scheduling latency of every pod the scheduler bound, sorted."""
        return sorted(t.latency for t in self.times.values() if t.latency is not None)


def latency_summary(latencies: Sequence[float]) -> dict[str, Any]:
    """`{"pods", "p50", "p90", "p99", "max"}` of these scheduling latencies (seconds, to
    the millisecond; nearest-rank percentiles; null when there are none)."""
    ordered = sorted(latencies)
    summary: dict[str, Any] = {"pods": len(ordered)}
    for p in PERCENTILES:
        summary[f"p{p}"] = _rounded(_nearest_rank(ordered, p))
    summary["max"] = _rounded(ordered[-1] if ordered else None)
    return summary


def _nearest_rank(ordered: Sequence[float], percentile: int) -> float | None:
    """The smallest value with at least `percentile`% of the values at or below it."""
    if not ordered:
        return None
    return ordered[max(0, math.ceil(percentile * len(ordered) / 100) - 1)]


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
