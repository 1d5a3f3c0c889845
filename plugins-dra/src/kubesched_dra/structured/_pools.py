"""Which resource pools, and which of their slices, a node can use.

upstream: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/stable/
pools_stable.go (GatherPools, addSlice, poolIsInvalid, nodeMatches).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kubesched.api import Node
from kubesched_dra.api import ResourceSlice

__all__ = ["Pool", "SliceIndex", "node_matches"]


def node_matches(node: Node, slice_: ResourceSlice) -> bool:
    """Whether `slice_` (by `nodeName`, `allNodes` or `nodeSelector`) is available on `node`."""
    spec = slice_.spec
    if spec.node_name:
        return node.name == spec.node_name
    if spec.all_nodes:
        return True
    if spec.node_selector is not None:
        return spec.node_selector.matches(node.name, node.metadata.labels)
    return False


@dataclass(slots=True, eq=False)
class Pool:
    """The slices of one pool (driver, name) that a node can use, all of the newest
    generation seen. Incomplete: fewer slices than the pool's `resourceSliceCount`;
    invalid: a device name appears twice."""

    driver: str
    name: str
    slices: list[ResourceSlice] = field(default_factory=list)
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"

    def _add(self, slice_: ResourceSlice) -> None:
        # upstream addSlice: older generations are ignored, a newer one replaces the rest.
        if self.slices:
            current = self.slices[0].spec.pool.generation
            if slice_.spec.pool.generation < current:
                return
            if slice_.spec.pool.generation > current:
                self.slices = []
        self.slices.append(slice_)

    def _finish(self) -> None:
        self.incomplete = len(self.slices) != self.slices[0].spec.pool.resource_slice_count
        seen: set[str] = set()
        for slice_ in self.slices:
            for device in slice_.spec.devices:
                if device.name in seen:
                    self.invalid = True
                    self.invalid_reason = f"duplicate device name {device.name}"
                    return
                seen.add(device.name)


class SliceIndex:
    """The slices by how they pick nodes, so gathering a node's pools reads only the
    slices of that node, those for all nodes and those with a node selector.

    Building one reads every slice, so a caller allocating for many pods keeps one and
    builds a new one when the slices change. A node's pools are gathered once and kept
    (by node name, and by its labels too while slices with a node selector exist): the
    slices do not change under an index, and pools are only read. Slices with
    `perDeviceNodeSelection` (partitionable devices, off in v1.34) and slices naming no
    node at all (a future field) are left out, as upstream does."""

    __slots__ = ("_by_node", "_pools", "_selected", "_shared")

    def __init__(self, slices: Iterable[ResourceSlice]) -> None:
        # (position in `slices`, slice): positions keep the given order when merging.
        self._by_node: dict[str, list[tuple[int, ResourceSlice]]] = {}
        self._shared: list[tuple[int, ResourceSlice]] = []
        self._pools: dict[str, tuple[dict[str, str], list[Pool]]] = {}
        by_node = self._by_node
        for position, slice_ in enumerate(slices):
            spec = slice_.spec
            if spec.per_device_node_selection is not None:
                continue
            if spec.node_name:
                entries = by_node.get(spec.node_name)
                if entries is None:
                    by_node[spec.node_name] = [(position, slice_)]
                else:
                    entries.append((position, slice_))
            elif spec.all_nodes or spec.node_selector is not None:
                self._shared.append((position, slice_))
        # whether a node's labels decide which slices it gets
        self._selected = any(s.spec.node_selector is not None for _, s in self._shared)

    def slices_for(self, node: Node) -> list[ResourceSlice]:
        """The slices available on `node`, in the order they were given."""
        own = self._by_node.get(node.name, [])
        shared = [entry for entry in self._shared if node_matches(node, entry[1])]
        if shared:
            own = sorted(own + shared, key=lambda entry: entry[0])
        return [slice_ for _, slice_ in own]

    def gather_pools(self, node: Node) -> list[Pool]:
        """upstream GatherPools: the pools of `node`'s slices, in the order each pool's
        first slice was given (upstream's order is a Go map's, so unspecified). The list
        is shared by every caller asking for the same node: read it, do not change it."""
        labels = node.metadata.labels
        kept = self._pools.get(node.name)
        if kept is not None and (not self._selected or kept[0] == labels):
            return kept[1]
        gathered = self._gather(node)
        self._pools[node.name] = (dict(labels), gathered)
        return gathered

    def _gather(self, node: Node) -> list[Pool]:
        pools: dict[tuple[str, str], Pool] = {}
        for slice_ in self.slices_for(node):
            key = (slice_.spec.driver, slice_.spec.pool.name)
            pool = pools.get(key)
            if pool is None:
                pool = pools[key] = Pool(*key)
            pool._add(slice_)
        for pool in pools.values():
            pool._finish()
        return list(pools.values())
