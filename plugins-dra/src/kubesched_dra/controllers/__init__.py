"""Controllers of the embedded cluster this package contributes through the
`kubesched_cluster_controllers` hook."""

from kubesched_dra.controllers.resourceclaim import (
    FAILED_RESOURCE_CLAIM_CREATION,
    ResourceClaimController,
)

__all__ = ["FAILED_RESOURCE_CLAIM_CREATION", "ResourceClaimController"]
