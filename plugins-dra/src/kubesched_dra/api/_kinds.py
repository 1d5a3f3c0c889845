"""The resource.k8s.io/v1 kinds as the manifest loader and the cluster stores know them."""

from __future__ import annotations

from typing import Final

from kubesched.api import KindInfo
from kubesched_dra.api._claim import ResourceClaim, ResourceClaimTemplate
from kubesched_dra.api._class import DeviceClass
from kubesched_dra.api._slice import ResourceSlice
from kubesched_dra.api._validation_claim import (
    validate_device_class,
    validate_resource_claim,
    validate_resource_claim_template,
)
from kubesched_dra.api._validation_slice import validate_resource_slice

__all__ = ["RESOURCE_V1", "dra_kinds"]

RESOURCE_V1: Final = "resource.k8s.io/v1"


def dra_kinds() -> list[KindInfo]:
    """Every kind this package registers through `kubesched_register_kinds`, each with
    the API server's validation of a new object."""
    return [
        KindInfo(
            RESOURCE_V1, "DeviceClass", "deviceclasses", False, DeviceClass, validate_device_class
        ),
        KindInfo(
            RESOURCE_V1,
            "ResourceClaim",
            "resourceclaims",
            True,
            ResourceClaim,
            validate_resource_claim,
        ),
        KindInfo(
            RESOURCE_V1,
            "ResourceClaimTemplate",
            "resourceclaimtemplates",
            True,
            ResourceClaimTemplate,
            validate_resource_claim_template,
        ),
        KindInfo(
            RESOURCE_V1,
            "ResourceSlice",
            "resourceslices",
            False,
            ResourceSlice,
            validate_resource_slice,
        ),
    ]
