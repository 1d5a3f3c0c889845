"""Which cluster events may make a pod NodeVolumeLimits rejected schedulable, with the
queueing hints that filter them.

Upstream: nodevolumelimits/csi.go (EventsToRegister and the isSchedulableAfter* hints),
v1.34 (read at bwsalmon/kubernetes@33b24c4f), queueing hints on: a new CSINode (any, no
hint), a CSINode whose driver limit rose, a deleted pod that was on (or nominated to) a
node and had a volume this plugin counts, a created claim the pod names, a deleted
VolumeAttachment that could have held a slot of the pod's drivers.
"""

from __future__ import annotations

from typing import Any, Final

from kubesched.api import Pod, Volume
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from kubesched_volumebinding.common import is_schedulable_after_claim_added
from kubesched_volumebinding.storage import (
    CSINode,
    CSINodeDriver,
    TranslationError,
    VolumeAttachment,
    inline_in_tree_plugin,
    translate_inline_volume,
)

__all__ = [
    "VOLUME_ATTACHMENT",
    "is_schedulable_after_csi_node_updated",
    "is_schedulable_after_pod_deleted",
    "is_schedulable_after_pvc_added",
    "is_schedulable_after_volume_attachment_deleted",
    "may_attach",
    "node_volume_limits_events",
]

VOLUME_ATTACHMENT: Final = "VolumeAttachment"
"""The event resource of the storage.k8s.io/v1 VolumeAttachment kind."""


def node_volume_limits_events() -> list[ClusterEventWithHint]:
    """csi.go EventsToRegister."""
    return [
        # any new CSINode may carry limits (or migration) that let the pod in: no hint
        ClusterEventWithHint(ClusterEvent(EventResource.CSINode, ActionType.Add)),
        ClusterEventWithHint(
            ClusterEvent(EventResource.CSINode, ActionType.Update),
            is_schedulable_after_csi_node_updated,
        ),
        ClusterEventWithHint(
            ClusterEvent(EventResource.Pod, ActionType.Delete), is_schedulable_after_pod_deleted
        ),
        ClusterEventWithHint(
            ClusterEvent(EventResource.PersistentVolumeClaim, ActionType.Add),
            is_schedulable_after_pvc_added,
        ),
        ClusterEventWithHint(
            ClusterEvent(VOLUME_ATTACHMENT, ActionType.Delete),
            is_schedulable_after_volume_attachment_deleted,
        ),
    ]


def may_attach(vol: Volume) -> bool:
    """A claim, a generic ephemeral volume or an inline volume of a migratable in-tree
    plugin: what this plugin may count (csi.go PreFilter)."""
    return (
        vol.persistent_volume_claim is not None
        or vol.ephemeral is not None
        or inline_in_tree_plugin(vol) is not None
    )


def is_schedulable_after_csi_node_updated(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """Queue when some driver of the new CSINode has a higher `allocatable.count` than
    before; a driver that is new, or had no count, had 0. A limit lowered, unchanged or
    removed (no count now: 0) is no reason to retry."""
    if not isinstance(old, CSINode) or not isinstance(new, CSINode):
        return QueueingHint.Queue
    before = {d.name: _count(d) for d in old.spec.drivers}
    for driver in new.spec.drivers:
        if _count(driver) > before.get(driver.name, 0):
            return QueueingHint.Queue
    return QueueingHint.QueueSkip


def _count(driver: CSINodeDriver) -> int:
    allocatable = driver.allocatable
    if allocatable is None or allocatable.count is None:
        return 0
    return allocatable.count


def is_schedulable_after_pod_deleted(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """A deleted pod frees attachments only if it was on a node, or nominated to one, and
    had a volume this plugin counts."""
    if not isinstance(old, Pod):
        return QueueingHint.Queue
    if not old.spec.volumes:
        return QueueingHint.QueueSkip
    if not old.spec.node_name and not old.status.nominated_node_name:
        return QueueingHint.QueueSkip
    if any(may_attach(v) for v in old.spec.volumes):
        return QueueingHint.Queue
    return QueueingHint.QueueSkip


def is_schedulable_after_pvc_added(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """Only a claim the pod names (a generic ephemeral volume's `<pod>-<volume>` too), in
    its namespace."""
    return is_schedulable_after_claim_added(pod, new, ephemeral=True)


def is_schedulable_after_volume_attachment_deleted(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """A detached volume frees a slot for a pod with a claim, or with an inline in-tree
    volume whose CSI driver is the attacher; an inline volume that does not translate
    requeues (upstream returns Queue with the error). Generic ephemeral volumes are not
    looked at, as upstream."""
    if not isinstance(old, VolumeAttachment):
        return QueueingHint.Queue
    for vol in pod.spec.volumes:
        if vol.persistent_volume_claim is not None:
            return QueueingHint.Queue
        plugin = inline_in_tree_plugin(vol)
        if plugin is None:
            continue
        if plugin.inline_handle is None:
            # azureFile, rbd: csi-translation-lib translates them without fail to their
            # driver; the handle is not needed here
            driver = plugin.driver
        else:
            try:
                driver, _ = translate_inline_volume(vol)
            except TranslationError:
                return QueueingHint.Queue
        if driver == old.spec.attacher:
            return QueueingHint.Queue
    return QueueingHint.QueueSkip
