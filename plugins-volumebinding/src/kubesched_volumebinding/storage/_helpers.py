"""Rules about PVs, PVCs and classes that the plugins and controllers share.

Upstream: staging/src/k8s.io/component-helpers/storage/volume/{helpers.go,pv_helpers.go},
component-helpers/storage/ephemeral/ephemeral.go and pkg/apis/core/v1/helper/helpers.go
(MatchTopologySelectorTerms).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, Final

from pydantic import BaseModel

from kubesched.api import NodeSelector, NodeSelectorRequirement, Pod, Volume, int_value
from kubesched_volumebinding.storage._models import (
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    TopologySelectorTerm,
)

__all__ = [
    "ANN_BETA_STORAGE_CLASS",
    "ANN_BIND_COMPLETED",
    "ANN_BOUND_BY_CONTROLLER",
    "ANN_DEFAULT_STORAGE_CLASS",
    "ANN_DYNAMICALLY_PROVISIONED",
    "ANN_MIGRATED_PLUGINS",
    "ANN_SELECTED_NODE",
    "NOT_SUPPORTED_PROVISIONER",
    "STORAGE",
    "ClaimRef",
    "access_modes_satisfied",
    "claim_class",
    "claim_refs_of_pod",
    "default_storage_class",
    "is_delay_binding_mode",
    "is_fully_bound",
    "is_volume_bound_to_claim",
    "node_affinity_error",
    "pv_capacity",
    "request_bytes",
    "requested_storage",
    "resource_version",
    "topology_matches",
    "volume_class",
    "volume_is_for_pod",
    "volume_limit",
    "volume_mode_mismatch",
    "volume_source",
]

STORAGE: Final = "storage"

ANN_BIND_COMPLETED: Final = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER: Final = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE: Final = "volume.kubernetes.io/selected-node"
ANN_DYNAMICALLY_PROVISIONED: Final = "pv.kubernetes.io/provisioned-by"
ANN_BETA_STORAGE_CLASS: Final = "volume.beta.kubernetes.io/storage-class"
ANN_MIGRATED_PLUGINS: Final = "storage.alpha.kubernetes.io/migrated-plugins"
ANN_DEFAULT_STORAGE_CLASS: Final = "storageclass.kubernetes.io/is-default-class"
_ANN_BETA_DEFAULT_STORAGE_CLASS: Final = "storageclass.beta.kubernetes.io/is-default-class"
NOT_SUPPORTED_PROVISIONER: Final = "kubernetes.io/no-provisioner"

_NO_MATCHING_TERMS: Final = "no matching NodeSelectorTerms"


def claim_class(pvc: PersistentVolumeClaim) -> str:
    """The claim's class: the beta annotation wins, then `spec.storageClassName`, else ""
    (upstream GetPersistentVolumeClaimClass)."""
    annotations = pvc.metadata.annotations
    if ANN_BETA_STORAGE_CLASS in annotations:
        return annotations[ANN_BETA_STORAGE_CLASS]
    return pvc.spec.storage_class_name or ""


def volume_class(pv: PersistentVolume) -> str:
    """The PV's class, read the same way (upstream GetPersistentVolumeClass)."""
    annotations = pv.metadata.annotations
    if ANN_BETA_STORAGE_CLASS in annotations:
        return annotations[ANN_BETA_STORAGE_CLASS]
    return pv.spec.storage_class_name


_ZERO: Final = Fraction(0)


def requested_storage(pvc: PersistentVolumeClaim) -> Fraction:
    """`resources.requests.storage` in bytes, exactly; 0 when the claim asks for none."""
    return pvc.spec.resources.requests.get(STORAGE, _ZERO)


def pv_capacity(pv: PersistentVolume) -> Fraction:
    return pv.spec.capacity.get(STORAGE, _ZERO)


def is_fully_bound(pvc: PersistentVolumeClaim) -> bool:
    """A claim is bound once it names its volume and carries bind-completed."""
    return bool(pvc.spec.volume_name) and ANN_BIND_COMPLETED in pvc.metadata.annotations


def is_volume_bound_to_claim(pv: PersistentVolume, pvc: PersistentVolumeClaim) -> bool:
    """The PV's claimRef names this claim (and its uid, when the claimRef has one)."""
    ref = pv.spec.claim_ref
    if ref is None:
        return False
    if ref.name != pvc.metadata.name or ref.namespace != (pvc.metadata.namespace or "default"):
        return False
    return not ref.uid or ref.uid == pvc.metadata.uid


def volume_mode_mismatch(pvc: PersistentVolumeClaim, pv: PersistentVolume) -> bool:
    """Unset volume modes mean Filesystem (upstream CheckVolumeModeMismatches)."""
    return (pvc.spec.volume_mode or "Filesystem") != (pv.spec.volume_mode or "Filesystem")


def access_modes_satisfied(pvc: PersistentVolumeClaim, pv: PersistentVolume) -> bool:
    """The PV offers every access mode the claim asks for (upstream CheckAccessModes)."""
    offered = set(pv.spec.access_modes)
    return all(mode in offered for mode in pvc.spec.access_modes)


def node_affinity_error(pv: PersistentVolume, labels: Mapping[str, str]) -> str | None:
    """Why the PV's required node affinity rejects a node with these labels, or None.

    Upstream CheckNodeAffinity matches against a node that has only labels, so
    `matchFields` terms never match. No affinity (or no `required`) accepts every node.
    """
    affinity = pv.spec.node_affinity
    if affinity is None or affinity.required is None:
        return None
    if _compiled(affinity.required)(labels):
        return None
    return _NO_MATCHING_TERMS


_Matcher = Callable[[Mapping[str, str]], bool]
_COMPILED: dict[int, tuple[NodeSelector, _Matcher]] = {}
_COMPILED_MAX: Final = 1 << 16


def _compiled(selector: NodeSelector) -> _Matcher:
    """A fast matcher for a PV's node selector; stored objects never change, so it is
    kept per object (Filter asks it for every PV on every node)."""
    entry = _COMPILED.get(id(selector))
    if entry is not None and entry[0] is selector:
        return entry[1]
    if len(_COMPILED) >= _COMPILED_MAX:
        _COMPILED.clear()
    terms: list[list[tuple[str, str, frozenset[str], NodeSelectorRequirement]]] = []
    for term in selector.node_selector_terms:
        if not term.match_expressions and not term.match_fields:
            continue  # an empty term matches nothing
        if term.match_fields:
            continue  # only labels are known here: field terms never match
        terms.append([(r.key, r.operator, frozenset(r.values), r) for r in term.match_expressions])

    def matches(labels: Mapping[str, str]) -> bool:
        for term in terms:
            for key, op, values, req in term:
                if op == "In":
                    if labels.get(key) not in values or key not in labels:
                        break
                elif op == "NotIn":
                    if key in labels and labels[key] in values:
                        break
                elif op == "Exists":
                    if key not in labels:
                        break
                elif op == "DoesNotExist":
                    if key in labels:
                        break
                elif not req.matches(labels):  # Gt / Lt
                    break
            else:
                return True
        return False

    _COMPILED[id(selector)] = (selector, matches)
    return matches


def topology_matches(terms: Sequence[TopologySelectorTerm], labels: Mapping[str, str]) -> bool:
    """A class's allowedTopologies against node labels: no terms allow every node; terms
    are ORed, a term's requirements ANDed, an empty term selects nothing."""
    if not terms:
        return True
    for term in terms:
        if not term.match_label_expressions:
            continue
        if all(
            req.key in labels and labels[req.key] in req.values
            for req in term.match_label_expressions
        ):
            return True
    return False


def is_delay_binding_mode(
    pvc: PersistentVolumeClaim, get_class: Callable[[str], StorageClass | None]
) -> bool:
    """Whether the claim waits for its first consumer (upstream IsDelayBindingMode).

    No class name, or a class that does not exist, is immediate binding; a class without
    a binding mode is an error (ValueError), as upstream.
    """
    name = claim_class(pvc)
    if not name:
        return False
    sc = get_class(name)
    if sc is None:
        return False
    if sc.volume_binding_mode is None:
        raise ValueError(f'VolumeBindingMode not set for StorageClass "{name}"')
    return sc.volume_binding_mode == "WaitForFirstConsumer"


def default_storage_class(classes: Sequence[StorageClass]) -> StorageClass | None:
    """The default class (annotation is-default-class "true"); of several, the newest,
    then the first by name, as upstream's GetDefaultClass."""
    defaults = [
        sc
        for sc in classes
        if sc.metadata.annotations.get(ANN_DEFAULT_STORAGE_CLASS) == "true"
        or sc.metadata.annotations.get(_ANN_BETA_DEFAULT_STORAGE_CLASS) == "true"
    ]
    if not defaults:
        return None

    def newest_first(sc: StorageClass) -> tuple[float, str]:
        created = sc.metadata.creation_timestamp
        return (-(created.timestamp() if created else 0.0), sc.metadata.name)

    return sorted(defaults, key=newest_first)[0]


def volume_limit(capacity: CSIStorageCapacity) -> Fraction | None:
    """maximumVolumeSize when set (it is more precise), else capacity."""
    if capacity.maximum_volume_size is not None:
        return capacity.maximum_volume_size
    return capacity.capacity


def resource_version(obj: Any) -> int:
    """metadata.resourceVersion as an integer; ValueError when it is not one."""
    text = obj.metadata.resource_version or ""
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"error parsing ResourceVersion {text!r}") from None


class ClaimRef:
    """A claim a pod volume refers to: its name and whether it is a generic ephemeral
    volume's claim (`<pod>-<volume>`)."""

    __slots__ = ("ephemeral", "name", "volume")

    def __init__(self, name: str, ephemeral: bool, volume: Volume) -> None:
        self.name = name
        self.ephemeral = ephemeral
        self.volume = volume

    def __repr__(self) -> str:
        return f"ClaimRef({self.name!r}, ephemeral={self.ephemeral})"


def claim_refs_of_pod(pod: Pod) -> list[ClaimRef]:
    """The claims of the pod's PVC and generic ephemeral volumes, in volume order."""
    refs: list[ClaimRef] = []
    for vol in pod.spec.volumes:
        if vol.persistent_volume_claim is not None:
            name = str(vol.persistent_volume_claim.get("claimName", "") or "")
            refs.append(ClaimRef(name, False, vol))
        elif vol.ephemeral is not None:
            refs.append(ClaimRef(f"{pod.metadata.name}-{vol.name}", True, vol))
    return refs


def volume_is_for_pod(pod: Pod, pvc: PersistentVolumeClaim) -> str | None:
    """An ephemeral volume's claim must be controlled by the pod; the error text, or None
    (upstream ephemeral.VolumeIsForPod)."""
    pod_ns = pod.metadata.namespace or "default"
    pvc_ns = pvc.metadata.namespace or "default"
    owned = pvc_ns == pod_ns and any(
        ref.controller and ref.uid == pod.metadata.uid for ref in pvc.metadata.owner_references
    )
    if owned:
        return None
    return (
        f"PVC {pvc_ns}/{pvc.metadata.name} was not created for pod "
        f"{pod_ns}/{pod.metadata.name} (pod is not owner)"
    )


def request_bytes(pvc: PersistentVolumeClaim) -> int:
    """The claim's request as whole bytes (upstream Quantity.Value, rounding up)."""
    return int_value(requested_storage(pvc))


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def volume_source(obj: BaseModel, name: str) -> dict[str, Any] | None:
    """A volume source by its manifest name (`awsElasticBlockStore`) of a pod volume or a
    PV spec: the typed field when the model has one, else the field kept as written
    (manifests give camelCase; Python-built objects may use snake_case)."""
    snake = _snake(name)
    value = getattr(obj, snake, None) if snake in type(obj).model_fields else None
    if value is None:
        extra = obj.model_extra or {}
        value = extra.get(name)
        if value is None:
            value = extra.get(snake)
    return value if isinstance(value, dict) else None
