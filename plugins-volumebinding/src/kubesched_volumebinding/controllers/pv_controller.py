"""The PV controller of the embedded cluster: finishes the bindings PreBind starts.

Upstream: pkg/controller/volume/persistentvolume/pv_controller.go (syncClaim, syncVolume,
bind, unbindVolume, reclaimVolume), much reduced. It

- binds a PV whose claimRef names a claim: the claim gets `volumeName` and
  `pv.kubernetes.io/bind-completed`, both get phase Bound;
- binds Immediate claims to the smallest matching Available PV (WaitForFirstConsumer
  claims only to PVs pre-bound to them: the scheduler picks those);
- marks claims whose volume is gone Lost, and PVs without a claim Available;
- gives claims without a class the default StorageClass (retroactive default class);
- handles a PV whose claim is gone: one the scheduler had only reserved (never Bound) is
  unbound and Available again; a Bound one is Released, then deleted when its reclaim
  policy is Delete (upstream releases both).

`pause()` holds every binding open (a test can watch PreBind time out); `resume()`
re-examines everything.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kubesched import NotFoundError
from kubesched.cluster import WatchEvent, WorkQueue
from kubesched_volumebinding.controllers._claim_candidates import ClaimCandidates
from kubesched_volumebinding.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    Listers,
    PersistentVolume,
    PersistentVolumeClaim,
    access_modes_satisfied,
    claim_class,
    default_storage_class,
    is_delay_binding_mode,
    is_volume_bound_to_claim,
    volume_mode_mismatch,
)
from kubesched_volumebinding.volumebinding.binder import bind_volume_to_claim
from kubesched_volumebinding.volumebinding.matching import find_matching_volume

__all__ = ["PVController"]

_PROVISIONER_ANNOTATIONS = (
    "volume.kubernetes.io/storage-provisioner",
    "volume.beta.kubernetes.io/storage-provisioner",
)
_PV = "pv:"
_PVC = "pvc:"


class PVController:
    """Binds claims and volumes in the memory cluster (a `kubesched.cluster.Controller`)."""

    name = "persistentvolume-binder"

    def __init__(self, *, enabled: bool = True, retroactive_default_class: bool = True) -> None:
        self.enabled = enabled
        self.retroactive_default_class = retroactive_default_class
        self._cluster: Any = None
        self._listers: Listers | None = None
        self._queue = WorkQueue(self.name, self._sync)
        self._volumes = ClaimCandidates()

    # -- Controller -----------------------------------------------------------------------
    def start(self, cluster: Any) -> None:
        self._cluster = cluster
        self._listers = Listers(cluster)
        cluster.watch("PersistentVolume", self._on_volume)
        cluster.watch("PersistentVolumeClaim", self._on_claim)

    def busy(self) -> bool:
        return self.enabled and self._queue.busy()

    def pause(self) -> None:
        """Stop binding; queued work waits until `resume()`."""
        self.enabled = False

    def resume(self) -> None:
        """Bind again, re-examining every PV and claim."""
        self.enabled = True
        if self._cluster is None:
            return
        for pv in self._cluster.list("PersistentVolume"):
            self._queue.add(_PV + pv.metadata.name)
        for pvc in self._cluster.list("PersistentVolumeClaim"):
            self._queue.add(_PVC + pvc.key)

    # -- events ---------------------------------------------------------------------------
    def _on_volume(self, event: WatchEvent) -> None:
        pv: PersistentVolume = event.obj
        if event.type == "DELETED":
            for pvc in self._cluster.list("PersistentVolumeClaim"):
                if pvc.spec.volume_name == pv.metadata.name:
                    self._add(_PVC + pvc.key)
            return
        self._add(_PV + pv.metadata.name)

    def _on_claim(self, event: WatchEvent) -> None:
        pvc: PersistentVolumeClaim = event.obj
        if event.type == "DELETED":
            for pv in self._cluster.list("PersistentVolume"):
                ref = pv.spec.claim_ref
                if ref is not None and f"{ref.namespace}/{ref.name}" == pvc.key:
                    self._add(_PV + pv.metadata.name)
            return
        self._add(_PVC + pvc.key)

    def _add(self, key: str) -> None:
        if self.enabled:
            self._queue.add(key)

    async def _sync(self, key: str) -> None:
        if not self.enabled:
            return
        if key.startswith(_PV):
            await self.sync_volume(key[len(_PV) :])
        else:
            namespace, _, name = key[len(_PVC) :].partition("/")
            await self.sync_claim(namespace, name)

    @property
    def listers(self) -> Listers:
        assert self._listers is not None, "PVController.start() was not called"
        return self._listers

    # -- claims ---------------------------------------------------------------------------
    async def sync_claim(self, namespace: str, name: str) -> None:
        claim = self.listers.claim(namespace, name)
        if claim is None:
            return
        if (
            self.retroactive_default_class
            and claim.spec.storage_class_name is None
            and not claim.spec.volume_name
        ):
            default = default_storage_class(self.listers.storage_classes())
            if default is not None:
                copy = claim.model_copy(deep=True)
                copy.spec.storage_class_name = default.metadata.name
                await self._cluster.update(copy)
                return
        if ANN_BIND_COMPLETED in claim.metadata.annotations:
            await self._sync_bound_claim(claim)
        else:
            await self._sync_unbound_claim(claim)

    async def _sync_unbound_claim(self, claim: PersistentVolumeClaim) -> None:
        if not claim.spec.volume_name:
            try:
                delayed = is_delay_binding_mode(claim, self.listers.storage_class)
            except ValueError:
                return  # upstream records an event and waits for the class to be fixed
            self._volumes.follow(self._cluster.list("PersistentVolume"))
            candidates = sorted(
                _candidates(self._volumes, claim, delayed), key=lambda p: p.metadata.name
            )
            pv = find_matching_volume(claim, candidates, None, (), delay_binding=delayed)
            if pv is None:
                if not delayed or ANN_SELECTED_NODE in claim.metadata.annotations:
                    claim = await self._hand_to_provisioner(claim)
                await self._set_claim_phase(claim, "Pending")
                return  # a provisioner (or the scheduler) takes it from here
            await self._bind(pv, claim)
            return
        pv = self.listers.volume(claim.spec.volume_name)
        if pv is None:
            await self._set_claim_phase(claim, "Pending")
            return
        if pv.spec.claim_ref is None:
            if volume_mode_mismatch(claim, pv):
                return
            await self._bind(pv, claim)
        elif is_volume_bound_to_claim(pv, claim):
            await self._bind(pv, claim)
        else:
            await self._set_claim_phase(claim, "Pending")  # the volume is someone else's

    async def _hand_to_provisioner(self, claim: PersistentVolumeClaim) -> PersistentVolumeClaim:
        """Name the class's external provisioner on the claim (upstream setClaimProvisioner),
        which is how the provisioner knows the claim is its to provision."""
        sc = self.listers.storage_class(claim_class(claim))
        if sc is None or not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
            return claim
        annotations = claim.metadata.annotations
        if all(annotations.get(a) == sc.provisioner for a in _PROVISIONER_ANNOTATIONS):
            return claim
        copy = claim.model_copy(deep=True)
        for a in _PROVISIONER_ANNOTATIONS:
            copy.metadata.annotations[a] = sc.provisioner
        updated: PersistentVolumeClaim = await self._cluster.update(copy)
        return updated

    async def _sync_bound_claim(self, claim: PersistentVolumeClaim) -> None:
        if not claim.spec.volume_name:
            await self._set_claim_phase(claim, "Lost")
            return
        pv = self.listers.volume(claim.spec.volume_name)
        if pv is None:
            await self._set_claim_phase(claim, "Lost")
        elif pv.spec.claim_ref is None or is_volume_bound_to_claim(pv, claim):
            await self._bind(pv, claim)
        else:
            await self._set_claim_phase(claim, "Lost")

    async def _bind(self, pv: PersistentVolume, claim: PersistentVolumeClaim) -> None:
        """PV first (claimRef, phase Bound), then the claim (volumeName, bind-completed,
        phase Bound); each write only when something changes."""
        new_pv, dirty = bind_volume_to_claim(pv, claim)
        if new_pv.status.phase != "Bound":
            new_pv.status.phase = "Bound"
            dirty = True
        if dirty:
            pv = await self._cluster.update(new_pv)
        copy = claim.model_copy(deep=True)
        dirty = False
        annotations = copy.metadata.annotations
        if copy.spec.volume_name != pv.metadata.name:
            copy.spec.volume_name = pv.metadata.name
            annotations.setdefault(ANN_BOUND_BY_CONTROLLER, "yes")
            dirty = True
        if ANN_BIND_COMPLETED not in annotations:
            annotations[ANN_BIND_COMPLETED] = "yes"
            dirty = True
        status = copy.status
        if status.phase != "Bound":
            status.phase = "Bound"
            status.access_modes = list(pv.spec.access_modes)
            status.capacity = dict(pv.spec.capacity)
            dirty = True
        if dirty:
            await self._cluster.update(copy)

    async def _set_claim_phase(self, claim: PersistentVolumeClaim, phase: str) -> None:
        if claim.status.phase == phase:
            return
        copy = claim.model_copy(deep=True)
        copy.status.phase = phase
        await self._cluster.update(copy)

    # -- volumes --------------------------------------------------------------------------
    async def sync_volume(self, name: str) -> None:
        pv = self.listers.volume(name)
        if pv is None:
            return
        ref = pv.spec.claim_ref
        if ref is None:
            await self._set_volume_phase(pv, "Available")
            return
        if not ref.uid:
            # reserved for a claim by name; the claim's sync binds it
            await self._set_volume_phase(pv, "Available")
            self._add(f"{_PVC}{ref.namespace or 'default'}/{ref.name}")
            return
        claim = self.listers.claim(ref.namespace or "default", ref.name)
        if claim is not None and claim.metadata.uid != ref.uid:
            claim = None  # deleted and created again: not our claim
        if claim is None:
            await self._claim_gone(pv)
        elif not claim.spec.volume_name:
            self._add(_PVC + claim.key)
        elif claim.spec.volume_name == pv.metadata.name:
            await self._set_volume_phase(pv, "Bound")
        elif (
            ANN_DYNAMICALLY_PROVISIONED in pv.metadata.annotations
            and pv.spec.persistent_volume_reclaim_policy == "Delete"
        ):
            await self._delete_volume(pv)  # provisioned for a claim bound elsewhere
        else:
            await self._unbind(pv)

    async def _claim_gone(self, pv: PersistentVolume) -> None:
        controller_reserved = ANN_BOUND_BY_CONTROLLER in pv.metadata.annotations
        if pv.status.phase in ("Available", "Pending") and controller_reserved:
            await self._unbind(pv)  # a reservation whose claim vanished: free the PV
            return
        if pv.status.phase == "Released":
            return  # Retain: stays released (a Delete PV is gone already)
        if pv.spec.persistent_volume_reclaim_policy == "Delete":
            await self._delete_volume(pv)
        else:
            await self._set_volume_phase(pv, "Released")

    async def _unbind(self, pv: PersistentVolume) -> None:
        """Controller-made bindings are dropped; a user's pre-binding keeps the name and
        loses only the uid (upstream unbindVolume)."""
        copy = pv.model_copy(deep=True)
        if ANN_BOUND_BY_CONTROLLER in copy.metadata.annotations:
            copy.spec.claim_ref = None
            del copy.metadata.annotations[ANN_BOUND_BY_CONTROLLER]
        elif copy.spec.claim_ref is not None:
            copy.spec.claim_ref.uid = ""
        copy.status.phase = "Available"
        await self._cluster.update(copy)

    async def _set_volume_phase(self, pv: PersistentVolume, phase: str) -> None:
        if pv.status.phase == phase:
            return
        copy = pv.model_copy(deep=True)
        copy.status.phase = phase
        await self._cluster.update(copy)

    async def _delete_volume(self, pv: PersistentVolume) -> None:
        with contextlib.suppress(NotFoundError):
            await self._cluster.delete("PersistentVolume", pv.metadata.name)


def _candidates(
    volumes: ClaimCandidates, claim: PersistentVolumeClaim, delayed: bool
) -> list[PersistentVolume]:
    """The PVs `find_matching_volume` could choose for the claim without a node: those
    pre-bound to it and, for an Immediate claim, unbound ones of its class; all with the
    access modes it asks for. Leaving the rest out first changes nothing but the cost."""
    out = [
        pv
        for pv in volumes.pre_bound_to(claim.metadata.name)
        if is_volume_bound_to_claim(pv, claim)
    ]
    if not delayed:
        out += volumes.unbound_of_class(claim_class(claim))
    return [pv for pv in out if access_modes_satisfied(claim, pv)]
