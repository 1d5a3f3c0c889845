"""Which pods were preempted, by whom and when, so a report can show them after they are gone.

A preemption victim leaves the cluster (after its grace period), so the pod list at the end
of a run no longer has it. `PodHistory` watches pods during the run and keeps every pod's
`namespace/name` by uid, when each pod's deletion started, and the last version of every
bound pod that was deleted; the `Preempted` events DefaultPreemption records for each victim
name the preemptor (by uid), the node and, by their timestamp, the virtual time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from kubesched.api import Pod
from kubesched.clock import Clock
from kubesched.cluster import Cluster, KubeEvent, WatchEvent

__all__ = ["PodHistory", "Preemption", "format_seconds"]

# upstream: pkg/scheduler/framework/preemption/preemption.go (PreemptPod):
# Eventf(victim, preemptor, Normal, "Preempted", "Preempting", "Preempted by pod %v on node %v")
_PREEMPTED: Final = re.compile(r"Preempted by pod (?P<uid>\S+) on node (?P<node>\S+)")


@dataclass(frozen=True)
class Preemption:
    """One pod's eviction to make room for another."""

    by: str
    """The preemptor's `namespace/name` (its uid when the run never saw it)."""
    node: str
    at: float
    """Virtual seconds since the run started."""

    def describe(self) -> str:
        return f"preempted by {self.by} on node {self.node} at {format_seconds(self.at)}"


def format_seconds(seconds: float) -> str:
    """Virtual time as the report writes it: `0s`, `30s`, `12.5s` (to the millisecond)."""
    return f"{round(seconds, 3):g}s"


class PodHistory:
    """What a run's pod watch saw: pod keys by uid, deletions, and bound pods deleted."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self.keys: dict[str, str] = {}
        self.deleting_since: dict[str, float] = {}
        """uid → clock time its deletion was first seen (terminating, or gone at once)."""
        self.deleted: dict[str, Pod] = {}
        """uid → the last version of a deleted pod that was bound to a node, in order."""

    def watch(self, cluster: Cluster) -> None:
        cluster.watch("Pod", self._on_pod)

    def _on_pod(self, event: WatchEvent) -> None:
        pod: Pod = event.obj
        uid = pod.metadata.uid
        if event.type == "ADDED":
            self.keys[uid] = pod.key
        if event.type == "DELETED" or pod.metadata.deletion_timestamp is not None:
            self.deleting_since.setdefault(uid, self._clock.now())
        if event.type == "DELETED" and pod.spec.node_name:
            self.deleted[uid] = pod

    def preemptions(self, events: Iterable[KubeEvent]) -> dict[str, Preemption]:
        """Deleted or terminating victim uid → the preemption that deleted it: the first
        `Preempted` event since its deletion started. (A victim rejected at Permit is not
        deleted; two preemptors may pick the same victim, and the second one's event only
        repeats what the first one started.)"""
        found: dict[str, Preemption] = {}
        for event in events:
            victim = event.involved_uid
            since = self.deleting_since.get(victim)
            if (
                since is None
                or victim in found
                or event.timestamp < since
                or event.reason != "Preempted"
                or event.involved_kind != "Pod"
            ):
                continue
            match = _PREEMPTED.fullmatch(event.message)
            if match is not None:
                uid = match["uid"]
                found[victim] = Preemption(self.keys.get(uid, uid), match["node"], event.timestamp)
        return found
