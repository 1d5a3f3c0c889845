"""DeviceInventory (simulation.kubesched.io/v1alpha1): a compact declaration of the devices
of many nodes, published as ResourceSlices by its controller in the embedded cluster."""

from kubesched_dra.inventory._controller import DeviceInventoryController
from kubesched_dra.inventory._expand import INVENTORY_LABEL, devices_of, slices_for
from kubesched_dra.inventory._kinds import inventory_kind
from kubesched_dra.inventory._models import (
    INVENTORY_API_VERSION,
    DeviceInventory,
    DeviceInventorySpec,
    DeviceSet,
)
from kubesched_dra.inventory._validation import validate_device_inventory

__all__ = [
    "INVENTORY_API_VERSION",
    "INVENTORY_LABEL",
    "DeviceInventory",
    "DeviceInventoryController",
    "DeviceInventorySpec",
    "DeviceSet",
    "devices_of",
    "inventory_kind",
    "slices_for",
    "validate_device_inventory",
]
