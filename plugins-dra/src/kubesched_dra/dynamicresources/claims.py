"""Whether a pod can use its claims now: each must exist, not be being deleted and, when
generated from a template, be the pod's own; an allocated claim must have room for one
more consumer.

upstream: dynamicresources.go (foreachPodResourceClaim) and
k8s.io/dynamic-resource-allocation/resourceclaim (CanBeReserved); the name lookup and the
owner check are kubesched_dra.resourceclaim's, shared with the resourceclaim controller.
"""

from __future__ import annotations

from kubesched.api import Pod
from kubesched_dra.api import RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE, ResourceClaim
from kubesched_dra.dynamicresources.assume_cache import ClaimAssumeCache
from kubesched_dra.resourceclaim import (
    ClaimNotCreatedError,
    claim_name,
    is_for_pod,
    not_for_pod_error,
)

__all__ = ["ClaimUnavailableError", "can_be_reserved", "pod_resource_claims"]


class ClaimUnavailableError(Exception):
    """A claim of the pod cannot be used now (not created yet, missing, being deleted,
    not the pod's own): the pod is unschedulable with this message."""


def pod_resource_claims(pod: Pod, claims: ClaimAssumeCache) -> list[ResourceClaim]:
    """upstream podResourceClaims / foreachPodResourceClaim: the pod's claims, in the
    order of `spec.resourceClaims` (entries whose claim was intentionally not created
    are left out). Raises ClaimUnavailableError with upstream's message."""
    found: list[ResourceClaim] = []
    namespace = pod.metadata.namespace or "default"
    for pod_claim in pod.spec.resource_claims:
        try:
            name, must_check_owner = claim_name(pod, pod_claim)
        except (ClaimNotCreatedError, ValueError) as exc:
            raise ClaimUnavailableError(str(exc)) from None
        if name is None:
            continue
        try:
            claim = claims.get(f"{namespace}/{name}")
        except KeyError as exc:
            raise ClaimUnavailableError(str(exc)) from None
        if claim.metadata.deletion_timestamp is not None:
            raise ClaimUnavailableError(f'resourceclaim "{claim.metadata.name}" is being deleted')
        if must_check_owner and not is_for_pod(pod, claim):
            raise ClaimUnavailableError(not_for_pod_error(pod, claim))
        found.append(claim)
    return found


def can_be_reserved(claim: ResourceClaim) -> bool:
    """upstream resourceclaim.CanBeReserved: room left in `status.reservedFor`."""
    return len(claim.status.reserved_for) < RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE
