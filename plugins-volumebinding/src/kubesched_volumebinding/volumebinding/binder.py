"""The volume binder: classify a pod's claims, find volumes per node, assume and revert.

Upstream: pkg/scheduler/framework/plugins/volumebinding/binder.go (GetPodVolumeClaims,
FindPodVolumes, AssumePodVolumes, RevertAssumedPodVolumes). The API writes and the wait
for the PV controller (BindPodVolumes) are in `prebind.py`.

A bound in-tree PV is checked in its CSI form on a node whose CSINode lists its plugin as
migrated (`checked_pv`, upstream tryTranslatePVToCSI), here and in PreBind.

Beyond upstream (each switchable through `BinderOptions`): a claim referenced twice by a
pod is considered once; a `selected-node` naming a node that no longer exists does not pin
the pod to it (upstream issues #100485, #112347); an assumption reverted without an API
write requeues the pods it rejected (the plugin reports it, see plugin.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Final

from kubesched.api import Node, Pod, int_value
from kubesched_volumebinding.features import Features
from kubesched_volumebinding.storage import (
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    CSINode,
    CSIStorageCapacity,
    Listers,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    TranslationError,
    claim_class,
    claim_refs_of_pod,
    is_delay_binding_mode,
    is_fully_bound,
    is_volume_bound_to_claim,
    node_affinity_error,
    pv_capacity,
    request_bytes,
    requested_storage,
    topology_matches,
    try_translate_pv_to_csi,
    volume_is_for_pod,
)
from kubesched_volumebinding.volumebinding.assume_cache import (
    AssumeCacheError,
    PVAssumeCache,
    PVCAssumeCache,
)
from kubesched_volumebinding.volumebinding.matching import capacity_for, find_matching_volume
from kubesched_volumebinding.volumebinding.node_blind import full_check_hosts
from kubesched_volumebinding.volumebinding.volume_index import HOSTNAME_LABEL, ClassVolumes

__all__ = [
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "BinderOptions",
    "BindingInfo",
    "DynamicProvision",
    "PodVolumeClaims",
    "PodVolumes",
    "VolumeBinder",
    "VolumeBindingError",
    "bind_volume_to_claim",
    "shared_volumes",
]

ERR_REASON_BIND_CONFLICT: Final = "node(s) didn't find available persistent volumes to bind"
# v1.33+ text (kubernetes#129887); before it was "node(s) had volume node affinity conflict"
ERR_REASON_NODE_CONFLICT: Final = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE: Final = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST: Final = (
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)


class VolumeBindingError(Exception):
    """Something went wrong (not "does not fit"): the plugin returns an Error status."""


@dataclass(frozen=True)
class BinderOptions:
    """Improvements over upstream, on by default."""

    deduplicate_claims: bool = True
    """A claim named by two volumes of a pod is bound once, not to two PVs."""
    ignore_missing_selected_node: bool = True
    """A claim whose selected-node names a node that is gone does not pin the pod."""
    name_unbound_claims_on_timeout: bool = True
    """PreBind's timeout error lists the claims that were still unbound."""
    requeue_on_revert: bool = True
    """An assumption undone without an API write (Unreserve, a failed PreBind) is
    reported as a PV/PVC update, so the pods it kept out are retried at once."""


@dataclass
class BindingInfo:
    """A claim and the PV chosen for it (after Reserve: the PV as assumed/written)."""

    pvc: PersistentVolumeClaim
    pv: PersistentVolume

    def storage_class_name(self) -> str:
        return self.pv.spec.storage_class_name

    def requested_and_capacity(self) -> tuple[int, int]:
        """(claim's request, PV's capacity) in bytes, for scoring."""
        return request_bytes(self.pvc), int_value(pv_capacity(self.pv))


@dataclass
class DynamicProvision:
    """A claim to provision on the node, and the capacity object that had room for it."""

    pvc: PersistentVolumeClaim
    node_capacity: CSIStorageCapacity | None = None


@dataclass
class PodVolumes:
    """What Filter found for one node; None lists mean "nothing" before Reserve."""

    static_bindings: list[BindingInfo] | None = None
    dynamic_provisions: list[DynamicProvision] | None = None


@dataclass
class PodVolumeClaims:
    """A pod's claims sorted by how they bind, and the PVs (latest view) of each class of
    the delayed ones, taken once per cycle: a `ClassVolumes` index from the assume cache
    (or any sequence of PVs, matched by a plain scan)."""

    bound: list[PersistentVolumeClaim] = field(default_factory=list)
    delayed: list[PersistentVolumeClaim] = field(default_factory=list)
    immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    volumes_by_class: dict[str, Sequence[PersistentVolume]] = field(default_factory=dict)
    full_check_hosts: AbstractSet[str] | None = None
    """When not None, only nodes with one of these hostname label values need the whole
    check; every other node gets `shared_answer` (`node_blind.full_check_hosts`)."""
    shared_answer: tuple[PodVolumes, list[str]] | None = None
    """The answer of the first such other node checked, kept for the rest."""


def shared_volumes(claims: PodVolumeClaims) -> PodVolumes | None:
    """A copy of the volumes of the answer shared by the nodes outside
    `claims.full_check_hosts`, once a node has been checked for it."""
    return _copied(claims.shared_answer[0]) if claims.shared_answer is not None else None


def _copied(volumes: PodVolumes) -> PodVolumes:
    """Another PodVolumes with the same entries (Reserve replaces an entry's lists)."""
    static, dynamic = volumes.static_bindings, volumes.dynamic_provisions
    return PodVolumes(
        list(static) if static is not None else None,
        list(dynamic) if dynamic is not None else None,
    )


def bind_volume_to_claim(
    pv: PersistentVolume, claim: PersistentVolumeClaim
) -> tuple[PersistentVolume, bool]:
    """A copy of `pv` bound to `claim` (claimRef, and bound-by-controller unless it was
    already bound to it), and whether anything changed (upstream GetBindVolumeToClaim).

    The copy has its own metadata, annotations, spec and status (a caller may set them);
    deeper parts it does not change are shared, as stored objects are never changed."""
    set_bound_by_controller = not is_volume_bound_to_claim(pv, claim)
    clone = pv.model_copy(
        update={
            "metadata": pv.metadata.model_copy(
                update={"annotations": dict(pv.metadata.annotations)}
            ),
            "spec": pv.spec.model_copy(),
            "status": pv.status.model_copy(),
        }
    )
    dirty = False
    ref = pv.spec.claim_ref
    namespace = claim.metadata.namespace or "default"
    if (
        ref is None
        or ref.name != claim.metadata.name
        or ref.namespace != namespace
        or ref.uid != claim.metadata.uid
    ):
        clone.spec.claim_ref = ObjectReference(
            kind="PersistentVolumeClaim",
            api_version="v1",
            namespace=namespace,
            name=claim.metadata.name,
            uid=claim.metadata.uid,
            resource_version=claim.metadata.resource_version or "",
        )
        dirty = True
    annotations = clone.metadata.annotations
    if set_bound_by_controller and ANN_BOUND_BY_CONTROLLER not in annotations:
        annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
        dirty = True
    return clone, dirty


class VolumeBinder:
    """Decides, per node, which PV each of a pod's claims binds to or whether it is
    provisioned there, and keeps the decision in the assume caches until PreBind."""

    def __init__(
        self,
        listers: Listers,
        pv_cache: PVAssumeCache,
        pvc_cache: PVCAssumeCache,
        *,
        features: Features | None = None,
        options: BinderOptions | None = None,
    ) -> None:
        self.listers = listers
        self.pv_cache = pv_cache
        self.pvc_cache = pvc_cache
        self.features = features or Features()
        self.options = options or BinderOptions()

    # -- PreFilter ------------------------------------------------------------------------
    def get_pod_volume_claims(self, pod: Pod) -> PodVolumeClaims:
        """Sort the pod's claims (read from the PVC assume cache) into bound, delayed and
        immediate; a pre-bound claim (volumeName set, not yet bind-completed) counts as
        immediate. Raises VolumeBindingError for a lookup that fails."""
        claims = PodVolumeClaims()
        namespace = pod.metadata.namespace or "default"
        seen: set[str] = set()
        for ref in claim_refs_of_pod(pod):
            key = f"{namespace}/{ref.name}"
            if self.options.deduplicate_claims and key in seen:
                continue
            seen.add(key)
            try:
                pvc = self.pvc_cache.get(key)
            except AssumeCacheError as exc:
                raise VolumeBindingError(f'error getting PVC "{key}": {exc}') from None
            if ref.ephemeral:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    raise VolumeBindingError(problem)
            if is_fully_bound(pvc):
                claims.bound.append(pvc)
                continue
            try:
                delayed = is_delay_binding_mode(pvc, self.listers.storage_class)
            except ValueError as exc:
                raise VolumeBindingError(str(exc)) from None
            if delayed and not pvc.spec.volume_name:
                claims.delayed.append(pvc)
            else:
                claims.immediate.append(pvc)
        for pvc in claims.delayed:
            name = claim_class(pvc)
            if name not in claims.volumes_by_class:
                claims.volumes_by_class[name] = self.pv_cache.class_volumes(name)
        claims.full_check_hosts = full_check_hosts(
            claims.bound, claims.delayed, claims.volumes_by_class, self.pv_cache.get, self.listers
        )
        return claims

    # -- Filter ---------------------------------------------------------------------------
    def find_pod_volumes(
        self, pod: Pod, claims: PodVolumeClaims, node: Node
    ) -> tuple[PodVolumes, list[str]]:
        """What the pod's volumes need on `node`, and why the node does not fit (reasons in
        upstream's order: node conflict, bind conflict, not enough space, PV missing).
        Raises VolumeBindingError for a hard error.

        A node outside `claims.full_check_hosts` gets (a copy of) the answer the first
        such node got: the scheduling cycle runs without yielding, so nothing the check
        reads changes between nodes."""
        hosts = claims.full_check_hosts
        if hosts is None or node.metadata.labels.get(HOSTNAME_LABEL) in hosts:
            return self._find_pod_volumes(claims, node)
        if claims.shared_answer is None:
            volumes, reasons = self._find_pod_volumes(claims, node)
            claims.shared_answer = (_copied(volumes), reasons)
        else:
            volumes, reasons = claims.shared_answer
        return _copied(volumes), list(reasons)

    def _find_pod_volumes(
        self, claims: PodVolumeClaims, node: Node
    ) -> tuple[PodVolumes, list[str]]:
        bound_ok = unbound_ok = space_ok = pvs_found = True
        volumes = PodVolumes()

        def reasons() -> list[str]:
            out = []
            if not bound_ok:
                out.append(ERR_REASON_NODE_CONFLICT)
            if not unbound_ok:
                out.append(ERR_REASON_BIND_CONFLICT)
            if not space_ok:
                out.append(ERR_REASON_NOT_ENOUGH_SPACE)
            if not pvs_found:
                out.append(ERR_REASON_PV_NOT_EXIST)
            return out

        if claims.bound:
            bound_ok, pvs_found = self._check_bound_claims(claims.bound, node)
        if not claims.delayed:
            return volumes, reasons()

        to_match: list[PersistentVolumeClaim] = []
        to_provision: list[PersistentVolumeClaim] = []
        for claim in claims.delayed:
            selected = claim.metadata.annotations.get(ANN_SELECTED_NODE)
            if selected is None:
                to_match.append(claim)
            elif selected == node.metadata.name:
                to_provision.append(claim)
            elif self.options.ignore_missing_selected_node and self.listers.node(selected) is None:
                to_match.append(claim)
            else:
                unbound_ok = False  # fast path: the claim is being provisioned elsewhere
                return volumes, reasons()

        if to_match:
            unbound_ok, bindings, unmatched = self._find_matching_volumes(
                to_match, claims.volumes_by_class, node
            )
            volumes.static_bindings = bindings or None
            to_provision.extend(unmatched)
        if to_provision:
            unbound_ok, space_ok, provisions = self._check_volume_provisions(to_provision, node)
            volumes.dynamic_provisions = provisions or None
        return volumes, reasons()

    def checked_pv(self, pv: PersistentVolume, csi_node: CSINode | None) -> PersistentVolume:
        """The PV whose node affinity is checked on a node with this CSINode: translated
        to CSI when its in-tree plugin migrated there, else `pv`. Raises
        VolumeBindingError when a migrated PV cannot be translated."""
        try:
            return try_translate_pv_to_csi(pv, csi_node)
        except TranslationError as exc:
            raise VolumeBindingError(str(exc)) from None

    def _check_bound_claims(
        self, claims: list[PersistentVolumeClaim], node: Node
    ) -> tuple[bool, bool]:
        """(affinity satisfied, every PV found) for the bound claims; stops at the first
        PV that is missing or rejects the node. Raises VolumeBindingError when a migrated
        PV cannot be translated."""
        csi_node = self.listers.csi_node(node.metadata.name)
        for pvc in claims:
            try:
                pv = self.pv_cache.get(pvc.spec.volume_name)
            except AssumeCacheError:
                return True, False
            pv = self.checked_pv(pv, csi_node)
            if node_affinity_error(pv, node.metadata.labels) is not None:
                return False, True
        return True, True

    def _find_matching_volumes(
        self,
        claims: list[PersistentVolumeClaim],
        volumes_by_class: dict[str, Sequence[PersistentVolume]],
        node: Node,
    ) -> tuple[bool, list[BindingInfo], list[PersistentVolumeClaim]]:
        """Smallest request first, each claim takes the smallest fitting PV and no PV is
        given to two claims of the pod. Returns (all matched, bindings, unmatched)."""
        ordered = (
            claims
            if len(claims) < 2
            else sorted(claims, key=lambda c: (requested_storage(c), c.metadata.name))
        )
        chosen: set[str] = set()
        bindings: list[BindingInfo] = []
        unmatched: list[PersistentVolumeClaim] = []
        vac = self.features.volume_attributes_class
        for pvc in ordered:
            volumes = volumes_by_class.get(claim_class(pvc), ())
            if isinstance(volumes, ClassVolumes):
                pv = volumes.find_matching_volume(pvc, node, chosen, volume_attributes_class=vac)
            else:
                pv = find_matching_volume(
                    pvc, volumes, node, chosen, delay_binding=True, volume_attributes_class=vac
                )
            if pv is None:
                unmatched.append(pvc)
                continue
            chosen.add(pv.metadata.name)
            bindings.append(BindingInfo(pvc, pv))
        return not unmatched, bindings, unmatched

    def _check_volume_provisions(
        self, claims: list[PersistentVolumeClaim], node: Node
    ) -> tuple[bool, bool, list[DynamicProvision]]:
        """(provisionable, enough space, provisions) for claims no PV satisfied; the first
        claim that fails decides and leaves no provisions."""
        provisions: list[DynamicProvision] = []
        labels = node.metadata.labels
        for claim in claims:
            name = claim_class(claim)
            if not name:
                raise VolumeBindingError(f'no class for claim "{claim.key}"')
            sc = self.listers.storage_class(name)
            if sc is None:
                raise VolumeBindingError(f'failed to find storage class "{name}"')
            if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, []
            if not topology_matches(sc.allowed_topologies, labels):
                return False, True, []
            enough, capacity = capacity_for(
                claim,
                sc,
                node,
                self.listers.csi_driver,
                self.listers.csi_storage_capacities,
            )
            if not enough:
                return True, False, []
            provisions.append(DynamicProvision(claim, capacity))
        return True, True, provisions

    # -- Reserve / Unreserve --------------------------------------------------------------
    def assume_pod_volumes(self, pod: Pod, node_name: str, volumes: PodVolumes) -> bool:
        """Assume the node's bindings (PVs pre-bound to their claims) and provisions (claims
        with selected-node) in the caches; True when every claim is already bound and
        nothing was assumed. On error everything assumed here is restored and the error
        (AssumeCacheError) raised."""
        if self.are_pod_volumes_bound(pod):
            return True
        new_bindings: list[BindingInfo] = []
        for binding in volumes.static_bindings or []:
            new_pv, dirty = bind_volume_to_claim(binding.pv, binding.pvc)
            if dirty:
                try:
                    self.pv_cache.assume(new_pv)
                except AssumeCacheError:
                    self._revert_pvs(new_bindings)
                    raise
            new_bindings.append(BindingInfo(binding.pvc, new_pv))
        new_provisions: list[DynamicProvision] = []
        for provision in volumes.dynamic_provisions or []:
            clone = provision.pvc.model_copy(deep=True)
            clone.metadata.annotations[ANN_SELECTED_NODE] = node_name
            try:
                self.pvc_cache.assume(clone)
            except AssumeCacheError:
                self._revert_pvs(new_bindings)
                self._revert_pvcs(new_provisions)
                raise
            new_provisions.append(DynamicProvision(clone, provision.node_capacity))
        volumes.static_bindings = new_bindings
        volumes.dynamic_provisions = new_provisions
        return False

    def revert_assumed_pod_volumes(self, volumes: PodVolumes) -> None:
        """Restore the informer's objects for everything the node's decision assumed."""
        self._revert_pvs(volumes.static_bindings or [])
        self._revert_pvcs(volumes.dynamic_provisions or [])

    def _revert_pvs(self, bindings: list[BindingInfo]) -> None:
        for binding in bindings:
            self.pv_cache.restore(binding.pv.metadata.name)

    def _revert_pvcs(self, provisions: list[DynamicProvision]) -> None:
        for provision in provisions:
            self.pvc_cache.restore(provision.pvc.key)

    def are_pod_volumes_bound(self, pod: Pod) -> bool:
        """Every claim of the pod (latest view) is fully bound."""
        namespace = pod.metadata.namespace or "default"
        for ref in claim_refs_of_pod(pod):
            try:
                pvc = self.pvc_cache.get(f"{namespace}/{ref.name}")
            except AssumeCacheError:
                return False
            if ref.ephemeral and volume_is_for_pod(pod, pvc) is not None:
                return False
            if not is_fully_bound(pvc):
                return False
        return True
