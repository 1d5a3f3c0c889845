"""NodeResourcesBalancedAllocation: prefer nodes whose resource usage stays even (PreScore,
Score)."""

from kubesched_builtin.balancedallocation.args import NodeResourcesBalancedAllocationArgs
from kubesched_builtin.balancedallocation.plugin import (
    PRE_SCORE_STATE_KEY,
    NodeResourcesBalancedAllocation,
    allocatable_and_requested,
    balanced_resource_score,
    pod_request_list,
)

__all__ = [
    "PRE_SCORE_STATE_KEY",
    "NodeResourcesBalancedAllocation",
    "NodeResourcesBalancedAllocationArgs",
    "allocatable_and_requested",
    "balanced_resource_score",
    "pod_request_list",
]
