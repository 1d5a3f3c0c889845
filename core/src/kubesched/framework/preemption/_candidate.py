"""Preemption candidates, victim ordering and the choice of the node to preempt on.

Upstream: pkg/scheduler/framework/preemption/preemption.go (Candidate,
pickOneNodeForPreemption) and pkg/scheduler/util/utils.go (MoreImportantPod,
GetPodStartTime, GetEarliestPodStartTime).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from kubesched.api import Pod

__all__ = [
    "Candidate",
    "MoreImportantPodFunc",
    "ScoreFunc",
    "Victims",
    "by_importance",
    "earliest_start_time_of_highest_priority",
    "importance_key",
    "more_important_pod",
    "pick_one_node_for_preemption",
    "pod_start_time",
]

_PRIORITY_OFFSET: Final = 2**31
"""Added to each victim's priority before summing (MaxInt32 + 1), so every term is >= 0 and
a few pods of negative priority do not look better than fewer pods of the same priority."""

MoreImportantPodFunc = Callable[[Pod, Pod], bool]
"""Whether the first pod is more important (should be spared before) the second."""

ScoreFunc = Callable[[str], float]
"""Scores a candidate node by name; the highest score wins."""


@dataclass
class Victims:
    """The pods to preempt on one node, most important first, and how many of them
    violate a PodDisruptionBudget (upstream extenderv1.Victims)."""

    pods: list[Pod] = field(default_factory=list)
    num_pdb_violations: int = 0


@dataclass
class Candidate:
    """A node the preemptor would fit on once `victims` are gone."""

    name: str
    victims: Victims


def pod_start_time(pod: Pod, now: datetime) -> datetime:
    """`status.startTime`, or `now` for a pod that has not started (upstream
    GetPodStartTime); times without a zone are taken as UTC."""
    start = pod.status.start_time
    if start is None:
        return now
    return start if start.tzinfo is not None else start.replace(tzinfo=UTC)


def more_important_pod(a: Pod, b: Pod, now: datetime) -> bool:
    """Higher priority first; between equal priorities, the one that started earlier."""
    if a.priority != b.priority:
        return a.priority > b.priority
    return pod_start_time(a, now) < pod_start_time(b, now)


def importance_key(more_important: MoreImportantPodFunc) -> Callable[[Pod], Any]:
    """A sort key that puts the most important pod first (Python's sort is stable, so ties
    keep their order)."""

    def compare(a: Pod, b: Pod) -> int:
        if more_important(a, b):
            return -1
        if more_important(b, a):
            return 1
        return 0

    return functools.cmp_to_key(compare)


def by_importance(pods: Sequence[Pod], more_important: MoreImportantPodFunc) -> list[Pod]:
    """`pods` sorted most important first."""
    return sorted(pods, key=importance_key(more_important))


def earliest_start_time_of_highest_priority(victims: Victims, now: datetime) -> datetime | None:
    """The earliest start time among the victims of the highest priority (upstream
    GetEarliestPodStartTime); None when there are no victims."""
    if not victims.pods:
        return None
    top = max(p.priority for p in victims.pods)
    return min(pod_start_time(p, now) for p in victims.pods if p.priority == top)


def pick_one_node_for_preemption(
    nodes_to_victims: Mapping[str, Victims],
    score_funcs: Sequence[ScoreFunc] | None,
    now: datetime,
) -> str:
    """The node to preempt on ("" when there is none).

    Without `score_funcs`, upstream's criteria in order, each only breaking the ties of the
    one before: fewest PDB violations; the lowest priority of the most important victim;
    the smallest sum of victim priorities; the fewest victims; the latest start time of the
    highest-priority victims. Remaining ties go to the first node in `nodes_to_victims`
    order (upstream: map order, i.e. arbitrary).
    """
    if not nodes_to_victims:
        return ""
    if not score_funcs:
        return _pick_by_default_criteria(nodes_to_victims, now)
    candidates = list(nodes_to_victims)
    for score in score_funcs:
        scored = [(score(node), node) for node in candidates]
        best = max(s for s, _ in scored)
        candidates = [node for s, node in scored if s == best]
        if len(candidates) == 1:
            return candidates[0]
    return candidates[0]


def _pick_by_default_criteria(nodes_to_victims: Mapping[str, Victims], now: datetime) -> str:
    """upstream's default criteria as one key per node: the first four criteria compared
    together (a tuple compares as they break each other's ties), the start time only
    among the nodes tied on all four; the first node wins a tie, as in the loop."""
    best: tuple[int, int, int, int] | None = None
    tied: list[tuple[str, list[int]]] = []
    for node, victims in nodes_to_victims.items():
        priorities = [p.spec.priority or 0 for p in victims.pods]
        key = (
            -victims.num_pdb_violations,
            # victims are ordered most important first: the first has the highest priority
            -priorities[0],
            -(sum(priorities) + _PRIORITY_OFFSET * len(priorities)),
            -len(priorities),
        )
        if best is None or key > best:
            best, tied = key, [(node, priorities)]
        elif key == best:
            tied.append((node, priorities))
    if len(tied) == 1:
        return tied[0][0]

    def latest_start_time(found: tuple[str, list[int]]) -> float:
        # earliest_start_time_of_highest_priority, on the priorities read above
        node, priorities = found
        top = max(priorities)
        pods = nodes_to_victims[node].pods
        earliest = min(
            pod_start_time(p, now)
            for p, priority in zip(pods, priorities, strict=True)
            if priority == top
        )
        return earliest.timestamp()

    return max(tied, key=latest_start_time)[0]  # max keeps the first of equal keys
