"""Read access to the cluster's objects, as upstream's informer listers give it.

The memory cluster (and the `kube` backend's informer cache) hold the current objects;
these helpers name what VolumeBinding and its neighbours look up, typed.
"""

from __future__ import annotations

from typing import Any

from kubesched.api import Node, Pod
from kubesched_volumebinding.storage._models import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
)

__all__ = ["Listers"]


class Listers:
    """Typed `get`/`list` over a `kubesched.cluster.Cluster`."""

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster

    def node(self, name: str) -> Node | None:
        obj = self.cluster.get("Node", name)
        return obj if isinstance(obj, Node) else None

    def pod(self, namespace: str, name: str) -> Pod | None:
        obj = self.cluster.get("Pod", name, namespace)
        return obj if isinstance(obj, Pod) else None

    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        obj = self.cluster.get("PersistentVolumeClaim", name, namespace)
        return obj if isinstance(obj, PersistentVolumeClaim) else None

    def volume(self, name: str) -> PersistentVolume | None:
        obj = self.cluster.get("PersistentVolume", name)
        return obj if isinstance(obj, PersistentVolume) else None

    def storage_class(self, name: str) -> StorageClass | None:
        obj = self.cluster.get("StorageClass", name)
        return obj if isinstance(obj, StorageClass) else None

    def storage_classes(self) -> list[StorageClass]:
        return [o for o in self.cluster.list("StorageClass") if isinstance(o, StorageClass)]

    def csi_node(self, name: str) -> CSINode | None:
        obj = self.cluster.get("CSINode", name)
        return obj if isinstance(obj, CSINode) else None

    def csi_driver(self, name: str) -> CSIDriver | None:
        obj = self.cluster.get("CSIDriver", name)
        return obj if isinstance(obj, CSIDriver) else None

    def csi_storage_capacities(self) -> list[CSIStorageCapacity]:
        return [
            o for o in self.cluster.list("CSIStorageCapacity") if isinstance(o, CSIStorageCapacity)
        ]

    def volume_attachments(self) -> list[VolumeAttachment]:
        return [o for o in self.cluster.list("VolumeAttachment") if isinstance(o, VolumeAttachment)]
