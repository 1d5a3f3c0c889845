"""A group's members as the scheduler knows them, and the one count of its quorum.

scheduler-plugins #930: upstream counts the quorum in a set of pod names it maintains
beside the framework (added at Permit, removed at Unreserve), so any path that skips
Unreserve, or a name reused by a new pod, leaves a stale entry and a group passes with
members it does not have. Here the count is read, every time, from what the scheduler
itself holds, keyed by UID: the members bound in the cluster, the members in the
framework's waiting-pods map (minus those already rejected, whose binding cycle has not
unwound yet), and the members assumed in the scheduler cache (the snapshot) whose binding
is in flight. For the last ones the plugin remembers where it let them through, so that it
looks at one node of the snapshot instead of scanning them all.
"""

from __future__ import annotations

from typing import Any

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched.framework import Handle, WaitingPod
from kubesched_coscheduling.names import POD_GROUP_KIND
from kubesched_coscheduling.podgroup import MemberIndex, PodGroup, is_live, pod_group_key

__all__ = ["GroupMembers"]


def _list(cluster: Any, kind: str) -> list[Any]:
    lister = getattr(cluster, "list", None)
    if not callable(lister):
        return []
    items: list[Any] = lister(kind)
    return items


class GroupMembers:
    """Members of every PodGroup, for one profile's plugin."""

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        self._index = MemberIndex(_list(handle.cluster, "Pod"))
        self.passed: dict[str, tuple[str, str]] = {}
        """Members the plugin let through Permit, not bound yet: UID -> (group, node)."""
        self.rejected: set[str] = set()
        """Waiting members the plugin rejected whose binding cycle has not unwound yet."""
        self.evicting: set[str] = set()
        """Members a preemption chose as victims that the cluster still shows alive."""

    def pod_group(self, key: str) -> PodGroup | None:
        cluster = self._handle.cluster
        if cluster is None:
            return None
        namespace, _, name = key.partition("/")
        pg: PodGroup | None = cluster.get(POD_GROUP_KIND, name, namespace)
        return pg

    def live(self, key: str) -> list[Pod]:
        """The group's members that can still run (not finished, not being deleted)."""
        return [p for p in self._index.members(key) if is_live(p)]

    def live_count(self, key: str) -> int:
        return self._index.live_count(key)

    def ready_count(self, key: str) -> int:
        """Live members without scheduling gates."""
        return self._index.ready_count(key)

    def pending(self, key: str) -> list[Pod]:
        """Live members not bound to a node."""
        return [p for p in self.live(key) if not p.spec.node_name]

    def waiting(self, key: str) -> list[WaitingPod]:
        """The group's members in the framework's waiting-pods map."""
        found: list[WaitingPod] = []
        self._handle.iterate_over_waiting_pods(
            lambda wp: found.append(wp) if pod_group_key(wp.pod) == key else None
        )
        return found

    def let_through(self, key: str, pod: Pod) -> None:
        """The plugin let this member (assumed on `pod.spec.nodeName`) through Permit."""
        self.passed[pod.metadata.uid] = (key, pod.spec.node_name)

    def forget(self, uid: str) -> None:
        """The member was unreserved: it holds nothing any more."""
        self.passed.pop(uid, None)
        self.rejected.discard(uid)

    def assigned(self, key: str, exclude: str = "", *, snapshot: bool = True) -> set[str]:
        """UIDs of the group's members holding a node: bound in the cluster, waiting at
        Permit (minus those already rejected), or let through Permit and still assumed in
        the snapshot (between scheduling cycles, `snapshot=False`, the snapshot may be stale
        and they are counted as let through); minus `exclude`."""
        uids = self._index.bound(key)
        for wp in self.waiting(key):
            uid = wp.pod.metadata.uid
            decided = not wp.get_pending_plugins()
            if uid not in self.rejected and (not decided or uid in self.passed):
                uids.add(uid)
        nodes = self._handle.snapshot
        for uid, (group, node) in self.passed.items():
            if group != key or uid in uids:
                continue
            info = nodes.get(node) if snapshot else None
            if not snapshot or (
                info is not None and any(p.pod.metadata.uid == uid for p in info.pods)
            ):
                uids.add(uid)
        uids.discard(exclude)
        return uids

    def apply(self, event: WatchEvent) -> tuple[str, str]:
        """Record a Pod event; returns the pod's group key before and after ("" for none)."""
        pod: Pod = event.obj
        uid = pod.metadata.uid
        before, after = self._index.apply(event)
        gone = event.type == "DELETED" or not is_live(pod)
        if gone or pod.spec.node_name:
            self.passed.pop(uid, None)  # bound: the cluster counts it from now on
        if gone:
            self.rejected.discard(uid)
            self.evicting.discard(uid)
        return before, after
