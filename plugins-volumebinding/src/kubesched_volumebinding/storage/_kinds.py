"""The storage kinds as the manifest loader and the cluster stores know them."""

from __future__ import annotations

from kubesched.api import KindInfo
from kubesched_volumebinding.storage._models import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
)

__all__ = ["storage_kinds"]

_STORAGE_V1 = "storage.k8s.io/v1"


def storage_kinds() -> list[KindInfo]:
    """Every kind this package registers through `kubesched_register_kinds`."""
    return [
        KindInfo("v1", "PersistentVolume", "persistentvolumes", False, PersistentVolume),
        KindInfo(
            "v1", "PersistentVolumeClaim", "persistentvolumeclaims", True, PersistentVolumeClaim
        ),
        KindInfo(_STORAGE_V1, "StorageClass", "storageclasses", False, StorageClass),
        KindInfo(_STORAGE_V1, "CSINode", "csinodes", False, CSINode),
        KindInfo(_STORAGE_V1, "CSIDriver", "csidrivers", False, CSIDriver),
        KindInfo(
            _STORAGE_V1, "CSIStorageCapacity", "csistoragecapacities", True, CSIStorageCapacity
        ),
        KindInfo(_STORAGE_V1, "VolumeAttachment", "volumeattachments", False, VolumeAttachment),
    ]
