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

Volumes are counted per CSI driver name, the key of the limits (`volume_limits`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

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
    "Attachable",
    "Count",
    "NodeVolumes",
    "PodVolumes",
    "RecordingListers",
    "Volumes",
    "attachment_volumes",
    "attachments_by_node",
    "node_attachments",
    "pod_volume_count",
    "volume_limits",
]


def volume_limits(csi_node: CSINode | None) -> dict[str, int]:
    """Driver name → how many of its volumes the node may attach, from the CSINode's
    `spec.drivers[].allocatable.count`; a driver without a count (or a node without a
    CSINode) has no limit (upstream csi.go getVolumeLimits, v1.34: the node's
    `attachable-volumes-csi-*` allocatable is no longer read)."""
    if csi_node is None:
        return {}
    return {
        d.name: d.allocatable.count
        for d in csi_node.spec.drivers
        if d.allocatable is not None and d.allocatable.count is not None
    }


def pod_volume_count(pods: Iterable[Pod]) -> tuple[int, bool]:
    """How many volumes the pods have (at least as many as they can have attached), and
    whether counting them could fail (an ephemeral volume's claim may belong to another
    pod, an inline in-tree volume may not translate, a claim may have no name); when not,
    only the count matters."""
    count = 0
    may_fail = False
    for pod in pods:
        for vol in pod.spec.volumes:
            count += 1
            if vol.persistent_volume_claim is not None:
                if not vol.persistent_volume_claim.get("claimName"):
                    may_fail = True
            elif vol.ephemeral is not None or inline_in_tree_plugin(vol) is not None:
                may_fail = True
    return count, may_fail


@dataclass(frozen=True)
class Attachable:
    """A volume as the node's attach limits see it: the driver it counts against."""

    driver: str
    origin: str
    """What it is in the pod, for explanations ("claim default/data", "volume v")."""


Volumes = dict[str, Attachable]
"""`driver/handle` → what the volume counts against, in the order the volumes came."""


@dataclass
class Count:
    """A node's limits and the pod's volumes counted against them."""

    limits: dict[str, int]
    """Driver → limit."""
    attached: dict[str, int]
    """Driver → volumes the node has attached (its pods', its VolumeAttachments')."""
    new: dict[str, list[Attachable]]
    """Driver → the pod's volumes the node does not have yet."""
    through_attachments: dict[str, int] = field(default_factory=dict)
    """Of `attached`, the volumes counted from VolumeAttachments (no pod there uses them)."""

    def exceeded(self) -> list[str]:
        """The drivers whose limit the pod would exceed, in the order its volumes came."""
        return [
            driver
            for driver, volumes in self.new.items()
            if driver in self.limits
            and self.attached.get(driver, 0) + len(volumes) > self.limits[driver]
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
        self.volume_count, self.may_fail = pod_volume_count(pods)
        """The pods' volumes, and whether counting them could fail (`pod_volume_count`)."""
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
        return all(most <= limits.get(v.driver, most) for v in own.values())

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
    return attachments_by_node(listers, memo).get(node_name, [])


def attachments_by_node(listers: Listers, memo: PodVolumes) -> dict[str, list[VolumeAttachment]]:
    """The VolumeAttachments grouped by the node they name, once per cycle (in `memo`)."""
    if memo.attachments is None:
        memo.attachments = {}
        for va in listers.volume_attachments():
            memo.attachments.setdefault(va.spec.node_name, []).append(va)
    return memo.attachments


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
            attacher, f"VolumeAttachment {va.metadata.name}"
        )
    return volumes
