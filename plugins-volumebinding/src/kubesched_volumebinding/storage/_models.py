"""The storage kinds, as `kubectl get -o yaml` writes them.

Upstream: k8s.io/api/core/v1/types.go (PersistentVolume, PersistentVolumeClaim) and
k8s.io/api/storage/v1/types.go (StorageClass, CSINode, CSIDriver, CSIStorageCapacity,
VolumeAttachment). Only
the fields the scheduler, the PV controller and the provisioner read are typed; a PV's
volume sources (`csi`, the migrated in-tree ones, `local`, `hostPath` ...) are kept as
written. API-server defaults are
applied where upstream's defaulting would (a StorageClass binds `Immediate`, a PV is
`Pending` until the PV controller sees it).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from kubesched.api import K8sModel, LabelSelector, NodeSelector, ObjectMeta, Quantity, ResourceList

__all__ = [
    "CSIDriver",
    "CSIDriverSpec",
    "CSINode",
    "CSINodeDriver",
    "CSINodeSpec",
    "CSIStorageCapacity",
    "ObjectReference",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "PersistentVolumeClaimSpec",
    "PersistentVolumeClaimStatus",
    "PersistentVolumeSpec",
    "PersistentVolumeStatus",
    "StorageClass",
    "TopologySelectorLabelRequirement",
    "TopologySelectorTerm",
    "VolumeAttachment",
    "VolumeAttachmentSource",
    "VolumeAttachmentSpec",
    "VolumeAttachmentStatus",
    "VolumeNodeAffinity",
    "VolumeNodeResources",
    "VolumeResourceRequirements",
]


class ObjectReference(K8sModel):
    """`spec.claimRef` of a PV: the claim it is (pre-)bound to."""

    kind: str = ""
    namespace: str = ""
    name: str = ""
    uid: str = ""
    api_version: str = ""
    resource_version: str = ""


class VolumeNodeAffinity(K8sModel):
    """`spec.nodeAffinity` of a PV; only `required` exists."""

    required: NodeSelector | None = None


class PersistentVolumeSpec(K8sModel):
    """Volume sources other than the typed ones are kept as written (extra fields). The
    in-tree sources that migrated to CSI drivers are typed (as written, like `csi`), so
    NodeVolumeLimits can count them against their driver (`storage.translate_pv`)."""

    model_config = ConfigDict(extra="allow")

    capacity: ResourceList = Field(default_factory=dict)
    access_modes: list[str] = Field(default_factory=list)
    claim_ref: ObjectReference | None = None
    persistent_volume_reclaim_policy: str = "Retain"
    storage_class_name: str = ""
    node_affinity: VolumeNodeAffinity | None = None
    volume_mode: str | None = None
    volume_attributes_class_name: str | None = None
    mount_options: list[str] = Field(default_factory=list)
    csi: dict[str, Any] | None = None
    aws_elastic_block_store: dict[str, Any] | None = None
    gce_persistent_disk: dict[str, Any] | None = None
    azure_disk: dict[str, Any] | None = None
    azure_file: dict[str, Any] | None = None
    cinder: dict[str, Any] | None = None
    vsphere_volume: dict[str, Any] | None = None
    portworx_volume: dict[str, Any] | None = None
    rbd: dict[str, Any] | None = None


class PersistentVolumeStatus(K8sModel):
    phase: str = "Pending"
    message: str = ""
    reason: str = ""


class PersistentVolume(K8sModel):
    api_version: str = "v1"
    kind: Literal["PersistentVolume"] = "PersistentVolume"
    metadata: ObjectMeta
    spec: PersistentVolumeSpec = Field(default_factory=PersistentVolumeSpec)
    status: PersistentVolumeStatus = Field(default_factory=PersistentVolumeStatus)

    @property
    def name(self) -> str:
        return self.metadata.name


class VolumeResourceRequirements(K8sModel):
    requests: ResourceList = Field(default_factory=dict)
    limits: ResourceList = Field(default_factory=dict)


class PersistentVolumeClaimSpec(K8sModel):
    access_modes: list[str] = Field(default_factory=list)
    selector: LabelSelector | None = None
    resources: VolumeResourceRequirements = Field(default_factory=VolumeResourceRequirements)
    volume_name: str = ""
    storage_class_name: str | None = None
    """None (unset) and "" differ: "" asks for no class, None for the default class."""
    volume_mode: str | None = None
    volume_attributes_class_name: str | None = None


class PersistentVolumeClaimStatus(K8sModel):
    phase: str = "Pending"
    access_modes: list[str] = Field(default_factory=list)
    capacity: ResourceList = Field(default_factory=dict)


class PersistentVolumeClaim(K8sModel):
    api_version: str = "v1"
    kind: Literal["PersistentVolumeClaim"] = "PersistentVolumeClaim"
    metadata: ObjectMeta
    spec: PersistentVolumeClaimSpec = Field(default_factory=PersistentVolumeClaimSpec)
    status: PersistentVolumeClaimStatus = Field(default_factory=PersistentVolumeClaimStatus)

    @property
    def key(self) -> str:
        """`namespace/name`, the assume cache's and the lister's key."""
        return f"{self.metadata.namespace or 'default'}/{self.metadata.name}"


class TopologySelectorLabelRequirement(K8sModel):
    key: str
    values: list[str] = Field(default_factory=list)


class TopologySelectorTerm(K8sModel):
    match_label_expressions: list[TopologySelectorLabelRequirement] = Field(default_factory=list)


class StorageClass(K8sModel):
    api_version: str = "storage.k8s.io/v1"
    kind: Literal["StorageClass"] = "StorageClass"
    metadata: ObjectMeta
    provisioner: str = ""
    parameters: dict[str, str] = Field(default_factory=dict)
    reclaim_policy: str | None = None
    mount_options: list[str] = Field(default_factory=list)
    allow_volume_expansion: bool | None = None
    volume_binding_mode: str | None = "Immediate"
    """API defaulting sets Immediate; an explicit null is kept (upstream tests use it)."""
    allowed_topologies: list[TopologySelectorTerm] = Field(default_factory=list)


class VolumeNodeResources(K8sModel):
    count: int | None = None


class CSINodeDriver(K8sModel):
    name: str
    node_id: str = Field(default="", alias="nodeID")
    topology_keys: list[str] = Field(default_factory=list)
    allocatable: VolumeNodeResources | None = None


class CSINodeSpec(K8sModel):
    drivers: list[CSINodeDriver] = Field(default_factory=list)


class CSINode(K8sModel):
    api_version: str = "storage.k8s.io/v1"
    kind: Literal["CSINode"] = "CSINode"
    metadata: ObjectMeta
    spec: CSINodeSpec = Field(default_factory=CSINodeSpec)


class CSIDriverSpec(K8sModel):
    attach_required: bool | None = None
    pod_info_on_mount: bool | None = None
    storage_capacity: bool | None = None
    volume_lifecycle_modes: list[str] = Field(default_factory=list)


class CSIDriver(K8sModel):
    api_version: str = "storage.k8s.io/v1"
    kind: Literal["CSIDriver"] = "CSIDriver"
    metadata: ObjectMeta
    spec: CSIDriverSpec = Field(default_factory=CSIDriverSpec)


class CSIStorageCapacity(K8sModel):
    """Free space a CSI driver reports for a class in a part of the cluster."""

    api_version: str = "storage.k8s.io/v1"
    kind: Literal["CSIStorageCapacity"] = "CSIStorageCapacity"
    metadata: ObjectMeta
    storage_class_name: str = ""
    node_topology: LabelSelector | None = None
    capacity: Quantity | None = None
    maximum_volume_size: Quantity | None = None


class VolumeAttachmentSource(K8sModel):
    """What is attached: a PV by name, or (a migrated inline volume) its spec."""

    persistent_volume_name: str | None = None
    inline_volume_spec: dict[str, Any] | None = None


class VolumeAttachmentSpec(K8sModel):
    attacher: str = ""
    """The CSI driver that attaches the volume."""
    source: VolumeAttachmentSource = Field(default_factory=VolumeAttachmentSource)
    node_name: str = ""


class VolumeAttachmentStatus(K8sModel):
    attached: bool = False
    attachment_metadata: dict[str, str] = Field(default_factory=dict)
    attach_error: dict[str, Any] | None = None
    detach_error: dict[str, Any] | None = None


class VolumeAttachment(K8sModel):
    """A volume attached (or being attached or detached) to a node by a CSI driver: the
    attach/detach controller creates it and deletes it once the volume is detached, so it
    outlives the pod that used the volume while detaching."""

    api_version: str = "storage.k8s.io/v1"
    kind: Literal["VolumeAttachment"] = "VolumeAttachment"
    metadata: ObjectMeta
    spec: VolumeAttachmentSpec = Field(default_factory=VolumeAttachmentSpec)
    status: VolumeAttachmentStatus = Field(default_factory=VolumeAttachmentStatus)
