"""Choosing a PV for a claim, and checking that a class can provision on a node.

Upstream: component-helpers/storage/volume/pv_helpers.go (FindMatchingVolume) and
volumebinding/binder.go (checkVolumeProvisions, hasEnoughCapacity, nodeHasAccess).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from fractions import Fraction

from kubesched.api import Node, int_value
from kubesched_volumebinding.storage import (
    CSIDriver,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    access_modes_satisfied,
    claim_class,
    is_volume_bound_to_claim,
    node_affinity_error,
    pv_capacity,
    request_bytes,
    requested_storage,
    volume_class,
    volume_limit,
    volume_mode_mismatch,
)

__all__ = [
    "capacity_for",
    "find_matching_volume",
    "node_has_access",
]


def find_matching_volume(
    claim: PersistentVolumeClaim,
    volumes: Sequence[PersistentVolume],
    node: Node | None,
    excluded: Collection[str],
    *,
    delay_binding: bool,
    volume_attributes_class: bool = True,
) -> PersistentVolume | None:
    """The best PV for `claim` among `volumes`, or None.

    A PV pre-bound to the claim wins outright (or, when its node affinity rejects `node`,
    nothing matches at all). Otherwise the smallest Available PV that fits: enough
    capacity, same volume mode, class and attributes class, labels the claim's selector
    accepts, node affinity and (with a node) access modes. Ties go to the PV seen first.

    `node` is None on the PV controller's path; there `delay_binding` makes only pre-bound
    PVs match, since the scheduler binds the rest.
    """
    requested = requested_storage(claim)
    requested_class = claim_class(claim)
    selector = claim.spec.selector
    labels = node.metadata.labels if node is not None else None
    smallest: PersistentVolume | None = None
    smallest_size = Fraction(0)
    for pv in volumes:
        if pv.metadata.name in excluded:
            continue
        bound_to_claim = False
        if pv.spec.claim_ref is not None:
            if not is_volume_bound_to_claim(pv, claim):
                continue
            bound_to_claim = True
        size = pv_capacity(pv)
        if size < requested:
            continue
        if volume_mode_mismatch(claim, pv):
            continue
        if volume_attributes_class:
            if (claim.spec.volume_attributes_class_name or "") != (
                pv.spec.volume_attributes_class_name or ""
            ):
                continue
        elif pv.spec.volume_attributes_class_name:
            continue
        if pv.metadata.deletion_timestamp is not None:
            continue
        # (node affinity is the costly check: upstream computes it here for every PV; it
        # is evaluated only where it decides, with the same outcome)
        if bound_to_claim:
            affinity_ok = labels is None or node_affinity_error(pv, labels) is None
            return pv if affinity_ok else None
        if node is None and delay_binding:
            continue
        if pv.status.phase != "Available":
            continue
        if selector is not None and not selector.matches(pv.metadata.labels):
            continue
        if volume_class(pv) != requested_class:
            continue
        if node is not None and not access_modes_satisfied(claim, pv):
            continue
        if smallest is not None and size >= smallest_size:
            continue  # could not replace the current choice anyway
        if labels is not None and node_affinity_error(pv, labels) is not None:
            continue
        if smallest is None or size < smallest_size:
            smallest, smallest_size = pv, size
    return smallest


def node_has_access(node: Node, capacity: CSIStorageCapacity) -> bool:
    """A capacity without topology is unavailable; an empty selector reaches every node."""
    if capacity.node_topology is None:
        return False
    return capacity.node_topology.matches(node.metadata.labels)


def capacity_for(
    claim: PersistentVolumeClaim,
    storage_class: StorageClass,
    node: Node,
    get_driver: Callable[[str], CSIDriver | None],
    capacities: Callable[[], Sequence[CSIStorageCapacity]],
) -> tuple[bool, CSIStorageCapacity | None]:
    """Whether the provisioner has room for the claim reachable from `node`, and the
    CSIStorageCapacity object that says so (None when nothing is tracked).

    Capacity is only checked for a claim with a storage request whose provisioner is a
    CSIDriver with `storageCapacity: true`; objects are tried in (namespace, name) order.
    """
    if "storage" not in claim.spec.resources.requests:
        return True, None
    driver = get_driver(storage_class.provisioner)
    if driver is None or not driver.spec.storage_capacity:
        return True, None
    size = request_bytes(claim)
    ordered = sorted(capacities(), key=lambda c: (c.metadata.namespace or "", c.metadata.name))
    for cap in ordered:
        limit = volume_limit(cap)
        if (
            cap.storage_class_name == storage_class.metadata.name
            and limit is not None
            and int_value(limit) >= size
            and node_has_access(node, cap)
        ):
            return True, cap
    return False, None
