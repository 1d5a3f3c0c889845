"""Scoring by resource allocation: the three NodeResourcesFit strategies.

Upstream: pkg/scheduler/framework/plugins/noderesources/{resource_allocation,least_allocated,
most_allocated,requested_to_capacity_ratio}.go and plugins/helper/shape_score.go. All
arithmetic is on integers as upstream's int64 is; where Go divides a negative number it
truncates toward zero, which `go_div` reproduces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Pod
from kubesched.framework import MAX_NODE_SCORE, NodeInfo, PodInfo
from kubesched_builtin.noderesources.args import (
    LEAST_ALLOCATED,
    MAX_CUSTOM_PRIORITY_SCORE,
    MOST_ALLOCATED,
    ScoringStrategy,
    UtilizationShapePoint,
)

__all__ = [
    "MAX_UTILIZATION",
    "Scorer",
    "allocatable_and_requested",
    "broken_linear_function",
    "go_div",
    "least_requested_score",
    "least_resource_scorer",
    "most_requested_score",
    "most_resource_scorer",
    "pod_resource_request_list",
    "requested_to_capacity_ratio_scorer",
    "scaled_shape",
    "scorer_for",
]

MAX_UTILIZATION = 100

Scorer = Callable[[Sequence[int], Sequence[int]], int]
"""scorer(requested, allocatable) → node score; entries with allocatable 0 are skipped."""


def go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's `/` on int64."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def pod_resource_request_list(pod: Pod, resources: Sequence[str]) -> list[int]:
    """The pod's request of each scored resource, CPU and memory with the non-zero
    defaults (100m, 200Mi for a container that requests none), the rest as requested;
    pod-level requests where set (upstream calculatePodResourceRequest)."""
    requests = PodInfo.of(pod).scoring_request_amounts
    return [requests.get(name, 0) for name in resources]


def allocatable_and_requested(
    node_info: NodeInfo, resource: str, pod_request: int
) -> tuple[int, int]:
    """(allocatable, requested incl. the pod) of one resource on a node; (0, 0) skips it.

    CPU and memory count the node's non-zero requests; an extended resource the pod does
    not request is skipped, and so is the pod count.
    """
    if resource == CPU:
        return node_info.allocatable.milli_cpu, node_info.non_zero_requested.milli_cpu + pod_request
    if resource == MEMORY:
        return node_info.allocatable.memory, node_info.non_zero_requested.memory + pod_request
    if resource == EPHEMERAL_STORAGE:
        return (
            node_info.allocatable.ephemeral_storage,
            node_info.requested.ephemeral_storage + pod_request,
        )
    if resource == PODS or pod_request == 0:
        return 0, 0
    return (
        node_info.allocatable.scalar.get(resource, 0),
        node_info.requested.scalar.get(resource, 0) + pod_request,
    )


def least_requested_score(requested: int, capacity: int) -> int:
    """Share of the resource left free, 0..100."""
    if capacity == 0 or requested > capacity:
        return 0
    return (capacity - requested) * MAX_NODE_SCORE // capacity


def most_requested_score(requested: int, capacity: int) -> int:
    """Share of the resource in use, 0..100 (more than capacity counts as full)."""
    if capacity == 0:
        return 0
    return min(requested, capacity) * MAX_NODE_SCORE // capacity


def _weighted_mean(per_resource: Callable[[int, int], int], weights: Sequence[int]) -> Scorer:
    def scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for req, alloc, weight in zip(requested, allocatable, weights, strict=True):
            if alloc == 0:
                continue
            node_score += per_resource(req, alloc) * weight
            weight_sum += weight
        return node_score // weight_sum if weight_sum else 0

    return scorer


def least_resource_scorer(weights: Sequence[int]) -> Scorer:
    """LeastAllocated: Σ least_requested_score·w / Σ w."""
    return _weighted_mean(least_requested_score, weights)


def most_resource_scorer(weights: Sequence[int]) -> Scorer:
    """MostAllocated: Σ most_requested_score·w / Σ w."""
    return _weighted_mean(most_requested_score, weights)


def broken_linear_function(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """The piecewise-linear curve through (utilization, score) points, flat outside them."""

    def f(p: int) -> int:
        for i, (x, y) in enumerate(shape):
            if p <= x:
                if i == 0:
                    return y
                x0, y0 = shape[i - 1]
                return y0 + go_div((y - y0) * (p - x0), x - x0)
        return shape[-1][1]

    return f


def scaled_shape(points: Sequence[UtilizationShapePoint]) -> list[tuple[int, int]]:
    """Shape points with scores scaled from 0..10 to 0..100."""
    factor = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    return [(p.utilization, p.score * factor) for p in points]


def requested_to_capacity_ratio_scorer(
    weights: Sequence[int], shape: Sequence[UtilizationShapePoint]
) -> Scorer:
    """RequestedToCapacityRatio: the curve at each resource's utilization; only resources
    scoring above 0 count, and the weighted mean is rounded (half away from zero)."""
    curve = broken_linear_function(scaled_shape(shape))

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return curve(MAX_UTILIZATION)
        return curve(requested * MAX_UTILIZATION // capacity)

    def scorer(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for req, alloc, weight in zip(requested, allocatable, weights, strict=True):
            if alloc == 0:
                continue
            s = resource_score(req, alloc)
            if s > 0:
                node_score += s * weight
                weight_sum += weight
        if weight_sum == 0:
            return 0
        # math.Round(score / weightSum) on non-negative values, exactly
        return (2 * node_score + weight_sum) // (2 * weight_sum)

    return scorer


def scorer_for(strategy: ScoringStrategy) -> Scorer:
    """The scorer a (validated) scoring strategy names."""
    weights = [r.weight for r in strategy.resources]
    if strategy.type == LEAST_ALLOCATED:
        return least_resource_scorer(weights)
    if strategy.type == MOST_ALLOCATED:
        return most_resource_scorer(weights)
    ratio = strategy.requested_to_capacity_ratio
    if ratio is None:  # validation rules this out
        raise ValueError("RequestedToCapacityRatio needs requestedToCapacityRatio.shape")
    return requested_to_capacity_ratio_scorer(weights, ratio.shape)
