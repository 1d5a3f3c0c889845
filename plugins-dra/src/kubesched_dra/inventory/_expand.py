"""A DeviceInventory's ResourceSlices for one node."""

from __future__ import annotations

from typing import Final

from kubesched.api import Node, ObjectMeta, OwnerReference
from kubesched_dra.api import (
    RESOURCE_SLICE_MAX_DEVICES,
    RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS,
    Device,
    DeviceAttribute,
    ResourcePool,
    ResourceSlice,
    ResourceSliceSpec,
)
from kubesched_dra.inventory._models import DeviceInventory

__all__ = ["INVENTORY_LABEL", "devices_of", "slices_for"]

INVENTORY_LABEL: Final = "simulation.kubesched.io/device-inventory"
"""On each generated ResourceSlice: the name of the DeviceInventory it comes from."""


def devices_of(inventory: DeviceInventory) -> list[Device]:
    """Every device of the inventory, in the order written."""
    devices: list[Device] = []
    for entry in inventory.spec.devices:
        attributes, capacities = entry.attributes, entry.capacity
        for index, name in enumerate(entry.device_names()):
            own = dict(attributes)
            if entry.index_attribute is not None:
                own[entry.index_attribute] = DeviceAttribute(int_value=index)
            devices.append(
                Device(
                    name=name,
                    attributes=own,
                    capacity=dict(capacities),
                    taints=list(entry.taints),
                )
            )
    return devices


def slices_for(
    inventory: DeviceInventory,
    node: Node,
    generation: int = 1,
    devices: list[Device] | None = None,
) -> list[ResourceSlice]:
    """The pool `node.name` of the inventory's driver, on that node: as many slices as
    the per-slice device limit needs, each owned by the node (as the kubelet's slices
    are, so they go with it) and labelled with the inventory's name. `devices` are the
    inventory's (`devices_of`), when the caller has them already."""
    devices = devices_of(inventory) if devices is None else devices
    tainted = any(d.taints for d in devices)
    limit = (
        RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS
        if tainted
        else RESOURCE_SLICE_MAX_DEVICES
    )
    chunks = [devices[i : i + limit] for i in range(0, len(devices), limit)] or [[]]
    driver = inventory.spec.driver
    owner = OwnerReference(
        api_version="v1",
        kind="Node",
        name=node.metadata.name,
        uid=node.metadata.uid,
        controller=True,
    )
    pool = ResourcePool(
        name=node.metadata.name, generation=generation, resource_slice_count=len(chunks)
    )
    return [
        ResourceSlice(
            metadata=ObjectMeta(
                generate_name=f"{node.metadata.name}-{driver}-",
                labels={INVENTORY_LABEL: inventory.metadata.name},
                owner_references=[owner],
            ),
            spec=ResourceSliceSpec(
                driver=driver, pool=pool, node_name=node.metadata.name, devices=chunk
            ),
        )
        for chunk in chunks
    ]
