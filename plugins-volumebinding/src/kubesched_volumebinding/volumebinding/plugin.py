"""VolumeBinding: binds a pod's PVCs to PVs, or has them provisioned, on the chosen node.

Upstream: pkg/scheduler/framework/plugins/volumebinding/volume_binding.go. PreFilter sorts
the pod's claims and lists candidate PVs once; Filter finds, per node, a PV for each
unbound claim or checks the class can provision there; Reserve assumes the decision in the
assume caches; PreBind writes it and waits for the PV controller; Unreserve undoes the
assumptions. Score (behind the StorageCapacityScoring gate) prefers nodes by storage use.
Every rejection is UnschedulableAndUnresolvable: preemption cannot free a volume.

Beyond upstream: an assumption undone without an API write (Unreserve, a failed PreBind)
is reported through the Handle as a PV or PVC update, so the pods kept out by it are
retried at once rather than at the unschedulable pool's 5-minute flush (upstream wires
only DRA's assume cache to the queue; PV/PVC events come from informers alone). Filter
rejections are explained claim by claim for `--explain` (`explain.py`). Nodes that no PV of
the pod's classes is pinned to share one answer when nothing else about them matters
(`node_blind.py`): Filter checks one of them in full, and the array Filter
(`filter_mask`) passes or leaves them all at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Final

import numpy as np

from kubesched.api import Node, Pod, int_value
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    Handle,
    NodeColumns,
    NodeInfo,
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    RowMask,
    Rows,
    ScorePlugin,
    StateData,
    Status,
)
from kubesched_volumebinding.common import StoragePlugin, namespace_of
from kubesched_volumebinding.features import Features, current_features
from kubesched_volumebinding.names import VOLUME_BINDING
from kubesched_volumebinding.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    claim_refs_of_pod,
    request_bytes,
    volume_is_for_pod,
)
from kubesched_volumebinding.volumebinding import events
from kubesched_volumebinding.volumebinding.args import VolumeBindingArgs
from kubesched_volumebinding.volumebinding.assume_cache import (
    AssumeCacheError,
    PVAssumeCache,
    PVCAssumeCache,
)
from kubesched_volumebinding.volumebinding.binder import (
    BinderOptions,
    PodVolumeClaims,
    PodVolumes,
    VolumeBinder,
    VolumeBindingError,
    shared_volumes,
)
from kubesched_volumebinding.volumebinding.explain import explain_pod_volumes
from kubesched_volumebinding.volumebinding.host_ids import HostIds
from kubesched_volumebinding.volumebinding.prebind import VolumeBindingWaiter
from kubesched_volumebinding.volumebinding.scorer import (
    StorageResource,
    VolumeCapacityScorer,
    build_scorer,
)
from kubesched_volumebinding.volumebinding.volume_index import HOSTNAME_LABEL

__all__ = ["STATE_KEY", "UNBOUND_IMMEDIATE", "VolumeBinding", "VolumeBindingState"]

STATE_KEY: Final = VOLUME_BINDING
UNBOUND_IMMEDIATE: Final = "pod has unbound immediate PersistentVolumeClaims"


@dataclass
class VolumeBindingState:
    """The pod's claims (PreFilter), what Filter found per node, and Reserve's verdict.

    One object for the whole attempt: clones share it, as upstream's pointer does.
    """

    claims: PodVolumeClaims | None = None
    pod_volumes_by_node: dict[str, PodVolumes] = field(default_factory=dict)
    has_static_bindings: bool = False
    all_bound: bool = False
    skip: bool = False
    shared_passed: bool = False
    """The array Filter passed nodes with the claims' shared answer, without an entry."""

    def clone(self) -> StateData:
        return self

    def volumes_for(self, node: Node) -> PodVolumes | None:
        """What Filter found for a node it passed: its entry, or for a node the array
        Filter passed with the shared answer (outside `full_check_hosts`), a copy of
        that answer."""
        found = self.pod_volumes_by_node.get(node.metadata.name)
        claims = self.claims
        if found is None and self.shared_passed and claims is not None:
            hosts = claims.full_check_hosts
            if hosts is not None and node.metadata.labels.get(HOSTNAME_LABEL) not in hosts:
                found = shared_volumes(claims)
        return found


class VolumeBinding(
    StoragePlugin[VolumeBindingArgs],
    PreFilterPlugin[VolumeBindingArgs],
    FilterPlugin[VolumeBindingArgs],
    PreScorePlugin[VolumeBindingArgs],
    ScorePlugin[VolumeBindingArgs],
    ReservePlugin[VolumeBindingArgs],
    PreBindPlugin[VolumeBindingArgs],
    EnqueueExtensions,
):
    """Binds PVCs to PVs and triggers provisioning as part of scheduling."""

    name: ClassVar[str] = VOLUME_BINDING
    filter_mask_exact: ClassVar[bool] = True
    """`filter_mask` rejects only what `filter` rejects (see `mask_is_exact`)."""
    options: ClassVar[BinderOptions] = BinderOptions()
    """Improvements over upstream; a subclass may switch them off."""

    def __init__(self, args: VolumeBindingArgs, handle: Handle) -> None:
        super().__init__(args, handle)
        self.features: Features = current_features()
        cluster = handle.cluster
        self.pv_cache = PVAssumeCache()
        self.pvc_cache = PVCAssumeCache()
        cluster.watch("PersistentVolume", self.pv_cache.on_watch_event)
        cluster.watch("PersistentVolumeClaim", self.pvc_cache.on_watch_event)
        if self.options.requeue_on_revert:
            self.pv_cache.add_restore_handler(self._pv_restored)
            self.pvc_cache.add_restore_handler(self._pvc_restored)
        self.binder = VolumeBinder(
            self.listers,
            self.pv_cache,
            self.pvc_cache,
            features=self.features,
            options=self.options,
        )
        self.waiter = VolumeBindingWaiter(self.binder, cluster, float(args.bind_timeout_seconds))
        self.scorer: VolumeCapacityScorer | None = None
        self._host_ids = HostIds()
        if self.features.storage_capacity_scoring:
            self.scorer = build_scorer(args.shape or [])

    def _pv_restored(self, assumed: PersistentVolume, api: PersistentVolume) -> None:
        # the PV is free again (its claimRef was only assumed): like an informer update
        event = ClusterEvent(EventResource.PersistentVolume, ActionType.UpdateOther)
        self.report_cluster_event(event, assumed, api)

    def _pvc_restored(self, assumed: PersistentVolumeClaim, api: PersistentVolumeClaim) -> None:
        # the claim lost an assumed selected-node
        event = ClusterEvent(EventResource.PersistentVolumeClaim, ActionType.UpdateOther)
        self.report_cluster_event(event, assumed, api)

    # -- PreFilter ------------------------------------------------------------------------
    def _pod_has_pvcs(self, pod: Pod) -> tuple[bool, str | None]:
        """Whether the pod uses claims, and the first problem that makes it unschedulable
        (a claim missing, lost, being deleted, or not the pod's own ephemeral claim)."""
        namespace = namespace_of(pod)
        refs = claim_refs_of_pod(pod)
        for ref in refs:
            pvc = self.listers.claim(namespace, ref.name)
            if pvc is None:
                if ref.ephemeral:
                    return True, (
                        "waiting for ephemeral volume controller to create the "
                        f'persistentvolumeclaim "{ref.name}"'
                    )
                return True, f'persistentvolumeclaim "{ref.name}" not found'
            if pvc.status.phase == "Lost":
                return True, (
                    f'persistentvolumeclaim "{pvc.metadata.name}" bound to non-existent '
                    f'persistentvolume "{pvc.spec.volume_name}"'
                )
            if pvc.metadata.deletion_timestamp is not None:
                return True, f'persistentvolumeclaim "{pvc.metadata.name}" is being deleted'
            if ref.ephemeral:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    return True, problem
        return bool(refs), None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        has_pvcs, problem = self._pod_has_pvcs(pod)
        if problem is not None:
            return None, Status.unresolvable(problem)
        if not has_pvcs:
            state.write(STATE_KEY, VolumeBindingState(skip=True))
            return None, Status.skip()
        try:
            claims = self.binder.get_pod_volume_claims(pod)
        except VolumeBindingError as exc:
            return None, Status.as_error(exc)
        if claims.immediate:
            # the PV controller binds these; a PVC update brings the pod back
            return None, Status.unresolvable(UNBOUND_IMMEDIATE)
        state.write(STATE_KEY, VolumeBindingState(claims=claims))
        return None, None

    # -- Filter ---------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        data = _read_state(state)
        if isinstance(data, Status):
            return data
        node = node_info.node
        if data.claims is None or node is None:
            return None
        try:
            volumes, reasons = self.binder.find_pod_volumes(pod, data.claims, node)
        except VolumeBindingError as exc:
            return Status.as_error(exc)
        if reasons:
            return Status.unresolvable(*reasons)
        data.pod_volumes_by_node[node.metadata.name] = volumes
        data.has_static_bindings = data.has_static_bindings or bool(volumes.static_bindings)
        return None

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        """Filter on the snapshot's rows (ArrayFilterPlugin). When the pod's claims give
        every node outside `full_check_hosts` the same answer (`node_blind.py`), those
        rows pass or not with it; the rows of those hosts get `filter`'s own answer, so
        the mask is exact (`filter_mask_exact`: the statuses of the rejected rows are
        built only when read). Raises without PreFilter's state, without such an answer,
        on columns that are not the snapshot's, or when `filter` errs on a host, so
        `filter` answers."""
        data = state.get(STATE_KEY)
        if not isinstance(data, VolumeBindingState):
            raise LookupError(f"{self.name}: no PreFilter state")
        claims = data.claims
        if claims is None:
            return np.ones(len(rows), np.bool_)
        hosts = claims.full_check_hosts
        snapshot = self.handle.snapshot
        if hosts is None or snapshot.columns is not columns:
            raise LookupError(f"{self.name}: no answer shared by the rows")
        host_ids = columns.domain_ids(HOSTNAME_LABEL)[rows]
        full = np.isin(host_ids, self._host_ids.of(columns, hosts))
        infos = snapshot.node_info_list
        shared = np.flatnonzero(~full)
        if not shared.size:
            mask: RowMask = np.zeros(len(rows), np.bool_)
        else:
            if claims.shared_answer is None:
                node = infos[int(rows[shared[0]])].node
                assert node is not None  # the snapshot's rows all have a Node
                self.binder.find_pod_volumes(pod, claims, node)  # keeps the shared answer
            assert claims.shared_answer is not None
            # rejected: `filter` gives every such row the shared reasons (Unresolvable)
            passes = not claims.shared_answer[1]
            mask = np.full(len(rows), passes, np.bool_)
            if passes:
                data.shared_passed = True
        for i in np.flatnonzero(full).tolist():
            status = self.filter(state, pod, infos[int(rows[i])])
            if status is not None and not status.is_success and not status.is_rejected:
                raise VolumeBindingError(status.message())  # `filter` gives the Error
            mask[i] = status is None or status.is_success
        return mask

    def explain_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[str]:
        """Claim by claim, why the node does not fit: the bound PV's node affinity term,
        the PVs of the class and why each does not fit, the class's provisioner,
        allowedTopologies or CSIStorageCapacity (FilterExplainer)."""
        node = node_info.node
        if node is None:
            return []
        _, problem = self._pod_has_pvcs(pod)
        if problem is not None:
            return [problem]
        data = state.get(STATE_KEY)
        claims = data.claims if isinstance(data, VolumeBindingState) else None
        return explain_pod_volumes(self.binder, pod, claims, node)

    # -- PreScore / Score -----------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if self.scorer is None:
            return Status.skip()
        data = _read_state(state)
        if isinstance(data, Status):
            return data
        if data.has_static_bindings or self.features.storage_capacity_scoring:
            return None
        return Status.skip()

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if self.scorer is None:
            return 0, None
        data = _read_state(state)
        if isinstance(data, Status):
            return 0, data
        node = node_info.node
        volumes = data.volumes_for(node) if node else None
        if volumes is None:
            return 0, None
        classes: dict[str, StorageResource] = {}
        static = volumes.static_bindings or []
        if static or not self.features.storage_capacity_scoring:
            for binding in static:
                res = classes.setdefault(binding.storage_class_name(), StorageResource())
                requested, capacity = binding.requested_and_capacity()
                res.requested += requested
                res.capacity += capacity
        else:
            for provision in volumes.dynamic_provisions or []:
                cap = provision.node_capacity
                if cap is None:
                    continue
                name = provision.pvc.spec.storage_class_name or ""
                res = classes.setdefault(name, StorageResource())
                res.capacity = int_value(cap.capacity) if cap.capacity is not None else 0
                res.requested += request_bytes(provision.pvc)
        return self.scorer(classes), None

    # -- Reserve / Unreserve --------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data = _read_state(state)
        if isinstance(data, Status):
            return data
        info = self.handle.snapshot.get(node_name)
        node = info.node if info is not None else None
        volumes = (
            data.pod_volumes_by_node.get(node_name) if node is None else data.volumes_for(node)
        )
        # only the chosen node's entry is read from here on (Unreserve, PreBind): the
        # others go now, not when the binding cycle ends, as pods waiting in PreBind for
        # the PV controller would otherwise keep one entry per feasible node each, and
        # the claims with the class's PVs as PreFilter saw them
        data.pod_volumes_by_node = {node_name: volumes} if volumes is not None else {}
        data.claims = None
        data.shared_passed = False
        if volumes is None:
            data.all_bound = True  # the pod has no claims (or PreFilter skipped)
            return None
        try:
            data.all_bound = self.binder.assume_pod_volumes(pod, node_name, volumes)
        except AssumeCacheError as exc:
            return Status.as_error(exc)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        data = state.get(STATE_KEY)
        if not isinstance(data, VolumeBindingState):
            return
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is not None:
            self.binder.revert_assumed_pod_volumes(volumes)

    # -- PreBind --------------------------------------------------------------------------
    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data = _read_state(state)
        if isinstance(data, Status):
            return data
        if data.all_bound:
            return None
        volumes = data.pod_volumes_by_node.get(node_name)
        if volumes is None:
            return Status.as_error(f'no pod volumes found for node "{node_name}"')
        try:
            await self.waiter.bind_pod_volumes(pod, node_name, volumes)
        except (VolumeBindingError, AssumeCacheError) as exc:
            return Status.as_error(exc)
        except Exception as exc:  # the cluster's ConflictError / NotFoundError
            return Status.as_error(exc)
        return None

    # -- EnqueueExtensions ----------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return events.volume_binding_events()


def _read_state(state: CycleState) -> VolumeBindingState | Status:
    data = state.get(STATE_KEY)
    if data is None:
        return Status.as_error("not found")
    if not isinstance(data, VolumeBindingState):
        return Status.as_error("unable to convert state into stateData")
    return data
