"""VolumeZone: a pod's bound volumes must be in the node's zone and region.

Upstream: pkg/scheduler/framework/plugins/volumezone/volume_zone.go. PreFilter collects the
zone and region labels (GA and beta keys) of the PVs the pod's claims are bound to; Filter
rejects a node whose labels do not match them. A node without any such label fits (single
zone clusters); a beta label on the PV matches the GA label on the node. Unbound claims of
WaitForFirstConsumer classes are left to VolumeBinding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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
    NoArgs,
    NodeInfo,
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
from kubesched_volumebinding.names import VOLUME_ZONE
from kubesched_volumebinding.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    claim_class,
)

__all__ = ["ERR_REASON_CONFLICT", "PRE_FILTER_STATE_KEY", "PVTopology", "VolumeZone"]

ERR_REASON_CONFLICT: Final = "node(s) had no available volume zone"
PRE_FILTER_STATE_KEY: Final = "PreFilter" + VOLUME_ZONE

_BETA_ZONE: Final = "failure-domain.beta.kubernetes.io/zone"
_BETA_REGION: Final = "failure-domain.beta.kubernetes.io/region"
_ZONE: Final = "topology.kubernetes.io/zone"
_REGION: Final = "topology.kubernetes.io/region"
TOPOLOGY_LABELS: Final = (_BETA_ZONE, _BETA_REGION, _ZONE, _REGION)
_TO_GA: Final = {_BETA_ZONE: _ZONE, _BETA_REGION: _REGION}
_MULTI_ZONE_DELIMITER: Final = "__"


@dataclass(frozen=True)
class PVTopology:
    """One topology label of a PV: its key and the zones (or regions) it allows."""

    pv_name: str
    key: str
    values: frozenset[str]


@dataclass(frozen=True)
class _State:
    topologies: tuple[PVTopology, ...]

    def clone(self) -> StateData:
        return self


def pv_topologies(pv: PersistentVolume) -> list[PVTopology]:
    """The PV's zone/region labels; a value may list zones joined by "__". A label with
    an empty zone in it is ignored (upstream logs and skips it)."""
    out: list[PVTopology] = []
    for key in TOPOLOGY_LABELS:
        value = pv.metadata.labels.get(key)
        if value is None:
            continue
        zones = [z.strip() for z in value.split(_MULTI_ZONE_DELIMITER)]
        if any(not z for z in zones):
            continue
        out.append(PVTopology(pv.metadata.name, key, frozenset(zones)))
    return out


class _Rejected(Exception):
    pass


def _node_value(labels: dict[str, str], key: str) -> str | None:
    """The node's value for a PV's topology key; a beta key on the PV matches the GA
    label on the node."""
    value = labels.get(key)
    if value is None:
        value = labels.get(_TO_GA.get(key, key))
    return value


class VolumeZone(StoragePlugin, PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    """Checks the zone labels of a pod's bound PVs against the node's."""

    name: ClassVar[str] = VOLUME_ZONE
    Args: ClassVar[type[BaseModel]] = NoArgs

    def _topologies(self, pod: Pod) -> list[PVTopology]:
        """Raises _Rejected(message) for a missing claim, class or PV, or an unbound claim
        that is not waiting for its first consumer."""
        namespace = namespace_of(pod)
        out: list[PVTopology] = []
        for vol in pod.spec.volumes:
            if vol.persistent_volume_claim is None:
                continue
            claim_name = str(vol.persistent_volume_claim.get("claimName", "") or "")
            if not claim_name:
                raise _Rejected("PersistentVolumeClaim had no name")
            pvc: PersistentVolumeClaim | None = self.listers.claim(namespace, claim_name)
            if pvc is None:
                raise _Rejected(f'persistentvolumeclaim "{claim_name}" not found')
            pv_name = pvc.spec.volume_name
            if not pv_name:
                class_name = claim_class(pvc)
                if not class_name:
                    raise _Rejected("PersistentVolumeClaim had no pv name and storageClass name")
                sc: StorageClass | None = self.listers.storage_class(class_name)
                if sc is None:
                    raise _Rejected(f'storageclass.storage.k8s.io "{class_name}" not found')
                if sc.volume_binding_mode is None:
                    raise _Rejected(f'VolumeBindingMode not set for StorageClass "{class_name}"')
                if sc.volume_binding_mode == "WaitForFirstConsumer":
                    continue  # VolumeBinding decides where it goes
                raise _Rejected("PersistentVolume had no name")
            pv = self.listers.volume(pv_name)
            if pv is None:
                raise _Rejected(f'persistentvolume "{pv_name}" not found')
            out.extend(pv_topologies(pv))
        return out

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        try:
            topologies = self._topologies(pod)
        except _Rejected as exc:
            return None, Status.unresolvable(str(exc))
        if not topologies:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, _State(tuple(topologies)))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        conflicts = self._conflicts(state, pod, node_info)
        if isinstance(conflicts, Status):
            return conflicts
        return Status.unresolvable(ERR_REASON_CONFLICT) if conflicts else None

    def explain_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[str]:
        """Each PV label the node does not match, with the node's value."""
        conflicts = self._conflicts(state, pod, node_info, first_only=False)
        if isinstance(conflicts, Status) or node_info.node is None:
            return []
        labels = node_info.node.metadata.labels
        lines = []
        for topo in conflicts:
            has = _node_value(labels, topo.key)
            where = f"has {has}" if has is not None else f"has no {_TO_GA.get(topo.key, topo.key)}"
            lines.append(
                f"PV {topo.pv_name}: {topo.key} in [{', '.join(sorted(topo.values))}], "
                f"node {node_info.name} {where}"
            )
        return lines

    def _conflicts(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, *, first_only: bool = True
    ) -> list[PVTopology] | Status:
        """The pod's PV topologies the node does not match (the first only, unless asked
        for all), or the Status of a pod whose volumes cannot be read."""
        if not pod.spec.volumes:
            return []
        data = state.get(PRE_FILTER_STATE_KEY)
        if isinstance(data, _State):
            topologies: Sequence[PVTopology] = data.topologies
        else:
            try:
                topologies = self._topologies(pod)  # PreFilter did not run
            except _Rejected as exc:
                return Status.unresolvable(str(exc))
        node = node_info.node
        if node is None:
            return []
        labels = node.metadata.labels
        if not any(key in labels for key in TOPOLOGY_LABELS):
            return []  # no zone constraints on this node
        out = []
        for topo in topologies:
            value = _node_value(labels, topo.key)
            if value is None or value not in topo.values:
                out.append(topo)
                if first_only:
                    break
        return out

    # -- EnqueueExtensions ----------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.StorageClass, ActionType.Add),
                self.is_schedulable_after_storage_class_added,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.Node, ActionType.Add | ActionType.UpdateNodeLabel)
            ),
            ClusterEventWithHint(
                ClusterEvent(
                    EventResource.PersistentVolumeClaim, ActionType.Add | ActionType.Update
                ),
                self.is_schedulable_after_pvc_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PersistentVolume, ActionType.Add | ActionType.Update),
                self.is_schedulable_after_pv_change,
            ),
        ]

    def is_schedulable_after_pvc_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        return is_schedulable_after_claim_added(pod, new, ephemeral=False)

    def is_schedulable_after_storage_class_added(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        if not isinstance(new, StorageClass):
            return QueueingHint.Queue
        if new.volume_binding_mode != "WaitForFirstConsumer":
            return QueueingHint.QueueSkip
        return QueueingHint.Queue

    def is_schedulable_after_pv_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if old is None:
            return QueueingHint.Queue
        if not isinstance(old, PersistentVolume) or not isinstance(new, PersistentVolume):
            return QueueingHint.Queue
        if pv_topologies(old) != pv_topologies(new):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip
