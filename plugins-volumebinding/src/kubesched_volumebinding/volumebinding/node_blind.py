"""Which nodes need Filter's whole volume check, when the rest all get the same answer.

Upstream's Filter (volume_binding.go, binder.go FindPodVolumes) runs the check on every
node. For most pods the answer is the same on nearly all of them: a bound claim whose PV has
no node affinity (and needs no CSI translation) fits anywhere; a WaitForFirstConsumer claim
finds no PV on a node none of its class's PVs can reach, and then either provisions (the
same on every node when the class has no allowedTopologies and no capacity tracking) or
fails the same way. `full_check_hosts` says when that holds and which nodes are the
exception: those whose `kubernetes.io/hostname` label one of the class's unbound PVs is
pinned to (`ClassVolumes.pinned_hosts`). The binder checks one other node in full and
hands its answer to the others (`VolumeBinder.find_pod_volumes`).

Anything this module does not recognise as node-independent (a claim with a selected
node, a PV pre-bound to the claim, an unpinned PV of the class, a PV with node affinity or
an in-tree source, a class with allowedTopologies or a CSI driver tracking capacity, a
class or driver that cannot be looked up) makes every node take the whole check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet

from kubesched_volumebinding.storage import (
    ANN_SELECTED_NODE,
    Listers,
    PersistentVolume,
    PersistentVolumeClaim,
    claim_class,
    pv_in_tree_plugin,
)
from kubesched_volumebinding.volumebinding.assume_cache import AssumeCacheError
from kubesched_volumebinding.volumebinding.volume_index import ClassVolumes

__all__ = ["full_check_hosts"]


def full_check_hosts(
    bound: Sequence[PersistentVolumeClaim],
    delayed: Sequence[PersistentVolumeClaim],
    volumes_by_class: Mapping[str, Sequence[PersistentVolume]],
    get_volume: Callable[[str], PersistentVolume],
    listers: Listers,
) -> AbstractSet[str] | None:
    """The hostname label values of the nodes that need the whole check, when every other
    node (a node without the label included) gets the same answer; None when the answer
    may differ anywhere. `get_volume` is the PV assume cache's `get`."""
    for pvc in bound:
        try:
            pv = get_volume(pvc.spec.volume_name)
        except AssumeCacheError:
            break  # the check stops at this claim on every node (PV missing)
        if not _fits_any_node(pv):
            return None
    pinned: list[AbstractSet[str]] = []
    for pvc in delayed:
        if ANN_SELECTED_NODE in pvc.metadata.annotations:
            return None
        volumes = volumes_by_class.get(claim_class(pvc), ())
        if isinstance(volumes, ClassVolumes):
            hosts = volumes.pinned_hosts(pvc)
            if hosts is None:
                return None
            pinned.append(hosts)
        elif volumes:
            return None  # a plain list: matched by a scan, node by node
        if not _provisions_alike(pvc, listers):
            return None
    if len(pinned) == 1:
        return pinned[0]  # the index's own view: nothing copied
    return frozenset().union(*pinned)


def _fits_any_node(pv: PersistentVolume) -> bool:
    """The bound PV accepts every node: no required node affinity and nothing a node's
    CSI migration could translate (binder.go checkBoundClaims)."""
    affinity = pv.spec.node_affinity
    if affinity is not None and affinity.required is not None:
        return False
    return pv.spec.csi is not None or pv_in_tree_plugin(pv) is None


def _provisions_alike(pvc: PersistentVolumeClaim, listers: Listers) -> bool:
    """Whether provisioning the claim gets the same answer on every node: its class
    exists, has no allowedTopologies, and its capacity is not tracked
    (binder.go checkVolumeProvisions)."""
    name = claim_class(pvc)
    if not name:
        return False
    sc = listers.storage_class(name)
    if sc is None:
        return False
    if sc.allowed_topologies:
        return False
    if "storage" not in pvc.spec.resources.requests:
        return True
    driver = listers.csi_driver(sc.provisioner)
    return driver is None or not driver.spec.storage_capacity
