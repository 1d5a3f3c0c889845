"""NodeResourcesFit: node capacity Filter and resource-allocation Score."""

from kubesched_builtin.noderesources.args import (
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
)
from kubesched_builtin.noderesources.fits import (
    InsufficientResource,
    fits,
    fits_request,
    insufficient_status,
    nodes_short_of,
)
from kubesched_builtin.noderesources.plugin import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    NodeResourcesFit,
)

__all__ = [
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "InsufficientResource",
    "NodeResourcesFit",
    "NodeResourcesFitArgs",
    "RequestedToCapacityRatioParam",
    "ResourceSpec",
    "ScoringStrategy",
    "UtilizationShapePoint",
    "fits",
    "fits_request",
    "insufficient_status",
    "nodes_short_of",
]
