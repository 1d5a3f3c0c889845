"""Copies of nodes with their nominated pods added, kept while neither changes.

Not in upstream, where addGENominatedPods clones the node for every Filter call on a node
with nominated pods. While preemptors wait for their victims to leave, every other pod's
search meets the same nodes with the same nominated pods, cycle after cycle; the copy
depends only on the node (its generation, which every change renews) and the pods added
(the same PodInfo objects in the same order), and Filter never changes it, so one copy
serves until either changes.
"""

from __future__ import annotations

from collections.abc import Collection
from operator import is_

from kubesched.framework import NodeInfo, PodInfo

__all__ = ["NominatedCopies"]


class NominatedCopies:
    """node name -> (generation, pods added, the copy), at most one per node."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[str, tuple[int, list[PodInfo], NodeInfo]] = {}

    def with_pods(self, info: NodeInfo, pods: list[PodInfo]) -> NodeInfo:
        """A copy of `info` with `pods` added in order (`NodeInfo.add_pod_info`), not to be
        changed by the caller: the one made before when neither changed since."""
        kept = self._kept.get(info.name)
        if (
            kept is not None
            and kept[0] == info.generation
            and len(kept[1]) == len(pods)
            and all(map(is_, kept[1], pods))
        ):
            return kept[2]
        copy = info.clone()
        for pi in pods:
            copy.add_pod_info(pi)
        self._kept[info.name] = (info.generation, pods, copy)
        return copy

    def __len__(self) -> int:
        return len(self._kept)

    def keep_only(self, node_names: Collection[str]) -> None:
        """Forget the copies of the nodes not named (those no pod is nominated to now)."""
        self._kept = {name: kept for name, kept in self._kept.items() if name in node_names}
