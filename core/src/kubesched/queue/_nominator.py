"""Nominated pods: preemptors waiting for their victims to leave a node.

Filter treats nominated pods of equal or higher priority as already on their node, so the
room a preemption made is not given to someone else meanwhile.

Upstream: pkg/scheduler/backend/queue/nominator.go.
"""

from __future__ import annotations

from collections.abc import KeysView, Mapping, Sequence
from types import MappingProxyType

from kubesched.api import Pod
from kubesched.framework import NominatingInfo, NominatingMode, PodInfo

__all__ = ["Nominator"]


class Nominator:
    """node name -> nominated PodInfos (in nomination order), and pod UID -> node name.

    A node's list is replaced, never changed in place: the same list object means the
    same nominated pods (`nominated_pods_by_node` readers rely on it)."""

    def __init__(self) -> None:
        self._by_node: dict[str, list[PodInfo]] = {}
        self._node_of: dict[str, str] = {}

    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: NominatingInfo | None) -> None:
        """Nominate the pod, replacing any earlier nomination.

        Mode Override uses `nominating_info.nominated_node_name` (empty clears); no info or
        mode Noop uses `pod.status.nominatedNodeName`. A bound pod is never nominated.
        """
        pod = pod_info.pod
        self.delete_nominated_pod_if_exists(pod)
        if nominating_info is not None and nominating_info.mode is NominatingMode.Override:
            node_name = nominating_info.nominated_node_name
        else:
            node_name = pod.status.nominated_node_name
        # upstream also drops pods gone from the informer; deletes reach us through delete().
        if not node_name or pod.spec.node_name:
            return
        uid = pod.metadata.uid
        self._node_of[uid] = node_name
        pods = self._by_node.get(node_name, [])
        if all(p.uid != uid for p in pods):
            self._by_node[node_name] = [*pods, pod_info]

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        node_name = self._node_of.pop(pod.metadata.uid, None)
        if node_name is None:
            return
        uid = pod.metadata.uid
        remaining = [p for p in self._by_node.get(node_name, ()) if p.uid != uid]
        if remaining:
            self._by_node[node_name] = remaining
        else:
            self._by_node.pop(node_name, None)

    def update_nominated_pod(self, old: Pod, new_pod_info: PodInfo) -> None:
        """Swap in the new pod object. When neither version carries a nominatedNodeName, an
        in-memory nomination made since (by preemption) is kept."""
        info: NominatingInfo | None = None
        if not old.status.nominated_node_name and not new_pod_info.pod.status.nominated_node_name:
            node_name = self._node_of.get(old.metadata.uid)
            if node_name:
                info = NominatingInfo(node_name, NominatingMode.Override)
        self.delete_nominated_pod_if_exists(old)
        self.add_nominated_pod(new_pod_info, info)

    def has_nominated_pods(self) -> bool:
        """Whether any pod is nominated anywhere (a cheap check before per-node lookups)."""
        return bool(self._by_node)

    def nominated_pods_by_node(self) -> Mapping[str, Sequence[PodInfo]]:
        """node name -> the pods nominated to it, read-only and live (read it at once, do
        not keep it). A node's list object is replaced whenever its pods change, so the
        same object is the same pods: a reader may key what it derives on it."""
        return MappingProxyType(self._by_node)

    def nodes_with_nominated_pods(self) -> KeysView[str]:
        """The names of the nodes some pod is nominated to, in one call (a live view: read
        it at once, do not keep it). The fast path's Filter takes these nodes one by one
        with their nominated pods and the others as arrays."""
        return self._by_node.keys()

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """A new list (safe to keep) of the pods nominated to `node_name`."""
        return list(self._by_node.get(node_name, ()))

    def nominated_node(self, uid: str) -> str | None:
        return self._node_of.get(uid)
