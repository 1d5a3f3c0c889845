"""VolumeRestrictions: volumes that cannot be shared between pods on a node, and
ReadWriteOncePod claims already in use.

Upstream: pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go.
Filter rejects a node where another pod mounts the same GCE PD (unless both read-only), AWS
EBS volume, iSCSI IQN (unless both read-only) or RBD image (shared monitor, same pool and
image, unless both read-only). PreFilter counts how many of the pod's ReadWriteOncePod
claims scheduled pods already use; any such use makes every node Unschedulable, which
preemption may resolve (hence PreFilterExtensions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from pydantic import BaseModel

from kubesched.api import Pod, Volume
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    NoArgs,
    NodeInfo,
    PodInfo,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    QueueingHint,
    StateData,
    Status,
)
from kubesched_volumebinding.common import (
    StoragePlugin,
    is_schedulable_after_claim_added,
    namespace_of,
)
from kubesched_volumebinding.names import VOLUME_RESTRICTIONS
from kubesched_volumebinding.storage import PersistentVolumeClaim, volume_source

__all__ = [
    "ERR_REASON_DISK_CONFLICT",
    "ERR_REASON_RWOP_CONFLICT",
    "PRE_FILTER_STATE_KEY",
    "VolumeRestrictions",
    "is_volume_conflict",
]

ERR_REASON_DISK_CONFLICT: Final = "node(s) had no available disk"
# v1.33+ text (kubernetes#129145); before it was "node has pod using PersistentVolumeClaim
# with the same name and ReadWriteOncePod access mode"
ERR_REASON_RWOP_CONFLICT: Final = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)
PRE_FILTER_STATE_KEY: Final = "PreFilter" + VOLUME_RESTRICTIONS

_CHECKED_SOURCES: Final = ("gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi")


def _source(vol: Volume, name: str) -> dict[str, Any] | None:
    return volume_source(vol, name)


def _needs_check(vol: Volume) -> bool:
    return any(_source(vol, s) is not None for s in _CHECKED_SOURCES)


def is_volume_conflict(vol: Volume, existing_pod: Pod) -> bool:
    """Whether `vol` conflicts with a volume of a pod already on the node."""
    gce, aws = _source(vol, "gcePersistentDisk"), _source(vol, "awsElasticBlockStore")
    iscsi, rbd = _source(vol, "iscsi"), _source(vol, "rbd")
    for other in existing_pod.spec.volumes:
        o_gce = _source(other, "gcePersistentDisk")
        if (
            gce is not None
            and o_gce is not None
            and gce.get("pdName") == o_gce.get("pdName")
            and not (gce.get("readOnly") and o_gce.get("readOnly"))
        ):
            return True
        o_aws = _source(other, "awsElasticBlockStore")
        if aws is not None and o_aws is not None and aws.get("volumeID") == o_aws.get("volumeID"):
            return True
        o_iscsi = _source(other, "iscsi")
        if (
            iscsi is not None
            and o_iscsi is not None
            and iscsi.get("iqn") == o_iscsi.get("iqn")
            and not (iscsi.get("readOnly") and o_iscsi.get("readOnly"))
        ):
            return True
        o_rbd = _source(other, "rbd")
        if rbd is not None and o_rbd is not None:
            shared_monitor = bool(set(rbd.get("monitors", [])) & set(o_rbd.get("monitors", [])))
            if (
                shared_monitor
                and rbd.get("pool", "rbd") == o_rbd.get("pool", "rbd")
                and rbd.get("image") == o_rbd.get("image")
                and not (rbd.get("readOnly") and o_rbd.get("readOnly"))
            ):
                return True
    return False


def _volume_conflicts(pod: Pod, node_info: NodeInfo, *, first_only: bool) -> list[tuple[str, Pod]]:
    """(volume name, pod on the node) for each of the pod's volumes that conflicts."""
    out: list[tuple[str, Pod]] = []
    for vol in pod.spec.volumes:
        if not _needs_check(vol):
            continue
        for existing in node_info.pods:
            if is_volume_conflict(vol, existing.pod):
                out.append((vol.name, existing.pod))
                if first_only:
                    return out
    return out


def _satisfies_volume_conflicts(pod: Pod, node_info: NodeInfo) -> bool:
    return not _volume_conflicts(pod, node_info, first_only=True)


@dataclass
class _State:
    """The pod's ReadWriteOncePod claims, and how many are used by scheduled pods."""

    rwop_claims: frozenset[str]
    conflicting_refs: int

    def clone(self) -> StateData:
        return _State(self.rwop_claims, self.conflicting_refs)

    def update_with_pod(self, pod_info: PodInfo, multiplier: int) -> None:
        self.conflicting_refs += multiplier * sum(
            1
            for vol in pod_info.pod.spec.volumes
            if vol.persistent_volume_claim is not None
            and vol.persistent_volume_claim.get("claimName") in self.rwop_claims
        )


class _Missing(Exception):
    pass


class VolumeRestrictions(StoragePlugin, PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    """Disk conflicts between pods on a node, and ReadWriteOncePod claims in use."""

    name: ClassVar[str] = VOLUME_RESTRICTIONS
    Args: ClassVar[type[BaseModel]] = NoArgs

    def _rwop_claims(self, pod: Pod) -> frozenset[str]:
        namespace = namespace_of(pod)
        names: set[str] = set()
        for vol in pod.spec.volumes:
            if vol.persistent_volume_claim is None:
                continue
            name = str(vol.persistent_volume_claim.get("claimName", "") or "")
            pvc: PersistentVolumeClaim | None = self.listers.claim(namespace, name)
            if pvc is None:
                raise _Missing(f'persistentvolumeclaim "{name}" not found')
            if "ReadWriteOncePod" in pvc.spec.access_modes:
                names.add(pvc.metadata.name)
        return frozenset(names)

    def _claims_in_use(self) -> dict[str, str]:
        """`namespace/claim` of every claim a pod on a node of the snapshot uses → the
        first such pod (`namespace/name`)."""
        used: dict[str, str] = {}
        for node_info in self.handle.snapshot.list():
            for pod_info in node_info.pods:
                pod = pod_info.pod
                namespace = namespace_of(pod)
                for vol in pod.spec.volumes:
                    if vol.persistent_volume_claim is not None:
                        claim = vol.persistent_volume_claim.get("claimName")
                        used.setdefault(f"{namespace}/{claim}", f"{namespace}/{pod.metadata.name}")
        return used

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        needs_check = any(_needs_check(v) for v in pod.spec.volumes)
        try:
            claims = self._rwop_claims(pod)
        except _Missing as exc:
            return None, Status.unresolvable(str(exc))
        conflicts = 0
        if claims:
            used = self._claims_in_use()
            namespace = namespace_of(pod)
            conflicts = sum(1 for c in claims if f"{namespace}/{c}" in used)
        if not needs_check and conflicts == 0:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _State(claims, conflicts))
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return self

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        data = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(data, _State):
            return Status.as_error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        data.update_with_pod(pod_info_to_add, 1)
        return None

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        data = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(data, _State):
            return Status.as_error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        data.update_with_pod(pod_info_to_remove, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not _satisfies_volume_conflicts(pod, node_info):
            return Status.unschedulable(ERR_REASON_DISK_CONFLICT)
        data = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(data, _State):
            return Status.as_error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        if data.conflicting_refs > 0:
            return Status.unschedulable(ERR_REASON_RWOP_CONFLICT)
        return None

    def explain_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[str]:
        """Which volume conflicts with which pod on the node, or which ReadWriteOncePod
        claim is in use and by whom."""
        lines = [
            f"volume {vol} conflicts with a volume of pod {namespace_of(other)}/"
            f"{other.metadata.name} on the node"
            for vol, other in _volume_conflicts(pod, node_info, first_only=False)
        ]
        if lines:
            return lines
        data = state.get(PRE_FILTER_STATE_KEY)
        if isinstance(data, _State) and data.conflicting_refs > 0:
            used = self._claims_in_use()
            namespace = namespace_of(pod)
            for claim in sorted(data.rwop_claims):
                user = used.get(f"{namespace}/{claim}")
                if user is not None:
                    lines.append(f"claim {namespace}/{claim} (ReadWriteOncePod) is used by {user}")
        return lines

    # -- EnqueueExtensions ----------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.Pod, ActionType.Delete),
                self.is_schedulable_after_pod_deleted,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.Node, ActionType.Add)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PersistentVolumeClaim, ActionType.Add),
                self.is_schedulable_after_pvc_added,
            ),
        ]

    def is_schedulable_after_pvc_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        return is_schedulable_after_claim_added(pod, new, ephemeral=False)

    def is_schedulable_after_pod_deleted(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        deleted = old if isinstance(old, Pod) else None
        if deleted is None:
            return QueueingHint.Queue
        if namespace_of(deleted) != namespace_of(pod):
            return QueueingHint.QueueSkip
        if not _satisfies_volume_conflicts(pod, NodeInfo(None, [PodInfo(deleted)])):
            return QueueingHint.Queue
        # a deleted pod using one of our claims may free a ReadWriteOncePod claim
        ours = {
            v.persistent_volume_claim.get("claimName")
            for v in pod.spec.volumes
            if v.persistent_volume_claim is not None
        }
        for vol in deleted.spec.volumes:
            if (
                vol.persistent_volume_claim is not None
                and vol.persistent_volume_claim.get("claimName") in ours
            ):
                return QueueingHint.Queue
        return QueueingHint.QueueSkip
