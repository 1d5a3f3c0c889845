"""NodeVolumeLimits: a node attaches at most so many volumes of each CSI driver.

Upstream: pkg/scheduler/framework/plugins/nodevolumelimits/csi.go (CSILimits). The pod's
CSI volumes (through claims and generic ephemeral volumes) that the node does not already
have attached are counted per driver and compared with the driver's limit: the CSINode's
`spec.drivers[].allocatable.count`, or the node's `attachable-volumes-csi-<driver>`
allocatable. A claim not bound yet counts once for its class's provisioner.

Deviation: in-tree volumes (and inline ones) are not translated to their CSI drivers, so
only volumes that are CSI to begin with count (upstream translates migrated plugins).
"""

from __future__ import annotations

import hashlib
import random
import string
from collections.abc import Sequence
from typing import Any, ClassVar, Final

from pydantic import BaseModel

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    Handle,
    NoArgs,
    NodeInfo,
    PreFilterPlugin,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kubesched_volumebinding.names import NODE_VOLUME_LIMITS
from kubesched_volumebinding.storage import (
    CSINode,
    Listers,
    PersistentVolumeClaim,
    claim_class,
    claim_refs_of_pod,
    volume_is_for_pod,
)

__all__ = [
    "ATTACHABLE_VOLUMES_PREFIX",
    "CSI_ATTACH_LIMIT_PREFIX",
    "ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED",
    "NodeVolumeLimits",
    "csi_attach_limit_key",
]

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: Final = "node(s) exceed max volume count"
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


class _NotFound(Exception):
    pass


class NodeVolumeLimits(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    """Rejects nodes that would exceed a CSI driver's attach limit (Unschedulable)."""

    name: ClassVar[str] = NODE_VOLUME_LIMITS
    Args: ClassVar[type[BaseModel]] = NoArgs

    def __init__(self, args: BaseModel, handle: Handle) -> None:
        super().__init__(args, handle)
        self.listers = Listers(handle.cluster)
        # a claim not bound yet gets a made-up volume handle, unique to this plugin
        rng = random.Random(0)
        self.random_prefix = "".join(rng.choices(string.ascii_lowercase, k=32))

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if claim_refs_of_pod(pod):
            return None, None
        return None, Status.skip()

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if not pod.spec.volumes or node is None:
            return None
        csi_node = self.listers.csi_node(node.metadata.name)
        new_volumes: dict[str, str] = {}
        try:
            self._attachable_volumes(pod, csi_node, True, new_volumes)
        except _NotFound as exc:
            return Status.unresolvable(str(exc))
        except ValueError as exc:
            return Status.as_error(exc)
        if not new_volumes:
            return None
        limits = self._volume_limits(node_info, csi_node)
        if not limits:
            return None
        attached: dict[str, str] = {}
        for existing in node_info.pods:
            try:
                self._attachable_volumes(existing.pod, csi_node, False, attached)
            except (ValueError, _NotFound) as exc:
                return Status.as_error(exc)
        attached_count: dict[str, int] = {}
        for unique, key in attached.items():
            new_volumes.pop(unique, None)  # a volume shared with a pod there counts once
            attached_count[key] = attached_count.get(key, 0) + 1
        new_count: dict[str, int] = {}
        for key in new_volumes.values():
            new_count[key] = new_count.get(key, 0) + 1
        for key, count in new_count.items():
            limit = limits.get(key)
            if limit is not None and attached_count.get(key, 0) + count > limit:
                return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None

    def _volume_limits(self, node_info: NodeInfo, csi_node: CSINode | None) -> dict[str, int]:
        limits = {
            name: value
            for name, value in node_info.allocatable.scalar.items()
            if name.startswith(ATTACHABLE_VOLUMES_PREFIX)
        }
        if csi_node is not None:
            for driver in csi_node.spec.drivers:
                if driver.allocatable is not None and driver.allocatable.count is not None:
                    limits[csi_attach_limit_key(driver.name)] = driver.allocatable.count
        return limits

    def _attachable_volumes(
        self, pod: Pod, csi_node: CSINode | None, new_pod: bool, result: dict[str, str]
    ) -> None:
        """Add the pod's CSI volumes to `result` (unique name → limit key). A missing
        claim is _NotFound for the pod being scheduled and ignored for others."""
        namespace = pod.metadata.namespace or "default"
        for ref in claim_refs_of_pod(pod):
            if not ref.name:
                raise ValueError("PersistentVolumeClaim had no name")
            pvc = self.listers.claim(namespace, ref.name)
            if pvc is None:
                if new_pod:
                    raise _NotFound(
                        f"looking up PVC {namespace}/{ref.name}: "
                        f'persistentvolumeclaim "{ref.name}" not found'
                    )
                continue
            if ref.ephemeral:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    raise ValueError(problem)
            driver, handle = self._driver_info(pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)

    def _driver_info(self, pvc: PersistentVolumeClaim) -> tuple[str, str]:
        if pvc.spec.volume_name:
            pv = self.listers.volume(pvc.spec.volume_name)
            if pv is not None:
                csi = pv.spec.csi
                if csi is None:
                    return "", ""
                return str(csi.get("driver", "")), str(csi.get("volumeHandle", ""))
        # not bound (or the PV is gone): count it for the class's provisioner
        class_name = claim_class(pvc)
        if not class_name:
            return "", ""
        sc = self.listers.storage_class(class_name)
        if sc is None:
            return "", ""
        namespace = pvc.metadata.namespace or "default"
        return sc.provisioner, f"{self.random_prefix}-{namespace}/{pvc.metadata.name}"

    # -- EnqueueExtensions ----------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.CSINode, ActionType.Add)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.Pod, ActionType.Delete),
                self.is_schedulable_after_pod_deleted,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PersistentVolumeClaim, ActionType.Add),
                self.is_schedulable_after_pvc_added,
            ),
        ]

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if not isinstance(old, Pod):
            return QueueingHint.Queue
        if not old.spec.volumes or not old.spec.node_name:
            return QueueingHint.QueueSkip
        if claim_refs_of_pod(old):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip

    def is_schedulable_after_pvc_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if not isinstance(new, PersistentVolumeClaim):
            return QueueingHint.Queue
        if (new.metadata.namespace or "default") != (pod.metadata.namespace or "default"):
            return QueueingHint.QueueSkip
        if any(ref.name == new.metadata.name for ref in claim_refs_of_pod(pod)):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip
