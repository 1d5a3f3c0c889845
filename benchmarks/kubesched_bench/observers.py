"""What watches a run while it goes: binds (a `kubesched` hook implementation) and
preemption victims (a watch on pods)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Final

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched.hookspecs import hookimpl

__all__ = ["DISRUPTION_TARGET", "PREEMPTION_BY_SCHEDULER", "BindRecorder", "VictimCounter"]

# upstream: k8s.io/api/core/v1 (DisruptionTarget, PodReasonPreemptionByScheduler): the
# condition the preemption evaluator sets on a victim before deleting it.
DISRUPTION_TARGET: Final = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER: Final = "PreemptionByScheduler"


@dataclass
class BindRecorder:
    """Counts the binds of the pods a phase waits for and stamps them (a `kubesched` hook
    implementation).

    Only the phase's own pods count, each once, by `namespace/name`: in the measured phase
    the count is the measured pods bound, whatever else happens meanwhile (preemption
    victims are deleted, never bound again; a churn op would bind other pods). `stamps`
    are the `time.perf_counter()` of each counted bind in order; `bound_at` the same by
    pod.
    """

    expected: frozenset[str] = frozenset()
    bound: int = 0
    stamps: list[float] = field(default_factory=list)
    bound_at: dict[str, float] = field(default_factory=dict)
    done: asyncio.Future[None] | None = None

    def expect(self, keys: frozenset[str], done: asyncio.Future[None]) -> None:
        """Start a phase: count the binds of `keys`; `done` is set when all are bound."""
        self.expected, self.bound, self.done = keys, 0, done
        self.stamps.clear()
        self.bound_at.clear()
        if not keys:
            done.set_result(None)

    @hookimpl
    def kubesched_pod_scheduled(self, pod: Pod, node_name: str, profile: str) -> None:
        key = pod.key
        if key not in self.expected or key in self.bound_at:
            return
        now = time.perf_counter()
        self.stamps.append(now)
        self.bound_at[key] = now
        self.bound += 1
        if self.bound >= len(self.expected) and self.done is not None and not self.done.done():
            self.done.set_result(None)


@dataclass
class VictimCounter:
    """Counts pods deleted by preemption: a pod whose last version carries the
    `DisruptionTarget` condition the preemption evaluator adds before deleting it."""

    counting: bool = False
    victims: int = 0

    def __call__(self, event: WatchEvent) -> None:
        if not self.counting or event.type != "DELETED":
            return
        pod: Pod = event.obj
        condition = pod.status.condition(DISRUPTION_TARGET)
        if condition is not None and condition.reason == PREEMPTION_BY_SCHEDULER:
            self.victims += 1
