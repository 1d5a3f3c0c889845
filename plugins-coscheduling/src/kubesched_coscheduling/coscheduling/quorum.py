"""A group's members as the scheduler knows them, and the one count of its quorum.

scheduler-plugins #930: upstream counts the quorum in a set of pod names it maintains
beside the framework (added at Permit, removed at Unreserve), so any path that skips
Unreserve, or a name reused by a new pod, leaves a stale entry and a group passes with
members it does not have. Here the count is read, every time, from what the scheduler
itself holds, keyed by UID: the members bound or assumed on the snapshot's nodes, the
members bound in the cluster, and the members waiting in the framework's waiting-pods
map; a waiting member that was rejected (its binding cycle not yet unwound) is left out.
The only thing remembered is which pods this plugin itself let through or rejected, for
the moment between that decision and the framework catching up.
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
        self.passed: set[str] = set()
        """Members let through Permit by the plugin and not bound yet."""
        self.rejected: set[str] = set()
        """Waiting members the plugin rejected whose binding cycle has not unwound yet."""
        self._scan_key: tuple[int, int] | None = None
        self._scan: dict[str, set[str]] = {}

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

    def assigned(self, key: str, exclude: str = "", *, snapshot: bool = True) -> set[str]:
        """UIDs of the group's members holding a node: bound or assumed on the snapshot
        (`snapshot=False` between scheduling cycles, when it may be stale: the count can
        then only be lower), bound in the cluster, or waiting at Permit; minus waiting
        members already rejected, and minus `exclude`."""
        uids = set(self._snapshot_members().get(key, ())) if snapshot else set()
        uids.update(self._index.bound(key))
        uids.update(wp.pod.metadata.uid for wp in self.waiting(key))
        for uid in list(uids):
            wp = self._handle.get_waiting_pod(uid)
            decided = wp is not None and not wp.get_pending_plugins()
            if uid in self.rejected or (decided and uid not in self.passed):
                uids.discard(uid)
        uids.discard(exclude)
        return uids

    def apply(self, event: WatchEvent) -> tuple[str, str]:
        """Record a Pod event; returns the pod's group key before and after ("" for none)."""
        pod: Pod = event.obj
        uid = pod.metadata.uid
        before, after = self._index.apply(event)
        gone = event.type == "DELETED" or not is_live(pod)
        if gone or pod.spec.node_name:
            self.passed.discard(uid)  # bound: the snapshot and the cluster count it now
        if gone:
            self.rejected.discard(uid)
        return before, after

    def _snapshot_members(self) -> dict[str, set[str]]:
        """Group key -> UIDs of members on the snapshot's nodes; rescanned only when a
        node info changed."""
        snapshot = self._handle.snapshot
        nodes = snapshot.node_info_list
        fingerprint = (id(snapshot), hash(tuple(n.generation for n in nodes)))
        if fingerprint != self._scan_key:
            scan: dict[str, set[str]] = {}
            for info in nodes:
                for pinfo in info.pods:
                    key = pod_group_key(pinfo.pod)
                    if key:
                        scan.setdefault(key, set()).add(pinfo.pod.metadata.uid)
            self._scan_key, self._scan = fingerprint, scan
        return self._scan
