"""NodeResourcesFit's Filter and Score over all nodes at once, on the snapshot's columns.

The same rules as `fits.fits_request` and `resource_allocation` (and upstream's fit.go and
scorers), written with numpy over `kubesched.framework.NodeColumns`: one array per resource,
aligned with `columns.names`. This is the example of the vectorized seam: the results must
equal the per-node forms exactly, which the tests check on random clusters.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

import numpy as np
import numpy.typing as npt

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from kubesched.framework import MAX_NODE_SCORE, NodeColumns, Resource
from kubesched_builtin.noderesources.args import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    ScoringStrategy,
)
from kubesched_builtin.noderesources.fits import checked_scalar_requests
from kubesched_builtin.noderesources.resource_allocation import MAX_UTILIZATION, scaled_shape

__all__ = ["fits_columns", "score_columns"]

Ints = npt.NDArray[np.int64]


def _column(table: dict[str, Ints], name: str, size: int) -> Ints:
    col = table.get(name)
    return col if col is not None else np.zeros(size, np.int64)


def fits_columns(
    pod_request: Resource,
    columns: NodeColumns,
    ignored_resources: Set[str] = frozenset(),
    ignored_groups: Set[str] = frozenset(),
) -> npt.NDArray[np.bool_]:
    """True for each node with room for `pod_request` (and one more pod)."""
    size = len(columns.names)
    ok: npt.NDArray[np.bool_] = columns.pod_count + 1 <= _column(columns.allocatable, PODS, size)
    wanted = [
        (CPU, pod_request.milli_cpu),
        (MEMORY, pod_request.memory),
        (EPHEMERAL_STORAGE, pod_request.ephemeral_storage),
        *checked_scalar_requests(pod_request, ignored_resources, ignored_groups),
    ]
    for name, quantity in wanted:
        if quantity <= 0:
            continue
        free = _column(columns.allocatable, name, size) - _column(columns.requested, name, size)
        ok &= quantity <= free
    return ok


def _trunc_div(num: Ints, den: int) -> Ints:
    """Go's truncating `/` for a positive divisor."""
    return np.where(num >= 0, num // den, -((-num) // den))


def _curve(shape: Sequence[tuple[int, int]], p: Ints) -> Ints:
    out = np.full(p.shape, shape[-1][1], np.int64)
    done = np.zeros(p.shape, np.bool_)
    for i, (x, y) in enumerate(shape):
        hit = (p <= x) & ~done
        if i == 0:
            value: Ints = np.full(p.shape, y, np.int64)
        else:
            x0, y0 = shape[i - 1]
            value = y0 + _trunc_div((y - y0) * (p - x0), x - x0)
        out = np.where(hit, value, out)
        done |= hit
    return out


def _allocatable_and_requested(
    resource: str, pod_request: int, columns: NodeColumns, size: int
) -> tuple[Ints, Ints] | None:
    """Columns of `resource_allocation.allocatable_and_requested`; None skips the resource."""
    if resource in (CPU, MEMORY):
        return (
            _column(columns.allocatable, resource, size),
            _column(columns.non_zero_requested, resource, size) + pod_request,
        )
    if resource == PODS or (resource != EPHEMERAL_STORAGE and pod_request == 0):
        return None
    return (
        _column(columns.allocatable, resource, size),
        _column(columns.requested, resource, size) + pod_request,
    )


def score_columns(
    strategy: ScoringStrategy, pod_requests: Sequence[int], columns: NodeColumns
) -> Ints:
    """The strategy's score of every node, given the pod's request of each scored resource."""
    size = len(columns.names)
    node_score = np.zeros(size, np.int64)
    weight_sum = np.zeros(size, np.int64)
    rtcr = strategy.type not in (LEAST_ALLOCATED, MOST_ALLOCATED)
    shape = (
        scaled_shape(strategy.requested_to_capacity_ratio.shape)
        if rtcr and strategy.requested_to_capacity_ratio is not None
        else []
    )
    for spec, pod_request in zip(strategy.resources, pod_requests, strict=True):
        pair = _allocatable_and_requested(spec.name, pod_request, columns, size)
        if pair is None:
            continue
        alloc, req = pair
        counted = alloc != 0
        safe = np.where(counted, alloc, 1)
        if strategy.type == LEAST_ALLOCATED:
            score = np.where(req > alloc, 0, (alloc - req) * MAX_NODE_SCORE // safe)
        elif strategy.type == MOST_ALLOCATED:
            score = np.minimum(req, alloc) * MAX_NODE_SCORE // safe
        else:
            util = np.where(req > alloc, MAX_UTILIZATION, req * MAX_UTILIZATION // safe)
            score = _curve(shape, util)
            counted &= score > 0
        node_score += np.where(counted, score * spec.weight, 0)
        weight_sum += np.where(counted, spec.weight, 0)
    safe_sum = np.where(weight_sum > 0, weight_sum, 1)
    # RequestedToCapacityRatio rounds (half up) where the other two truncate
    result = (2 * node_score + safe_sum) // (2 * safe_sum) if rtcr else node_score // safe_sum
    return np.where(weight_sum > 0, result, 0).astype(np.int64)
