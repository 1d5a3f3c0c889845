"""The DeviceInventory controller of the embedded cluster: publishes each inventory's
devices as ResourceSlices on the nodes it selects, as a DRA driver's kubelet plugin
publishes a node's devices.

A node that starts matching (created, or relabelled) gets its slices; one that stops
matching, or is deleted, loses them (upstream: the garbage collector deletes slices whose
owner Node is gone); an inventory created, changed or deleted is applied to every node.
A changed inventory replaces the node's pool with the next generation. Slices it did not
make (no `simulation.kubesched.io/device-inventory` label) are left alone.
"""

from __future__ import annotations

from typing import Final

from kubesched.api import Node
from kubesched.cluster import Cluster, WatchEvent, WorkQueue
from kubesched_dra.api import Device, ResourceSlice, ResourceSliceSpec
from kubesched_dra.inventory._expand import INVENTORY_LABEL, devices_of, slices_for
from kubesched_dra.inventory._models import DeviceInventory

__all__ = ["DeviceInventoryController"]

_ALL: Final = ""


class DeviceInventoryController:
    """Keeps the ResourceSlices of every DeviceInventory in the memory cluster (a
    `kubesched.cluster.Controller`)."""

    name = "device-inventory"

    def __init__(self) -> None:
        self._cluster: Cluster | None = None
        # node names, or _ALL for every node; a failed sync is not retried
        self._queue = WorkQueue(self.name, self._sync, retry_on=())
        # node -> name -> slice, of the slices inventories made; kept from the watch and
        # from this controller's own writes (which it must see before their events come)
        self._slices: dict[str, dict[str, ResourceSlice]] = {}
        # inventory name -> (its resourceVersion, its devices): built once per version,
        # shared by every node's slices (the cluster stores a copy of each)
        self._devices: dict[str, tuple[str | None, list[Device]]] = {}

    @property
    def cluster(self) -> Cluster:
        assert self._cluster is not None, "DeviceInventoryController.start() was not called"
        return self._cluster

    def start(self, cluster: Cluster) -> None:
        self._cluster = cluster
        cluster.watch("Node", self._on_node)
        cluster.watch("DeviceInventory", self._on_inventory)
        cluster.watch("ResourceSlice", self._on_slice)

    def busy(self) -> bool:
        return self._queue.busy()

    def _on_node(self, event: WatchEvent) -> None:
        old, new = event.old, event.obj
        if (
            event.type == "MODIFIED"
            and old is not None
            and old.metadata.labels == new.metadata.labels
        ):
            return
        self._add(new.metadata.name)

    def _on_inventory(self, event: WatchEvent) -> None:
        if event.type == "MODIFIED" and event.old is not None and event.old.spec == event.obj.spec:
            return
        self._add(_ALL)

    def _on_slice(self, event: WatchEvent) -> None:
        self._note(event.obj, deleted=event.type == "DELETED")

    def _note(self, slice_: ResourceSlice, *, deleted: bool) -> None:
        node = slice_.spec.node_name
        if INVENTORY_LABEL not in slice_.metadata.labels or not node:
            return
        if deleted:
            self._slices.get(node, {}).pop(slice_.metadata.name, None)
        else:
            self._slices.setdefault(node, {})[slice_.metadata.name] = slice_

    def _add(self, node: str) -> None:
        self._queue.add(node)

    async def _sync(self, node: str) -> None:
        if node != _ALL:
            await self.sync_node(node)
            return
        names = {n.metadata.name for n in self.cluster.list("Node")}
        names |= {name for name, slices in self._slices.items() if slices}
        for name in sorted(names):
            await self.sync_node(name)

    async def sync_node(self, name: str) -> None:
        """Bring the node's inventory slices to what the inventories say now: per
        inventory, create, replace (next pool generation) or delete them."""
        node: Node | None = self.cluster.get("Node", name)
        existing: dict[str, list[ResourceSlice]] = {}
        for s in self._slices.get(name, {}).values():
            existing.setdefault(s.metadata.labels[INVENTORY_LABEL], []).append(s)
        wanted = {
            inv.metadata.name: inv
            for inv in self.cluster.list("DeviceInventory")
            if isinstance(inv, DeviceInventory)
            and node is not None
            and inv.selects(name, node.metadata.labels)
        }
        for inventory_name, slices in existing.items():
            inventory = wanted.get(inventory_name)
            if inventory is not None and node is not None and self._same(slices, inventory, node):
                del wanted[inventory_name]
                continue
            for s in slices:
                await self.cluster.delete("ResourceSlice", s.metadata.name)
                self._note(s, deleted=True)
            if inventory is not None and node is not None:
                generation = max(s.spec.pool.generation for s in slices) + 1
                await self._publish(inventory, node, generation)
                del wanted[inventory_name]
        for inventory in wanted.values():
            assert node is not None
            await self._publish(inventory, node, 1)

    def _devices_of(self, inventory: DeviceInventory) -> list[Device]:
        version = inventory.metadata.resource_version
        known = self._devices.get(inventory.metadata.name)
        if known is None or known[0] != version:
            known = (version, devices_of(inventory))
            self._devices[inventory.metadata.name] = known
        return known[1]

    def _same(self, slices: list[ResourceSlice], inventory: DeviceInventory, node: Node) -> bool:
        """Whether the node's slices of `inventory` hold what it would publish now."""
        generation = slices[0].spec.pool.generation
        devices = self._devices_of(inventory)
        wanted = [s.spec for s in slices_for(inventory, node, generation, devices)]
        return sorted((s.spec for s in slices), key=_first_device) == wanted

    async def _publish(self, inventory: DeviceInventory, node: Node, generation: int) -> None:
        for new in slices_for(inventory, node, generation, self._devices_of(inventory)):
            created = await self.cluster.create(new)
            assert isinstance(created, ResourceSlice)
            self._note(created, deleted=False)


def _first_device(spec: ResourceSliceSpec) -> str:
    """Slices of one pool in the order `slices_for` makes them: by their first device."""
    return spec.devices[0].name if spec.devices else ""
