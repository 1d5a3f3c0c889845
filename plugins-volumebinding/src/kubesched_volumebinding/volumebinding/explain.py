"""Why VolumeBinding rejected a node, claim by claim (for `kubesched simulate --explain`).

Upstream's Filter reasons say what kind of problem a node has ("didn't find available
persistent volumes to bind") but not which claim, nor whether no PV fitted, the class
cannot provision, its allowedTopologies exclude the node or the CSIStorageCapacity is too
small (upstream issue #83181 and PRs since). These lines say it. They follow the binder's
own steps (binder.py, matching.py) on the same inputs, so they agree with the verdict,
but they look at every claim where the binder stops at the first that fails. A bound
in-tree PV whose plugin migrated to CSI on the node is checked, and named, in its
translated form (its zone on the driver's topology key).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Final

from kubesched.api import Node, NodeSelector, Pod, int_value
from kubesched_volumebinding.storage import (
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    TopologySelectorTerm,
    access_modes_satisfied,
    claim_class,
    is_volume_bound_to_claim,
    node_affinity_error,
    pv_capacity,
    pv_in_tree_plugin,
    requested_storage,
    topology_matches,
    volume_limit,
    volume_mode_mismatch,
)
from kubesched_volumebinding.volumebinding.assume_cache import AssumeCacheError
from kubesched_volumebinding.volumebinding.binder import (
    PodVolumeClaims,
    VolumeBinder,
    VolumeBindingError,
)
from kubesched_volumebinding.volumebinding.matching import find_matching_volume, node_has_access

__all__ = ["describe_affinity_mismatch", "explain_pod_volumes", "format_size"]

_MAX_PVS_LISTED: Final = 4
_UNITS: Final = (
    ("Ti", 2**40),
    ("Gi", 2**30),
    ("Mi", 2**20),
    ("Ki", 2**10),
    ("T", 10**12),
    ("G", 10**9),
    ("M", 10**6),
)


def format_size(size: Fraction | int) -> str:
    """Bytes in the unit that writes them shortest (`5Gi`, `500Mi`, `2G`), else plain."""
    value = int_value(Fraction(size))
    best = str(value)
    for suffix, unit in _UNITS:
        if value and value % unit == 0 and len(text := f"{value // unit}{suffix}") < len(best):
            best = text
    return best


def describe_affinity_mismatch(selector: NodeSelector, labels: Mapping[str, str]) -> str:
    """Why each term of a PV's required node affinity rejects a node with these labels."""
    terms = []
    for i, term in enumerate(selector.node_selector_terms, start=1):
        if term.match_fields:
            terms.append(f"term {i} uses matchFields, which never match here")
            continue
        if not term.match_expressions:
            terms.append(f"term {i} is empty")
            continue
        for req in term.match_expressions:
            if req.matches(labels):
                continue
            has = f"{req.key}={labels[req.key]}" if req.key in labels else f"no {req.key}"
            values = f" [{', '.join(req.values)}]" if req.values else ""
            terms.append(f"term {i}: {req.key} {req.operator}{values} (node has {has})")
            break
    return "; ".join(terms) if terms else "no node selector terms"


def _topology_text(terms: Sequence[TopologySelectorTerm]) -> str:
    return " or ".join(
        " and ".join(f"{r.key} in [{', '.join(r.values)}]" for r in t.match_label_expressions)
        or "(empty term)"
        for t in terms
    )


def _pv_mismatch(
    claim: PersistentVolumeClaim,
    pv: PersistentVolume,
    node: Node,
    taken: Mapping[str, str],
    *,
    volume_attributes_class: bool,
) -> str:
    """Why `pv` does not satisfy `claim` on `node` (find_matching_volume's checks in its
    order); "" when it would."""
    labels = node.metadata.labels
    if pv.metadata.name in taken:
        return f"given to claim {taken[pv.metadata.name]} of this pod"
    ref = pv.spec.claim_ref
    if ref is not None and not is_volume_bound_to_claim(pv, claim):
        return f"claimed by {ref.namespace}/{ref.name}"
    size, requested = pv_capacity(pv), requested_storage(claim)
    if size < requested:
        return f"too small ({format_size(size)} < {format_size(requested)})"
    if volume_mode_mismatch(claim, pv):
        return f"volume mode {pv.spec.volume_mode or 'Filesystem'}"
    pv_vac = pv.spec.volume_attributes_class_name or ""
    if volume_attributes_class and (claim.spec.volume_attributes_class_name or "") != pv_vac:
        return f'volumeAttributesClass "{pv_vac}"'
    if not volume_attributes_class and pv_vac:
        return "has a volumeAttributesClass (gate off)"
    if pv.metadata.deletion_timestamp is not None:
        return "being deleted"
    affinity = pv.spec.node_affinity
    affinity_text = ""
    if node_affinity_error(pv, labels) is not None and affinity and affinity.required:
        affinity_text = describe_affinity_mismatch(affinity.required, labels)
    if ref is not None:  # pre-bound to this claim: only its node affinity can fail
        return (
            f"pre-bound to this claim, but node affinity excludes the node: {affinity_text}"
            if affinity_text
            else ""
        )
    if pv.status.phase != "Available":
        return f"phase {pv.status.phase}"
    if claim.spec.selector is not None and not claim.spec.selector.matches(pv.metadata.labels):
        return "labels do not match the claim's selector"
    if not access_modes_satisfied(claim, pv):
        missing = [m for m in claim.spec.access_modes if m not in pv.spec.access_modes]
        return f"access modes lack {', '.join(missing)}"
    if affinity_text:
        return f"node affinity excludes the node: {affinity_text}"
    return ""


class _Explainer:
    def __init__(self, binder: VolumeBinder, node: Node) -> None:
        self.binder = binder
        self.node = node
        self.lines: list[str] = []

    def bound(self, claims: Sequence[PersistentVolumeClaim]) -> None:
        node_name, labels = self.node.metadata.name, self.node.metadata.labels
        csi_node = self.binder.listers.csi_node(node_name)
        for pvc in claims:
            name = pvc.spec.volume_name
            try:
                pv = self.binder.pv_cache.get(name)
            except AssumeCacheError:
                self.lines.append(f'claim {pvc.key}: bound to PV "{name}", which does not exist')
                continue
            try:
                checked = self.binder.checked_pv(pv, csi_node)
            except VolumeBindingError as exc:
                self.lines.append(
                    f'claim {pvc.key}: bound PV "{name}" is migrated to CSI on node {node_name} '
                    f"but cannot be translated: {exc}"
                )
                continue
            if node_affinity_error(checked, labels) is None:
                continue
            affinity = checked.spec.node_affinity
            assert affinity is not None and affinity.required is not None
            why = describe_affinity_mismatch(affinity.required, labels)
            what = f'bound PV "{name}" has node affinity'
            plugin = pv_in_tree_plugin(pv)
            if checked is not pv and plugin is not None:
                # binder.go tryTranslatePVToCSI: the CSINode lists the plugin as migrated
                what = (
                    f'bound PV "{name}" ({plugin.source}, migrated to CSI driver '
                    f"{plugin.driver} on this node) has node affinity, as translated for "
                    "the driver,"
                )
            self.lines.append(f"claim {pvc.key}: {what} that excludes node {node_name}: {why}")

    def delayed(self, claims: PodVolumeClaims) -> None:
        node_name = self.node.metadata.name
        to_match: list[PersistentVolumeClaim] = []
        for claim in claims.delayed:
            selected = claim.metadata.annotations.get(ANN_SELECTED_NODE)
            if selected is None:
                to_match.append(claim)
            elif selected == node_name:
                self.provision(claim, "")
            elif (
                self.binder.options.ignore_missing_selected_node
                and self.binder.listers.node(selected) is None
            ):
                to_match.append(claim)
            else:
                self.lines.append(
                    f"claim {claim.key}: being provisioned for node {selected} "
                    f"({ANN_SELECTED_NODE}), not this node"
                )
        taken: dict[str, str] = {}
        vac = self.binder.features.volume_attributes_class
        for claim in sorted(to_match, key=lambda c: (requested_storage(c), c.metadata.name)):
            cls = claim_class(claim)
            candidates = claims.volumes_by_class.get(cls, [])
            pv = find_matching_volume(
                claim, candidates, self.node, taken, delay_binding=True, volume_attributes_class=vac
            )
            if pv is not None:
                taken[pv.metadata.name] = claim.key
                self.lines.append(f'claim {claim.key}: would bind to PV "{pv.metadata.name}"')
                continue
            self.provision(claim, self._no_pv(claim, cls, candidates, taken, vac))

    def _no_pv(
        self,
        claim: PersistentVolumeClaim,
        cls: str,
        candidates: Sequence[PersistentVolume],
        taken: Mapping[str, str],
        vac: bool,
    ) -> str:
        size = format_size(requested_storage(claim))
        modes = ",".join(claim.spec.access_modes) or "any access mode"
        head = f'no PV of class "{cls}" with {size} or more, {modes}, reachable from the node'
        if not candidates:
            return f'no PV of class "{cls}"'
        why = [
            f"{pv.metadata.name} {reason}"
            for pv in candidates
            if (reason := _pv_mismatch(claim, pv, self.node, taken, volume_attributes_class=vac))
        ]
        more = len(why) - _MAX_PVS_LISTED
        listed = "; ".join(why[:_MAX_PVS_LISTED]) + (f"; and {more} more" if more > 0 else "")
        return f"{head} ({listed})" if listed else head

    def provision(self, claim: PersistentVolumeClaim, no_pv: str) -> None:
        """Whether the claim's class can provision it on the node, and why not."""
        prefix = f"claim {claim.key}: " + (f"{no_pv}; " if no_pv else "")
        cls = claim_class(claim)
        if not cls:
            self.lines.append(f"{prefix}it has no storage class to provision from")
            return
        sc = self.binder.listers.storage_class(cls)
        if sc is None:
            self.lines.append(f'{prefix}storage class "{cls}" not found')
            return
        if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
            prov = f'provisioner "{sc.provisioner}"' if sc.provisioner else "no provisioner"
            self.lines.append(f'{prefix}class "{cls}" cannot provision ({prov})')
            return
        if not topology_matches(sc.allowed_topologies, self.node.metadata.labels):
            self.lines.append(
                f'{prefix}class "{cls}" allowedTopologies exclude node {self.node.metadata.name} '
                f"({_topology_text(sc.allowed_topologies)})"
            )
            return
        capacity = self._capacity(claim, sc)
        if capacity:
            self.lines.append(f"{prefix}{capacity}")
        elif no_pv:
            self.lines.append(f'{prefix}class "{cls}" can provision it here ({sc.provisioner})')

    def _capacity(self, claim: PersistentVolumeClaim, sc: StorageClass) -> str:
        """Why no CSIStorageCapacity has room for the claim on the node; "" if one has or
        capacity is not tracked (matching.capacity_for's rules)."""
        listers = self.binder.listers
        if "storage" not in claim.spec.resources.requests:
            return ""
        driver = listers.csi_driver(sc.provisioner)
        if driver is None or not driver.spec.storage_capacity:
            return ""
        want = int_value(requested_storage(claim))
        cls = sc.metadata.name
        of_class = [c for c in listers.csi_storage_capacities() if c.storage_class_name == cls]
        reachable = [c for c in of_class if node_has_access(self.node, c)]
        if not of_class:
            return (
                f'no CSIStorageCapacity for class "{cls}" (driver {sc.provisioner} tracks capacity)'
            )
        if not reachable:
            return (
                f'no CSIStorageCapacity of class "{cls}" covers node {self.node.metadata.name} '
                f"({len(of_class)} for other topologies)"
            )
        sized = [(volume_limit(c), c) for c in reachable]
        known = [(int_value(lim), c) for lim, c in sized if lim is not None]
        if any(lim >= want for lim, _ in known):
            return ""
        if not known:
            return (
                f'CSIStorageCapacity of class "{cls}" on node {self.node.metadata.name} '
                "reports no capacity"
            )
        lim, cap = max(known, key=lambda lc: lc[0])
        return (
            f"CSIStorageCapacity too small: claim requests {format_size(want)}, the largest "
            f'for class "{cls}" on node {self.node.metadata.name} is {format_size(lim)} '
            f"({cap.metadata.namespace or 'default'}/{cap.metadata.name})"
        )


def _immediate(binder: VolumeBinder, claims: Sequence[PersistentVolumeClaim]) -> list[str]:
    lines = []
    for pvc in claims:
        cls = claim_class(pvc)
        if pvc.spec.volume_name:
            # upstream issue #79888: a claim being bound reads as "unbound immediate"
            lines.append(
                f'claim {pvc.key}: names PV "{pvc.spec.volume_name}" but is not bound yet '
                f"(no {ANN_BIND_COMPLETED}): waiting for the PV controller"
            )
        elif not cls:
            lines.append(
                f"claim {pvc.key}: no storage class, so binding is Immediate: waiting for "
                "the PV controller"
            )
        elif binder.listers.storage_class(cls) is None:
            lines.append(
                f'claim {pvc.key}: storage class "{cls}" not found, so binding is Immediate'
            )
        else:
            lines.append(
                f'claim {pvc.key}: class "{cls}" binds Immediately: waiting for the PV '
                "controller to bind it"
            )
    return lines


def explain_pod_volumes(
    binder: VolumeBinder, pod: Pod, claims: PodVolumeClaims | None, node: Node
) -> list[str]:
    """One line per claim that keeps the pod off `node` (and the PVs it would take).

    `claims` is PreFilter's classification; None (PreFilter rejected the pod or did not
    run) classifies again, so unbound Immediate claims are explained too."""
    if claims is None:
        try:
            claims = binder.get_pod_volume_claims(pod)
        except Exception as exc:
            return [str(exc)]
        if claims.immediate:
            return _immediate(binder, claims.immediate)
    explainer = _Explainer(binder, node)
    explainer.bound(claims.bound)
    explainer.delayed(claims)
    return explainer.lines
