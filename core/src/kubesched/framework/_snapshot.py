"""Snapshot: the cluster as one scheduling cycle sees it.

Upstream: pkg/scheduler/backend/cache/snapshot.go. The cache refreshes it at the start of a
cycle; it does not change until the cycle ends. Besides the per-node objects, node state is
reachable as columns (`NodeColumns`: numpy arrays in node-list order), the seam for
Filter/Score paths over many nodes at once. Columns and the derived node lists are kept
across cycles and patched for the nodes the cache swaps in (`replace`), rebuilt only when
the node list is laid out anew (`set_nodes`).
"""

from __future__ import annotations

import builtins
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import final

from kubesched.framework._node_columns import NodeColumns
from kubesched.framework._node_info import NodeInfo

__all__ = ["NodeColumns", "Snapshot"]


@final
class Snapshot:
    """Nodes of one cycle, in the scheduler's iteration order (zones interleaved)."""

    __slots__ = (
        "_columns",
        "_position",
        "_with_affinity",
        "_with_anti_affinity",
        "generation",
        "node_info_list",
        "node_info_map",
    )

    def __init__(self, node_infos: Sequence[NodeInfo] = ()) -> None:
        self.node_info_list: list[NodeInfo] = []
        self.node_info_map: dict[str, NodeInfo] = {}
        self._position: dict[str, int] = {}
        self._with_affinity: builtins.list[NodeInfo] | None = None
        self._with_anti_affinity: builtins.list[NodeInfo] | None = None
        self._columns: NodeColumns | None = None
        self.generation: int = 0  # NodeInfo generation the cache last brought this snapshot up to
        self.set_nodes(node_infos)

    def set_nodes(self, node_infos: Sequence[NodeInfo]) -> None:
        """Replace the node list (the cache calls this when a cycle starts)."""
        self.node_info_list = list(node_infos)
        self.node_info_map = {n.name: n for n in self.node_info_list}
        self._position = {n.name: i for i, n in enumerate(self.node_info_list)}
        self.refresh_lists()

    def refresh_lists(self) -> None:
        """Forget the derived lists and the columns (rebuilt on first use): for a caller that
        changed node infos in place rather than through `replace`."""
        self._with_affinity = None
        self._with_anti_affinity = None
        self._columns = None

    def replace(self, index: int, info: NodeInfo) -> None:
        """Put `info`, a newer clone of the node at `index`, in its place (the cache's patch
        of a changed node). The columns get that one row anew; a derived list changes only
        when the old or the new clone belongs to it."""
        old = self.node_info_list[index]
        self.node_info_list[index] = info
        self.node_info_map[info.name] = info
        self._with_affinity = self._patched(
            self._with_affinity,
            old,
            info,
            bool(old.pods_with_affinity),
            bool(info.pods_with_affinity),
        )
        self._with_anti_affinity = self._patched(
            self._with_anti_affinity,
            old,
            info,
            bool(old.pods_with_required_anti_affinity),
            bool(info.pods_with_required_anti_affinity),
        )
        if self._columns is not None:
            self._columns.replace(index, info)

    def _patched(
        self,
        nodes: builtins.list[NodeInfo] | None,
        old: NodeInfo,
        new: NodeInfo,
        old_in: bool,
        new_in: bool,
    ) -> builtins.list[NodeInfo] | None:
        """A derived list (in node-list order) with `old` swapped for `new`."""
        if nodes is None or not (old_in or new_in):
            return nodes
        position = self._position
        at = bisect_left(nodes, position[new.name], key=lambda n: position[n.name])
        if old_in:
            if new_in:
                nodes[at] = new
            else:
                del nodes[at]
        else:
            nodes.insert(at, new)
        return nodes

    @property
    def have_pods_with_affinity(self) -> builtins.list[NodeInfo]:
        """Nodes holding at least one pod with (anti-)affinity terms."""
        if self._with_affinity is None:
            self._with_affinity = [n for n in self.node_info_list if n.pods_with_affinity]
        return self._with_affinity

    @property
    def have_pods_with_required_anti_affinity(self) -> builtins.list[NodeInfo]:
        """Nodes holding at least one pod with required anti-affinity terms."""
        if self._with_anti_affinity is None:
            self._with_anti_affinity = [
                n for n in self.node_info_list if n.pods_with_required_anti_affinity
            ]
        return self._with_anti_affinity

    def get(self, name: str) -> NodeInfo | None:
        return self.node_info_map.get(name)

    def list(self) -> builtins.list[NodeInfo]:
        return self.node_info_list

    def __len__(self) -> int:
        return len(self.node_info_list)

    def __iter__(self) -> Iterator[NodeInfo]:
        return iter(self.node_info_list)

    @property
    def columns(self) -> NodeColumns:
        """Node state as arrays, built on first use after the node list was laid out, then
        patched with every `replace`."""
        if self._columns is None:
            self._columns = NodeColumns.build(self.node_info_list)
        return self._columns
