"""The resource.k8s.io/v1 kinds as the manifest loader and the cluster stores know them."""

from __future__ import annotations

from typing import Final

from kubesched.api import KindInfo
from kubesched_dra.api._claim import ResourceClaim, ResourceClaimTemplate
from kubesched_dra.api._class import DeviceClass
from kubesched_dra.api._slice import ResourceSlice

__all__ = ["RESOURCE_V1", "dra_kinds"]

RESOURCE_V1: Final = "resource.k8s.io/v1"


def dra_kinds() -> list[KindInfo]:
    """Every kind this package registers through `kubesched_register_kinds`."""
    return [
        KindInfo(RESOURCE_V1, "DeviceClass", "deviceclasses", False, DeviceClass),
        KindInfo(RESOURCE_V1, "ResourceClaim", "resourceclaims", True, ResourceClaim),
        KindInfo(
            RESOURCE_V1,
            "ResourceClaimTemplate",
            "resourceclaimtemplates",
            True,
            ResourceClaimTemplate,
        ),
        KindInfo(RESOURCE_V1, "ResourceSlice", "resourceslices", False, ResourceSlice),
    ]
