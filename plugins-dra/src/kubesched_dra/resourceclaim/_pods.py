"""Which ResourceClaim a pod's `spec.resourceClaims` entry names, and whether a claim was
made for the pod: what the scheduler plugin and the resourceclaim controller both ask.

upstream: staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go
(Name, IsForPod, IsReservedForPod, ErrClaimNotFound, ErrAPIUnsupported) and
pkg/controller/resourceclaim/controller.go (owningPod, isPodDone).
"""

from __future__ import annotations

from kubesched.api import Pod, PodResourceClaim
from kubesched_dra.api import ResourceClaim

__all__ = [
    "ClaimNotCreatedError",
    "claim_name",
    "is_for_pod",
    "is_pod_done",
    "not_for_pod_error",
    "owning_pod",
]


class ClaimNotCreatedError(LookupError):
    """A template's claim the resourceclaim controller has not created yet (upstream
    ErrClaimNotFound); `str()` is upstream's `pod "<ns>/<name>": ResourceClaim not created
    yet`."""


def claim_name(pod: Pod, pod_claim: PodResourceClaim) -> tuple[str | None, bool]:
    """upstream resourceclaim.Name: the claim's name and whether its owner must be checked
    (it was generated from a template). None: no claim is needed (the controller decided
    so). Raises ClaimNotCreatedError while a template's claim does not exist yet."""
    if pod_claim.resource_claim_name is not None:
        return pod_claim.resource_claim_name, False
    if pod_claim.resource_claim_template_name is not None:
        for status in pod.status.resource_claim_statuses:
            if status.name == pod_claim.name:
                return status.resource_claim_name, True
        namespace = pod.metadata.namespace or "default"
        raise ClaimNotCreatedError(
            f'pod "{namespace}/{pod.metadata.name}": ResourceClaim not created yet'
        )
    # the API server refuses such a pod; upstream's ErrAPIUnsupported covers fields added later
    namespace = pod.metadata.namespace or "default"
    raise ValueError(
        f'pod "{namespace}/{pod.metadata.name}", spec.resourceClaim "{pod_claim.name}": '
        "none of the supported fields are set"
    )


def is_for_pod(pod: Pod, claim: ResourceClaim) -> bool:
    """upstream resourceclaim.IsForPod: same namespace and the pod is the claim's
    controlling owner."""
    if (claim.metadata.namespace or "default") != (pod.metadata.namespace or "default"):
        return False
    return any(
        ref.controller and ref.uid == pod.metadata.uid for ref in claim.metadata.owner_references
    )


def not_for_pod_error(pod: Pod, claim: ResourceClaim) -> str:
    """The text of upstream IsForPod's error."""
    return (
        f"ResourceClaim {claim.metadata.namespace}/{claim.metadata.name} was not created for "
        f"pod {pod.metadata.namespace}/{pod.metadata.name} (pod is not owner)"
    )


def owning_pod(claim: ResourceClaim) -> tuple[str, str] | None:
    """The (name, uid) of the pod controlling `claim`, None when no pod does."""
    for ref in claim.metadata.owner_references:
        if ref.controller and ref.api_version == "v1" and ref.kind == "Pod":
            return ref.name, ref.uid
    return None


def is_pod_done(pod: Pod) -> bool:
    """True when none of the pod's containers runs or ever will: it has finished, or it
    was deleted before it was scheduled."""
    return pod.is_terminal or (pod.is_terminating and not pod.spec.node_name)
