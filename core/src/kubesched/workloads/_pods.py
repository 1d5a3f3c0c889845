"""Pods from templates, owner references and the pod-template hash, shared by the controllers.

upstream: pkg/controller/controller_utils.go (GetPodFromTemplate, ComputeHash, FilterActivePods),
staging/src/k8s.io/apimachinery/pkg/util/rand (SafeEncodeString).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final

from kubesched.api import ObjectMeta, OwnerReference, Pod, PodSpec
from kubesched.workloads._models import PodTemplateSpec

__all__ = [
    "compute_hash",
    "controller_of",
    "is_active",
    "owned_by",
    "owner_reference",
    "pod_from_template",
    "safe_encode_string",
]

# upstream rand.alphanums: no vowels, no 0/1/3, so no words and no look-alike characters
_ALPHANUMS: Final = "bcdfghjklmnpqrstvwxz2456789"
_FNV32_OFFSET: Final = 0x811C9DC5
_FNV32_PRIME: Final = 0x01000193


def safe_encode_string(text: str) -> str:
    """upstream rand.SafeEncodeString: each byte mapped onto the safe alphabet."""
    return "".join(_ALPHANUMS[b % len(_ALPHANUMS)] for b in text.encode())


def _fnv32a(data: bytes) -> int:
    h = _FNV32_OFFSET
    for b in data:
        h = ((h ^ b) * _FNV32_PRIME) & 0xFFFFFFFF
    return h


def compute_hash(template: PodTemplateSpec, collision_count: int | None = None) -> str:
    """The `pod-template-hash` of a template (upstream controller.ComputeHash): fnv32a of
    the template, then the collision count as 8 little-endian bytes, the sum written in
    decimal and safe-encoded.

    Deviation: upstream hashes go-spew's dump of the Go struct, which Python cannot
    reproduce; kubesched hashes the template's canonical JSON (keys sorted). The value has
    upstream's form (safe alphabet, up to 10 characters) and is stable for a template, but
    differs from the one a real cluster computes.
    """
    data = json.dumps(template.to_dict(), sort_keys=True, separators=(",", ":")).encode()
    if collision_count is not None:
        data += (collision_count & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4)
    return safe_encode_string(str(_fnv32a(data)))


def owner_reference(owner: Any) -> OwnerReference:
    """The controller reference a controller puts on what it creates
    (metav1.NewControllerRef: controller and blockOwnerDeletion true)."""
    return OwnerReference(
        api_version=owner.api_version,
        kind=owner.kind,
        name=owner.metadata.name,
        uid=owner.metadata.uid,
        controller=True,
    )


def controller_of(obj: Any) -> OwnerReference | None:
    """The owner reference marked `controller`, if any (metav1.GetControllerOf)."""
    return next((o for o in obj.metadata.owner_references if o.controller), None)


def owned_by(objects: Iterable[Any], owner: Any) -> list[Any]:
    """Objects in the owner's namespace whose controller reference is `owner` (by uid)."""
    uid = owner.metadata.uid
    namespace = owner.metadata.namespace
    found = []
    for obj in objects:
        ref = controller_of(obj)
        if ref is not None and ref.uid == uid and obj.metadata.namespace == namespace:
            found.append(obj)
    return found


def is_active(pod: Pod) -> bool:
    """Neither finished nor being deleted (upstream controller.IsPodActive)."""
    return not pod.is_terminal and not pod.is_terminating


def pod_from_template(
    template: PodTemplateSpec,
    owner: Any,
    *,
    name: str = "",
    generate_name: str = "",
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    spec: PodSpec | None = None,
) -> Pod:
    """A new pod as the controller would create it (upstream GetPodFromTemplate): the
    template's labels, annotations and spec, the owner's namespace, a controller reference
    to the owner, and `name` or `generate_name` (the API server then appends five random
    characters from the cluster's seeded generator)."""
    meta = template.metadata
    pod_spec = spec if spec is not None else template.spec
    return Pod(
        metadata=ObjectMeta(
            name=name,
            generate_name=generate_name or None,
            namespace=owner.metadata.namespace,
            labels={**meta.labels, **(labels or {})},
            annotations={**meta.annotations, **(annotations or {})},
            owner_references=[owner_reference(owner)],
            finalizers=list(meta.finalizers),
        ),
        # the PodSpec fields only: restartPolicy is the template's, not the scheduler's
        spec=PodSpec.model_validate(pod_spec.model_dump(include=set(PodSpec.model_fields))),
    )
