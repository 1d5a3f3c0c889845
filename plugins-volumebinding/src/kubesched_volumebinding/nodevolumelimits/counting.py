"""What NodeVolumeLimits counts, and the memos that spare it recounting per node.

Upstream's Filter (nodevolumelimits/csi.go) counts the pod's volumes and every volume of
every pod on the node, through the listers, for every node of every cycle. The answers
here are the same, computed less often:

- `PodVolumes`: the pod's own volumes depend on the pod, the cluster (unchanged within a
  scheduling cycle, which runs without yielding) and, through CSI migration, only on
  `storage.csi_migration_key` of the node's CSINode; they are counted once per key and
  cycle.
- `NodeVolumes`: per node, the limits and what the node's pods say without any lookup
  (how many volumes they have, whether any could make the count fail) hold while the
  node, its CSINode and its pods are the very same objects; the attached volumes, which
  need lookups, hold while every PVC, PV and class looked up is also the same object
  (the cluster replaces an object on every write, never changes one).
- VolumeAttachments (upstream getNodeVolumeAttachmentInfo, since v1.33) are grouped by
  node once per cycle (`PodVolumes.attachments`) and counted per node where needed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Final

from kubesched.api import Node, Pod
from kubesched.framework import NodeInfo, StateData
from kubesched_volumebinding.storage import (
    CSINode,
    Listers,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    VolumeAttachment,
    inline_in_tree_plugin,
)

__all__ = [
    "ATTACHABLE_VOLUMES_PREFIX",
    "CSI_ATTACH_LIMIT_PREFIX",
    "Attachable",
    "Count",
    "NodeVolumes",
    "PodVolumes",
    "RecordingListers",
    "Volumes",
    "attachment_volumes",
    "csi_attach_limit_key",
    "node_attachments",
]

ATTACHABLE_VOLUMES_PREFIX: Final = "attachable-volumes-"
CSI_ATTACH_LIMIT_PREFIX: Final = "attachable-volumes-csi-"
_RESOURCE_NAME_LENGTH_LIMIT: Final = 63


def csi_attach_limit_key(driver: str) -> str:
    """The node resource that limits a driver's attachments (upstream
    GetCSIAttachLimitKey: long names keep 23 characters and a 16-digit SHA-1)."""
    if len(CSI_ATTACH_LIMIT_PREFIX) + len(driver) >= _RESOURCE_NAME_LENGTH_LIMIT:
        digest = hashlib.sha1(driver.encode()).hexdigest()[:16]
        return CSI_ATTACH_LIMIT_PREFIX + driver[:23] + digest
    return CSI_ATTACH_LIMIT_PREFIX + driver


@dataclass(frozen=True)
class Attachable:
    """A volume as the node's attach limit sees it: the limit it counts against."""

    key: str
    driver: str
    origin: str
    """What it is in the pod, for explanations ("claim default/data", "volume v")."""


Volumes = dict[str, Attachable]
"""`driver/handle` → what the volume counts against, in the order the volumes came."""


@dataclass
class Count:
    """A node's limits and the pod's volumes counted against them."""

    limits: dict[str, int]
    attached: dict[str, int]
    new: dict[str, list[Attachable]]
    through_attachments: dict[str, int] = field(default_factory=dict)
    """Of `attached`, the volumes counted from VolumeAttachments (no pod there uses them)."""

    def exceeded(self) -> list[str]:
        """The limit keys the pod would exceed, in the order its volumes came."""
        return [
            key
            for key, volumes in self.new.items()
            if key in self.limits and self.attached.get(key, 0) + len(volumes) > self.limits[key]
        ]


class PodVolumes:
    """The pod's own volumes (or why they cannot be counted) per CSINode migration key,
    and the VolumeAttachments by node name, for one cycle."""

    __slots__ = ("attachments", "by_key")

    def __init__(self) -> None:
        self.by_key: dict[str | None, Volumes | Exception] = {}
        self.attachments: dict[str, list[VolumeAttachment]] | None = None

    def clone(self) -> StateData:
        return self  # the pod and the cluster do not change within a cycle


class RecordingListers(Listers):
    """Listers that remember every object they handed out (or its absence)."""

    def __init__(self, cluster: Any) -> None:
        super().__init__(cluster)
        self.seen: list[tuple[str, str, str | None, Any]] = []

    def _get(self, kind: str, name: str, namespace: str | None = None) -> Any:
        obj = self.cluster.get(kind, name, namespace)
        self.seen.append((kind, name, namespace, obj))
        return obj

    def claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        obj = self._get("PersistentVolumeClaim", name, namespace)
        return obj if isinstance(obj, PersistentVolumeClaim) else None

    def volume(self, name: str) -> PersistentVolume | None:
        obj = self._get("PersistentVolume", name)
        return obj if isinstance(obj, PersistentVolume) else None

    def storage_class(self, name: str) -> StorageClass | None:
        obj = self._get("StorageClass", name)
        return obj if isinstance(obj, StorageClass) else None


class NodeVolumes:
    """One node's limits and its pods' volumes, with what they were computed from."""

    __slots__ = (
        "attached",
        "attached_count",
        "csi_node",
        "limits",
        "may_fail",
        "node",
        "pods",
        "seen",
        "volume_count",
    )

    def __init__(
        self, node: Node, csi_node: CSINode | None, pods: list[Pod], limits: dict[str, int]
    ) -> None:
        self.node = node
        self.csi_node = csi_node
        self.pods = pods
        self.limits = limits
        self.volume_count = 0
        """The pods' volumes: at least as many as they can have attached."""
        self.may_fail = False
        """Whether counting the pods' volumes could fail (an ephemeral volume's claim may
        belong to another pod, an inline in-tree volume may not translate, a claim may
        have no name); when not, only the counts matter."""
        for pod in pods:
            for vol in pod.spec.volumes:
                self.volume_count += 1
                if vol.persistent_volume_claim is not None:
                    if not vol.persistent_volume_claim.get("claimName"):
                        self.may_fail = True
                elif vol.ephemeral is not None or inline_in_tree_plugin(vol) is not None:
                    self.may_fail = True
        self.seen: list[tuple[str, str, str | None, Any]] = []
        self.attached: Volumes | Exception | None = None
        """None until counted; an exception when counting failed."""
        self.attached_count: dict[str, int] = {}

    def same_node(self, node_info: NodeInfo, csi_node: CSINode | None) -> bool:
        """The same node, CSINode and pods (in the same order)."""
        if self.node is not node_info.node or self.csi_node is not csi_node:
            return False
        infos = node_info.pods
        if len(self.pods) != len(infos):
            return False
        return all(pod is info.pod for pod, info in zip(self.pods, infos, strict=True))

    def cannot_exceed(self, own: Volumes, attachments: int = 0) -> bool:
        """Whether the pod's volumes fit under every limit whatever the node's pods and its
        `attachments` VolumeAttachments have attached (each counting at most once)."""
        most = self.volume_count + attachments + len(own)
        limits = self.limits
        return all(most <= limits.get(v.key, most) for v in own.values())

    def counted(self, cluster: Any) -> bool:
        """Whether `attached` is known and every object it was counted from unchanged."""
        if self.attached is None:
            return False
        get = cluster.get
        return all(get(kind, name, namespace) is obj for kind, name, namespace, obj in self.seen)


def node_attachments(
    listers: Listers, node_name: str, memo: PodVolumes | None
) -> list[VolumeAttachment]:
    """The VolumeAttachments naming the node (grouped by node once per cycle with a memo)."""
    if memo is None:
        return [va for va in listers.volume_attachments() if va.spec.node_name == node_name]
    if memo.attachments is None:
        memo.attachments = {}
        for va in listers.volume_attachments():
            memo.attachments.setdefault(va.spec.node_name, []).append(va)
    return memo.attachments.get(node_name, [])


def attachment_volumes(listers: Listers, attachments: list[VolumeAttachment]) -> Volumes:
    """`attacher/handle` of each attachment of a CSI PV (upstream csi.go
    getNodeVolumeAttachmentInfo): one without attacher or PV name, whose PV is gone or is
    not a CSI volume (a migrated in-tree one) is left out. Whether the volume is attached
    yet, or being detached, does not matter."""
    volumes: Volumes = {}
    for va in attachments:
        attacher, pv_name = va.spec.attacher, va.spec.source.persistent_volume_name
        if not attacher or pv_name is None:
            continue
        pv = listers.volume(pv_name)
        if pv is None or pv.spec.csi is None:
            continue
        handle = str(pv.spec.csi.get("volumeHandle", "") or "")
        volumes[f"{attacher}/{handle}"] = Attachable(
            csi_attach_limit_key(attacher), attacher, f"VolumeAttachment {va.metadata.name}"
        )
    return volumes
