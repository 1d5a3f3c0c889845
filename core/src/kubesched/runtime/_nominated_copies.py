"""Copies of nodes with their nominated pods added, kept while neither changes.

Not in upstream, where addGENominatedPods clones the node for every Filter call on a node
with nominated pods. While preemptors wait for their victims to leave, every other pod's
search meets the same nodes with the same nominated pods, cycle after cycle; the copy
depends only on the node (its generation, which every change renews) and the pods added
(the same PodInfo objects in the same order), and Filter never changes it, so one copy
serves until either changes.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from operator import is_

from kubesched.framework import NodeInfo, PodInfo

__all__ = ["NominatedCopies"]


class NominatedCopies:
    """node name -> (generation, pods added, the copy), at most one per node; and node
    name -> what the pods nominated to it are (the nominator's sequence, their lowest
    priority, their uids)."""

    __slots__ = ("_kept", "_listed")

    def __init__(self) -> None:
        self._kept: dict[str, tuple[int, Sequence[PodInfo], NodeInfo]] = {}
        self._listed: dict[str, tuple[Sequence[PodInfo], int, frozenset[str]]] = {}

    def with_pods(self, info: NodeInfo, pods: Sequence[PodInfo]) -> NodeInfo:
        """A copy of `info` with `pods` added in order (`NodeInfo.add_pod_info`), not to be
        changed by the caller: the one made before when neither changed since."""
        kept = self._kept.get(info.name)
        if (
            kept is not None
            and kept[0] == info.generation
            and (kept[1] is pods or (len(kept[1]) == len(pods) and all(map(is_, kept[1], pods))))
        ):
            return kept[2]
        copy = info.clone()
        for pi in pods:
            copy.add_pod_info(pi)
        self._kept[info.name] = (info.generation, pods, copy)
        return copy

    def with_nominated(
        self, info: NodeInfo, listed: Sequence[PodInfo], priority: int, uid: str
    ) -> NodeInfo | None:
        """The copy of `info` with the pods of `listed` (the pods nominated to it, a
        sequence the nominator replaces, never changes) that Filter counts for a pod of
        `priority` and `uid`: those of equal or higher priority, other than the pod itself
        (upstream addGENominatedPods); None when none counts. When all of them count (the
        usual case), it is found from the node and `listed` alone."""
        known = self._listed.get(info.name)
        if known is None or known[0] is not listed:
            lowest = min(pi.pod.spec.priority or 0 for pi in listed)
            known = (listed, lowest, frozenset(pi.pod.metadata.uid for pi in listed))
            self._listed[info.name] = known
        if known[1] >= priority and uid not in known[2]:
            return self.with_pods(info, listed)
        counted = [
            pi
            for pi in listed
            if (pi.pod.spec.priority or 0) >= priority and pi.pod.metadata.uid != uid
        ]
        return self.with_pods(info, counted) if counted else None

    def __len__(self) -> int:
        return len(self._kept)

    def keep_only(self, node_names: Collection[str]) -> None:
        """Forget the nodes not named (those no pod is nominated to now)."""
        self._kept = {name: kept for name, kept in self._kept.items() if name in node_names}
        self._listed = {name: known for name, known in self._listed.items() if name in node_names}
