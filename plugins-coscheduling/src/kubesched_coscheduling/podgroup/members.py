"""Pods by PodGroup, kept current from the cluster's Pod watch.

Both the plugin and the status controller need a group's members many times; listing every
pod of the cluster each time would cost O(pods) per question. The index answers in
O(members), keeps the counts the plugin asks for on every member (live, ready, bound) up
to date in O(1) per event, and reports, for each pod event, which groups it touched.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched_coscheduling.podgroup.types import pod_group_key

__all__ = ["MemberCounts", "MemberIndex", "is_live", "is_ungated"]


def is_live(pod: Pod) -> bool:
    """Neither finished (Succeeded/Failed) nor being deleted: a member that can still run."""
    return not pod.is_terminal and not pod.is_terminating


def is_ungated(pod: Pod) -> bool:
    """Without scheduling gates (upstream counts only these toward the quorum)."""
    return not pod.spec.scheduling_gates


@dataclass
class MemberCounts:
    """How many of a group's members are in each state (what the status controller and
    the plugin ask on every event, kept current in O(1))."""

    total: int = 0
    live: int = 0
    """Neither finished nor being deleted."""
    ready: int = 0
    """Live and ungated."""
    running: int = 0
    succeeded: int = 0
    failed: int = 0
    scheduled: int = 0
    """Bound to a node, whatever the phase."""
    bound_not_failed: int = 0
    ungated_not_failed: int = 0

    @classmethod
    def of(cls, pods: Iterable[Pod]) -> MemberCounts:
        counts = cls()
        for pod in pods:
            counts.account(pod, 1)
        return counts

    def account(self, pod: Pod, sign: int) -> None:
        phase = pod.status.phase
        self.total += sign
        if is_live(pod):
            self.live += sign
            if is_ungated(pod):
                self.ready += sign
        if phase == "Running":
            self.running += sign
        elif phase == "Succeeded":
            self.succeeded += sign
        elif phase == "Failed":
            self.failed += sign
        if pod.spec.node_name:
            self.scheduled += sign
        if phase != "Failed":
            if pod.spec.node_name:
                self.bound_not_failed += sign
            if is_ungated(pod):
                self.ungated_not_failed += sign


@dataclass
class _Group:
    pods: dict[str, Pod] = field(default_factory=dict)
    counts: MemberCounts = field(default_factory=MemberCounts)
    bound: set[str] = field(default_factory=set)
    """UIDs of live members bound to a node."""
    sorted_pods: list[Pod] | None = None

    def account(self, pod: Pod, sign: int) -> None:
        self.sorted_pods = None
        self.counts.account(pod, sign)
        if is_live(pod) and pod.spec.node_name:
            if sign > 0:
                self.bound.add(pod.metadata.uid)
            else:
                self.bound.discard(pod.metadata.uid)


_EMPTY = _Group()


class MemberIndex:
    """Pods carrying the pod-group label, by `namespace/group` key."""

    def __init__(self, pods: Iterable[Pod] = ()) -> None:
        self._groups: dict[str, _Group] = {}
        self._key_of: dict[str, str] = {}
        for pod in pods:
            self._put(pod)

    def apply(self, event: WatchEvent) -> tuple[str, str]:
        """Record a Pod watch event; returns (group key before, group key after), "" for
        none. A pod that left its group (label changed, deleted) is forgotten."""
        pod: Pod = event.obj
        uid = pod.metadata.uid
        before = self._key_of.get(uid, "")
        if event.type == "DELETED":
            self._drop(uid, before)
            return before, ""
        if before:
            self._drop(uid, before)
        return before, self._put(pod)

    def members(self, key: str) -> list[Pod]:
        """The group's pods (terminal ones included), by name."""
        group = self._groups.get(key)
        if group is None:
            return []
        if group.sorted_pods is None:
            group.sorted_pods = sorted(group.pods.values(), key=lambda p: p.metadata.name)
        return group.sorted_pods

    def counts(self, key: str) -> MemberCounts:
        """The group's counts (do not change them)."""
        return self._groups.get(key, _EMPTY).counts

    def live_count(self, key: str) -> int:
        """Members neither finished nor being deleted."""
        return self.counts(key).live

    def ready_count(self, key: str) -> int:
        """Live members without scheduling gates."""
        return self.counts(key).ready

    def first(self, key: str) -> Pod | None:
        """The member with the smallest name."""
        pods = self.members(key)
        return pods[0] if pods else None

    def bound(self, key: str) -> set[str]:
        """UIDs of live members bound to a node (a copy)."""
        return set(self._groups.get(key, _EMPTY).bound)

    def group_of(self, uid: str) -> str:
        return self._key_of.get(uid, "")

    def groups(self) -> list[str]:
        return list(self._groups)

    # -- internals ----------------------------------------------------------------------
    def _put(self, pod: Pod) -> str:
        key = pod_group_key(pod)
        if not key:
            return ""
        uid = pod.metadata.uid
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group()
        group.pods[uid] = pod
        group.account(pod, 1)
        self._key_of[uid] = key
        return key

    def _drop(self, uid: str, key: str) -> None:
        self._key_of.pop(uid, None)
        group = self._groups.get(key)
        if group is None:
            return
        old = group.pods.pop(uid, None)
        if old is not None:
            group.account(old, -1)
        if not group.pods:
            del self._groups[key]
