"""The PVs of one storage class, indexed so Filter looks at a node's candidates only.

Upstream lists a class's PVs once per cycle (volume_binding.go PreFilter, issue #114075)
and then, on every node, runs FindMatchingVolume (component-helpers/storage/volume/
pv_helpers.go) over all of them. With local PVs, each pinned to one node, that is
nodes x PVs checks per pod, nearly all of them rejecting the PV for its node affinity.
The design doc's second optimisation (contributors/design-proposals/storage/
volume-topology-scheduling.md) indexes PVs by the node they can reach; this module does
that, with the same answer as the plain scan (`matching.find_matching_volume`):

- a PV with a claimRef can only ever be chosen by that claim: it is kept under the
  claim's namespace/name, in list (name) order, and the first one that fits decides, as
  the scan returns at the first pre-bound PV it meets;
- an unbound PV whose required node affinity can only accept nodes with certain
  `kubernetes.io/hostname` label values (every term that can match has a hostname `In`)
  is kept under each of those values; other unbound PVs are kept "unpinned". Nodes are
  looked up by their hostname *label*, never by their name (upstream issue #125336);
- an unbound PV that no node can take (not Available, being deleted, or node affinity
  that matches nothing) is kept only for listing.

Unbound candidates are sorted by (capacity, name): the scan keeps the smallest PV that
fits, ties to the first in name order, so the first candidate of a list that passes every
check is that list's answer, and the smaller of the unpinned and the node's answers wins.

`ClassVolumeIndex` is kept up to date by the PV assume cache on every change of a PV's
latest object (informer add/update/delete, assume, restore); `snapshot()` hands out an
immutable `ClassVolumes` that PreFilter keeps for the whole cycle, so every node's Filter
sees the same PVs (changes after it copy what they touch).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from fractions import Fraction
from typing import Final, overload

from kubesched.api import Node
from kubesched_volumebinding.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    access_modes_satisfied,
    claim_class,
    is_volume_bound_to_claim,
    node_affinity_error,
    pv_capacity,
    requested_storage,
    volume_class,
    volume_mode_mismatch,
)

__all__ = ["HOSTNAME_LABEL", "ClassVolumeIndex", "ClassVolumes", "pinned_hostnames"]

HOSTNAME_LABEL: Final = "kubernetes.io/hostname"

_Entry = tuple[Fraction, str, PersistentVolume]
"""An unbound candidate: (capacity, name, PV); names are unique in a class."""
_ClaimKey = tuple[str, str]
_EMPTY: Final[tuple[_Entry, ...]] = ()


def _capacity_of(entry: _Entry) -> Fraction:
    return entry[0]


def pinned_hostnames(pv: PersistentVolume) -> frozenset[str] | None:
    """The `kubernetes.io/hostname` label values of the only nodes the PV's required node
    affinity can accept (empty: no node at all), or None when it may accept a node
    whatever its hostname.

    Terms are ORed: each term that can match (not empty, no `matchFields`, which never
    match a node known by its labels, see `node_affinity_error`) must require the hostname
    `In` some values, and the PV reaches the union of them.
    """
    affinity = pv.spec.node_affinity
    if affinity is None or affinity.required is None:
        return None
    hosts: set[str] = set()
    for term in affinity.required.node_selector_terms:
        if not term.match_expressions or term.match_fields:
            continue
        allowed: frozenset[str] | None = None
        for req in term.match_expressions:
            if req.key == HOSTNAME_LABEL and req.operator == "In":
                values = frozenset(req.values)
                allowed = values if allowed is None else allowed & values
        if allowed is None:
            return None
        hosts |= allowed
    return frozenset(hosts)


def _reachable(pv: PersistentVolume) -> bool:
    """An unbound PV the scheduler could choose on some node (the scan's checks that do
    not depend on the claim: phase Available, not being deleted)."""
    return pv.status.phase == "Available" and pv.metadata.deletion_timestamp is None


def _same_volume_attributes(claim: PersistentVolumeClaim, pv: PersistentVolume, vac: bool) -> bool:
    if vac:
        return (claim.spec.volume_attributes_class_name or "") == (
            pv.spec.volume_attributes_class_name or ""
        )
    return not pv.spec.volume_attributes_class_name


class ClassVolumes(Sequence[PersistentVolume]):
    """An immutable view of one class's PVs: a sequence in name order (as the assume
    cache lists them) with an indexed `find_matching_volume`."""

    __slots__ = ("_by_host", "_claimed", "_count", "_listing", "_others", "_unpinned")

    def __init__(
        self,
        unpinned: tuple[_Entry, ...],
        by_host: dict[str, tuple[_Entry, ...]],
        claimed: dict[_ClaimKey, tuple[PersistentVolume, ...]],
        others: dict[str, PersistentVolume],
        count: int,
    ) -> None:
        self._unpinned = unpinned
        self._by_host = by_host
        self._claimed = claimed
        self._others = others
        self._count = count
        self._listing: list[PersistentVolume] | None = None

    @classmethod
    def of(cls, volumes: Sequence[PersistentVolume]) -> ClassVolumes:
        """An index of these PVs (for tests and callers without an assume cache)."""
        index = ClassVolumeIndex()
        for pv in volumes:
            index.put(pv)
        return index.snapshot()

    # -- Sequence -------------------------------------------------------------------------
    def _all(self) -> list[PersistentVolume]:
        if self._listing is None:
            found: dict[str, PersistentVolume] = dict(self._others)
            for entry in self._unpinned:
                found[entry[1]] = entry[2]
            for bucket in self._by_host.values():
                for entry in bucket:
                    found[entry[1]] = entry[2]
            for pvs in self._claimed.values():
                for pv in pvs:
                    found[pv.metadata.name] = pv
            self._listing = [found[name] for name in sorted(found)]
        return self._listing

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> PersistentVolume: ...

    @overload
    def __getitem__(self, index: slice) -> list[PersistentVolume]: ...

    def __getitem__(self, index: int | slice) -> PersistentVolume | list[PersistentVolume]:
        return self._all()[index]

    def __iter__(self) -> Iterator[PersistentVolume]:
        return iter(self._all())

    def __repr__(self) -> str:
        return f"ClassVolumes({[pv.metadata.name for pv in self._all()]})"

    # -- matching -------------------------------------------------------------------------
    def pinned_hosts(self, claim: PersistentVolumeClaim) -> AbstractSet[str] | None:
        """The hostname label values of the only nodes where `find_matching_volume` may
        find the claim a PV (those an unbound PV is pinned to), or None when it may find
        one on any node (a PV pre-bound to the claim, an unpinned PV). A view of this
        immutable index, no copy (cycle states holding it may wait long in PreBind)."""
        if self._unpinned or (claim.metadata.namespace or "default", claim.metadata.name) in (
            self._claimed
        ):
            return None
        return self._by_host.keys()

    def find_matching_volume(
        self,
        claim: PersistentVolumeClaim,
        node: Node,
        excluded: Collection[str],
        *,
        volume_attributes_class: bool = True,
    ) -> PersistentVolume | None:
        """What `matching.find_matching_volume(claim, list(self), node, excluded,
        delay_binding=True, ...)` returns, looking only at the claim's pre-bound PVs and
        at the unbound PVs that may reach `node`."""
        requested = requested_storage(claim)
        vac = volume_attributes_class
        labels = node.metadata.labels
        key = (claim.metadata.namespace or "default", claim.metadata.name)
        for pv in self._claimed.get(key, ()):
            if (
                pv.metadata.name in excluded
                or not is_volume_bound_to_claim(pv, claim)
                or pv_capacity(pv) < requested
                or volume_mode_mismatch(claim, pv)
                or not _same_volume_attributes(claim, pv, vac)
                or pv.metadata.deletion_timestamp is not None
            ):
                continue
            # the first pre-bound PV that fits decides, even if the node rejects it
            return pv if node_affinity_error(pv, labels) is None else None

        best: _Entry | None = None
        host = labels.get(HOSTNAME_LABEL)
        pinned = self._by_host.get(host, _EMPTY) if host is not None else _EMPTY
        for bucket in (self._unpinned, pinned):
            if bucket:
                entry = self._first_fit(bucket, claim, requested, labels, excluded, vac, best)
                if entry is not None:
                    best = entry
        return best[2] if best is not None else None

    @staticmethod
    def _first_fit(
        bucket: tuple[_Entry, ...],
        claim: PersistentVolumeClaim,
        requested: Fraction,
        labels: Mapping[str, str],
        excluded: Collection[str],
        vac: bool,
        best: _Entry | None,
    ) -> _Entry | None:
        """The first candidate (by capacity, name) that fits, if it beats `best`."""
        requested_class = claim_class(claim)
        selector = claim.spec.selector
        for i in range(bisect_left(bucket, requested, key=_capacity_of), len(bucket)):
            entry = bucket[i]
            if best is not None and entry[:2] >= best[:2]:
                return None
            pv = entry[2]
            if (
                entry[1] in excluded
                or volume_mode_mismatch(claim, pv)
                or not _same_volume_attributes(claim, pv, vac)
                or (selector is not None and not selector.matches(pv.metadata.labels))
                or volume_class(pv) != requested_class
                or not access_modes_satisfied(claim, pv)
                or node_affinity_error(pv, labels) is not None
            ):
                continue
            return entry
        return None


class ClassVolumeIndex:
    """The index of one class's PVs as they change; `snapshot()` is what PreFilter keeps.

    Buckets are tuples, never changed in place; the dicts holding them are copied on the
    first change after a snapshot was handed out, so a snapshot never changes.
    """

    __slots__ = ("_by_host", "_claimed", "_members", "_others", "_snapshot", "_unpinned")

    def __init__(self) -> None:
        self._members: dict[str, PersistentVolume] = {}
        self._unpinned: tuple[_Entry, ...] = ()
        self._by_host: dict[str, tuple[_Entry, ...]] = {}
        self._claimed: dict[_ClaimKey, tuple[PersistentVolume, ...]] = {}
        self._others: dict[str, PersistentVolume] = {}
        self._snapshot: ClassVolumes | None = None

    def __len__(self) -> int:
        return len(self._members)

    def snapshot(self) -> ClassVolumes:
        if self._snapshot is None:
            self._snapshot = ClassVolumes(
                self._unpinned, self._by_host, self._claimed, self._others, len(self._members)
            )
        return self._snapshot

    def _unshare(self) -> None:
        if self._snapshot is not None:
            self._by_host = dict(self._by_host)
            self._claimed = dict(self._claimed)
            self._others = dict(self._others)
            self._snapshot = None

    def put(self, pv: PersistentVolume) -> None:
        """Add the PV, or replace the one of the same name."""
        name = pv.metadata.name
        self.remove(name)
        self._unshare()
        self._members[name] = pv
        ref = pv.spec.claim_ref
        if ref is not None:
            key = (ref.namespace, ref.name)
            pvs = self._claimed.get(key, ())
            names = [p.metadata.name for p in pvs]
            at = bisect_left(names, name)
            self._claimed[key] = (*pvs[:at], pv, *pvs[at:])
            return
        hosts = pinned_hostnames(pv) if _reachable(pv) else frozenset()
        if hosts is not None and not hosts:
            self._others[name] = pv
            return
        entry: _Entry = (pv_capacity(pv), name, pv)
        if hosts is None:
            self._unpinned = _inserted(self._unpinned, entry)
            return
        for host in hosts:
            self._by_host[host] = _inserted(self._by_host.get(host, ()), entry)

    def remove(self, name: str) -> None:
        """Drop the PV of this name, if any."""
        pv = self._members.pop(name, None)
        if pv is None:
            return
        self._unshare()
        ref = pv.spec.claim_ref
        if ref is not None:
            key = (ref.namespace, ref.name)
            rest = tuple(p for p in self._claimed[key] if p.metadata.name != name)
            if rest:
                self._claimed[key] = rest
            else:
                del self._claimed[key]
            return
        if self._others.pop(name, None) is not None:
            return
        entry: _Entry = (pv_capacity(pv), name, pv)
        hosts = pinned_hostnames(pv)
        if hosts is None:
            self._unpinned = _without(self._unpinned, entry)
            return
        for host in hosts:
            bucket = _without(self._by_host[host], entry)
            if bucket:
                self._by_host[host] = bucket
            else:
                del self._by_host[host]


def _inserted(bucket: tuple[_Entry, ...], entry: _Entry) -> tuple[_Entry, ...]:
    at = bisect_left(bucket, entry[:2], key=lambda e: e[:2])
    return (*bucket[:at], entry, *bucket[at:])


def _without(bucket: tuple[_Entry, ...], entry: _Entry) -> tuple[_Entry, ...]:
    at = bisect_left(bucket, entry[:2], key=lambda e: e[:2])
    assert bucket[at][1] == entry[1], "a PV left the index it was not in"
    return bucket[:at] + bucket[at + 1 :]
