"""Pods by PodGroup, kept current from the cluster's Pod watch.

Both the plugin and the status controller need a group's members many times; listing every
pod of the cluster each time would cost O(pods) per question. The index answers in
O(members) and reports, for each pod event, which groups it touched.
"""

from __future__ import annotations

from collections.abc import Iterable

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched_coscheduling.podgroup.types import pod_group_key

__all__ = ["MemberIndex", "is_live", "is_ungated"]


def is_live(pod: Pod) -> bool:
    """Neither finished (Succeeded/Failed) nor being deleted: a member that can still run."""
    return not pod.is_terminal and not pod.is_terminating


def is_ungated(pod: Pod) -> bool:
    """Without scheduling gates (upstream counts only these toward the quorum)."""
    return not pod.spec.scheduling_gates


class MemberIndex:
    """Pods carrying the pod-group label, by `namespace/group` key."""

    def __init__(self, pods: Iterable[Pod] = ()) -> None:
        self._by_group: dict[str, dict[str, Pod]] = {}
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
        after = self._put(pod)
        if before and before != after:
            self._drop_from(uid, before)
        return before, after

    def members(self, key: str) -> list[Pod]:
        """The group's pods (terminal ones included), by name."""
        pods = self._by_group.get(key)
        if not pods:
            return []
        return sorted(pods.values(), key=lambda p: p.metadata.name)

    def group_of(self, uid: str) -> str:
        return self._key_of.get(uid, "")

    def groups(self) -> list[str]:
        return list(self._by_group)

    # -- internals ----------------------------------------------------------------------
    def _put(self, pod: Pod) -> str:
        key = pod_group_key(pod)
        uid = pod.metadata.uid
        if not key:
            self._drop(uid, self._key_of.get(uid, ""))
            return ""
        self._by_group.setdefault(key, {})[uid] = pod
        self._key_of[uid] = key
        return key

    def _drop(self, uid: str, key: str) -> None:
        self._key_of.pop(uid, None)
        if key:
            self._drop_from(uid, key)

    def _drop_from(self, uid: str, key: str) -> None:
        pods = self._by_group.get(key)
        if pods is None:
            return
        pods.pop(uid, None)
        if not pods:
            del self._by_group[key]
