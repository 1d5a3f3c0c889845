"""Which cluster events may make a pod VolumeBinding rejected schedulable, with the
queueing hints that filter them.

Upstream: volume_binding.go (EventsToRegister and the isSchedulableAfter* hints), with
queueing hints enabled (v1.34 default), so node events are Add and label updates only.
"""

from __future__ import annotations

from typing import Any

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from kubesched_volumebinding.common import is_schedulable_after_claim_added
from kubesched_volumebinding.storage import (
    ANN_MIGRATED_PLUGINS,
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    StorageClass,
    volume_limit,
)

__all__ = [
    "after_csi_driver_change",
    "after_csi_node_change",
    "after_csi_storage_capacity_change",
    "after_pvc_change",
    "after_storage_class_change",
    "volume_binding_events",
]

_ADD_UPDATE = ActionType.Add | ActionType.Update


def volume_binding_events() -> list[ClusterEventWithHint]:
    return [
        # a new class, or allowedTopologies changed (binding mode is immutable)
        ClusterEventWithHint(
            ClusterEvent(EventResource.StorageClass, _ADD_UPDATE), after_storage_class_change
        ),
        # claims get bound or annotated; PVs appear or change
        ClusterEventWithHint(
            ClusterEvent(EventResource.PersistentVolumeClaim, _ADD_UPDATE), after_pvc_change
        ),
        ClusterEventWithHint(ClusterEvent(EventResource.PersistentVolume, _ADD_UPDATE)),
        # labels decide PV node affinity and allowedTopologies
        ClusterEventWithHint(
            ClusterEvent(EventResource.Node, ActionType.Add | ActionType.UpdateNodeLabel)
        ),
        ClusterEventWithHint(
            ClusterEvent(EventResource.CSINode, _ADD_UPDATE), after_csi_node_change
        ),
        ClusterEventWithHint(
            ClusterEvent(EventResource.CSIDriver, ActionType.Update), after_csi_driver_change
        ),
        ClusterEventWithHint(
            ClusterEvent(EventResource.CSIStorageCapacity, _ADD_UPDATE),
            after_csi_storage_capacity_change,
        ),
    ]


def after_storage_class_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
    if not isinstance(new, StorageClass) or not isinstance(old, StorageClass):
        return QueueingHint.Queue
    if old.allowed_topologies != new.allowed_topologies:
        return QueueingHint.Queue
    return QueueingHint.QueueSkip


def after_pvc_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """A claim the pod uses (by name, in its namespace) was created or changed."""
    return is_schedulable_after_claim_added(pod, new, ephemeral=True)


def after_csi_node_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
    if old is None:
        return QueueingHint.Queue
    if not isinstance(old, CSINode) or not isinstance(new, CSINode):
        return QueueingHint.Queue
    before = old.metadata.annotations.get(ANN_MIGRATED_PLUGINS)
    after = new.metadata.annotations.get(ANN_MIGRATED_PLUGINS)
    return QueueingHint.Queue if before != after else QueueingHint.QueueSkip


def after_csi_driver_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """Only a driver of one of the pod's inline CSI volumes that stopped tracking
    capacity can help."""
    if not isinstance(old, CSIDriver) or not isinstance(new, CSIDriver):
        return QueueingHint.Queue
    for vol in pod.spec.volumes:
        extra = vol.model_extra or {}
        csi = extra.get("csi")
        if not isinstance(csi, dict) or csi.get("driver") != new.metadata.name:
            continue
        if old.spec.storage_capacity and not new.spec.storage_capacity:
            return QueueingHint.Queue
    return QueueingHint.QueueSkip


def after_csi_storage_capacity_change(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """A new capacity, or a volume limit that grew (or appeared)."""
    if old is None:
        return QueueingHint.Queue
    if not isinstance(old, CSIStorageCapacity) or not isinstance(new, CSIStorageCapacity):
        return QueueingHint.Queue
    before, after = volume_limit(old), volume_limit(new)
    if after is not None and (before is None or after > before):
        return QueueingHint.Queue
    return QueueingHint.QueueSkip
