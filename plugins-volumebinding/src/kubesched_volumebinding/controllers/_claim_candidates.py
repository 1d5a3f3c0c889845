"""The PVs the PV controller may bind a claim to, without looking at every PV.

Upstream's controller keeps its PVs in an index (pv_index.go persistentVolumeOrderedIndex,
by access modes) fed by its informer. Here the controller reads the cluster's current list
on every sync, and this index follows that list exactly: it compares the list with the one
it saw last, object by object and by identity (the cluster replaces an object on every
write, never changes one), and files again only the PVs at positions that differ. The
comparison runs in C, so a sync costs a list copy rather than a Python step per PV.

PVs are filed by the claim name their claimRef names and, without a claimRef, by class:
a claim's candidates are those pre-bound to its name and, for an Immediate claim, the
unbound ones of its class.
"""

from __future__ import annotations

from itertools import compress
from operator import is_not

from kubesched_volumebinding.storage import PersistentVolume, volume_class

__all__ = ["ClaimCandidates"]


class ClaimCandidates:
    """PVs by claimRef name and, unbound, by class, as of the last `follow(list)`."""

    __slots__ = ("_by_claim", "_listed", "_unbound")

    def __init__(self) -> None:
        self._listed: list[PersistentVolume] = []
        self._by_claim: dict[str, dict[str, PersistentVolume]] = {}
        self._unbound: dict[str, dict[str, PersistentVolume]] = {}

    def follow(self, current: list[PersistentVolume]) -> None:
        """Make the index hold exactly the PVs of `current` (the cluster's list)."""
        old = self._listed
        shared = min(len(old), len(current))
        changed = list(compress(range(shared), map(is_not, old, current)))
        for i in changed:
            self._drop(old[i])
        for pv in old[shared:]:
            self._drop(pv)
        for i in changed:
            self._put(current[i])
        for pv in current[shared:]:
            self._put(pv)
        self._listed = current

    def pre_bound_to(self, claim_name: str) -> list[PersistentVolume]:
        """The PVs whose claimRef names a claim of this name (any namespace)."""
        return list(self._by_claim.get(claim_name, {}).values())

    def unbound_of_class(self, class_name: str) -> list[PersistentVolume]:
        """The PVs without a claimRef whose class is `class_name`."""
        return list(self._unbound.get(class_name, {}).values())

    def _bucket(self, pv: PersistentVolume) -> tuple[dict[str, dict[str, PersistentVolume]], str]:
        ref = pv.spec.claim_ref
        if ref is not None:
            return self._by_claim, ref.name
        return self._unbound, volume_class(pv)

    def _put(self, pv: PersistentVolume) -> None:
        table, key = self._bucket(pv)
        table.setdefault(key, {})[pv.metadata.name] = pv

    def _drop(self, pv: PersistentVolume) -> None:
        table, key = self._bucket(pv)
        bucket = table[key]
        del bucket[pv.metadata.name]
        if not bucket:
            del table[key]
