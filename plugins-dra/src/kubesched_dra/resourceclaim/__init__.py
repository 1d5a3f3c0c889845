"""Pods and their claims: the claim a `spec.resourceClaims` entry names, whether a claim
was generated for a pod, whether a pod still needs its claims (upstream
k8s.io/dynamic-resource-allocation/resourceclaim)."""

from kubesched_dra.resourceclaim._pods import (
    ClaimNotCreatedError,
    claim_name,
    is_for_pod,
    is_pod_done,
    not_for_pod_error,
    owning_pod,
)

__all__ = [
    "ClaimNotCreatedError",
    "claim_name",
    "is_for_pod",
    "is_pod_done",
    "not_for_pod_error",
    "owning_pod",
]
