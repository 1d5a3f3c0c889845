"""Snapshot: the cluster as one scheduling cycle sees it.

Upstream: pkg/scheduler/backend/cache/snapshot.go. The cache refreshes it at the start of a
cycle; it does not change until the cycle ends. Besides the per-node objects, node state is
reachable as columns (one numpy array per resource, in node-list order), the seam for
vectorized Filter/Score paths.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import final

import numpy as np
import numpy.typing as npt

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from kubesched.framework._node_info import NodeInfo

__all__ = ["NodeColumns", "Snapshot"]

_BASIC = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)


@dataclass(frozen=True)
class NodeColumns:
    """Node state as arrays aligned with `names` (CPU in millicores, others in base units)."""

    names: list[str]
    index: dict[str, int]
    allocatable: dict[str, npt.NDArray[np.int64]]
    requested: dict[str, npt.NDArray[np.int64]]
    non_zero_requested: dict[str, npt.NDArray[np.int64]]
    pod_count: npt.NDArray[np.int64]

    @classmethod
    def build(cls, nodes: Sequence[NodeInfo]) -> NodeColumns:
        names = [n.name for n in nodes]
        resources = list(_BASIC)
        for n in nodes:
            for r in n.allocatable.scalar:
                if r not in resources:
                    resources.append(r)
        alloc = {r: np.fromiter((n.allocatable.get(r) for n in nodes), np.int64) for r in resources}
        req = {r: np.fromiter((n.requested.get(r) for n in nodes), np.int64) for r in resources}
        nz = {
            r: np.fromiter((n.non_zero_requested.get(r) for n in nodes), np.int64)
            for r in (CPU, MEMORY)
        }
        pods = np.fromiter((len(n.pods) for n in nodes), np.int64)
        return cls(names, {name: i for i, name in enumerate(names)}, alloc, req, nz, pods)


@final
class Snapshot:
    """Nodes of one cycle, in the scheduler's iteration order (zones interleaved)."""

    __slots__ = (
        "_columns",
        "_with_affinity",
        "_with_anti_affinity",
        "generation",
        "node_info_list",
        "node_info_map",
    )

    def __init__(self, node_infos: Sequence[NodeInfo] = ()) -> None:
        self.node_info_list: list[NodeInfo] = []
        self.node_info_map: dict[str, NodeInfo] = {}
        self._with_affinity: builtins.list[NodeInfo] | None = None
        self._with_anti_affinity: builtins.list[NodeInfo] | None = None
        self._columns: NodeColumns | None = None
        self.generation = 0  # NodeInfo generation the cache last brought this snapshot up to
        self.set_nodes(node_infos)

    def set_nodes(self, node_infos: Sequence[NodeInfo]) -> None:
        """Replace the node list (the cache calls this when a cycle starts)."""
        self.node_info_list = list(node_infos)
        self.node_info_map = {n.name: n for n in self.node_info_list}
        self.refresh_lists()

    def refresh_lists(self) -> None:
        """Forget the derived lists after node infos changed; they are rebuilt on first use."""
        self._with_affinity = None
        self._with_anti_affinity = None
        self._columns = None

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
        """Node state as arrays, built on first use in a cycle."""
        if self._columns is None:
            self._columns = NodeColumns.build(self.node_info_list)
        return self._columns
