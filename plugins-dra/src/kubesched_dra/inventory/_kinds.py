"""DeviceInventory as the manifest loader and the cluster stores know it."""

from __future__ import annotations

from kubesched.api import KindInfo
from kubesched_dra.inventory._models import INVENTORY_API_VERSION, DeviceInventory
from kubesched_dra.inventory._validation import validate_device_inventory

__all__ = ["inventory_kind"]


def inventory_kind() -> KindInfo:
    """The kind `kubesched_register_kinds` registers beside resource.k8s.io/v1's."""
    return KindInfo(
        INVENTORY_API_VERSION,
        "DeviceInventory",
        "deviceinventories",
        False,
        DeviceInventory,
        validate_device_inventory,
    )
