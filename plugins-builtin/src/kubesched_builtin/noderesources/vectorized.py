"""NodeResourcesFit's Filter and Score over all nodes at once, on the snapshot's columns.

The same rules as `fits.fits_request` and `resource_allocation` (and upstream's fit.go and
scorers), written with numpy over `kubesched.framework.NodeColumns`: one array per resource,
aligned with `columns.names`. This is the example of the vectorized seam: the results must
equal the per-node forms exactly, which the tests check on random clusters.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from kubesched.framework import MAX_NODE_SCORE, NodeColumns, NodeInfo, Resource
from kubesched_builtin.helper.columns import Rows
from kubesched_builtin.helper.row_amounts import RowAmounts, Table
from kubesched_builtin.noderesources.args import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    ScoringStrategy,
)
from kubesched_builtin.noderesources.fits import checked_scalar_requests
from kubesched_builtin.noderesources.resource_allocation import MAX_UTILIZATION, scaled_shape

__all__ = [
    "SAFE_AMOUNT",
    "ScoringColumns",
    "fits_columns",
    "score_arrays",
    "score_columns",
    "scored_resource",
    "scoring_columns",
    "short_rows",
    "wanted",
]

Ints = npt.NDArray[np.int64]

SAFE_AMOUNT = 2**54
"""Amounts (node and pod) below this stay exact in int64 through the scorers' `(a + b) * 100`;
`NodeResourcesFit.score_nodes` scores per node when one is not below it."""


def _column(table: dict[str, Ints], name: str, size: int) -> Ints:
    col = table.get(name)
    return col if col is not None else np.zeros(size, np.int64)


def fits_columns(
    pod_request: Resource,
    columns: NodeColumns,
    ignored_resources: Set[str] = frozenset(),
    ignored_groups: Set[str] = frozenset(),
    rows: npt.NDArray[np.intp] | None = None,
) -> npt.NDArray[np.bool_]:
    """True for each node (each of `rows` when given) with room for `pod_request` and one
    more pod."""
    size = len(columns.names)

    def read(table: dict[str, Ints], name: str) -> Ints:
        column = _column(table, name, size)
        return column if rows is None else column[rows]

    ok: npt.NDArray[np.bool_] = (
        (columns.pod_count if rows is None else columns.pod_count[rows]) + 1
    ) <= read(columns.allocatable, PODS)
    for name, quantity in wanted(pod_request, ignored_resources, ignored_groups):
        if quantity <= 0:
            continue
        ok &= quantity <= read(columns.allocatable, name) - read(columns.requested, name)
    return ok


def wanted(
    pod_request: Resource, ignored_resources: Set[str], ignored_groups: Set[str]
) -> tuple[tuple[str, int], ...]:
    """What the Filter forms read of `pod_request`: each checked resource and amount."""
    return (
        (CPU, pod_request.milli_cpu),
        (MEMORY, pod_request.memory),
        (EPHEMERAL_STORAGE, pod_request.ephemeral_storage),
        *checked_scalar_requests(pod_request, ignored_resources, ignored_groups),
    )


def short_rows(
    pod_request: Resource,
    rows: Rows,
    ignored_resources: Set[str] = frozenset(),
    ignored_groups: Set[str] = frozenset(),
) -> list[int] | None:
    """`fits.nodes_short_of` read from the snapshot's columns: the positions (in `rows`) of
    the nodes without room. None when an amount is not exact in int64 (the caller then
    checks node by node)."""
    ok = fits_rows(pod_request, *rows, ignored_resources, ignored_groups)
    if ok is None:
        return None
    short: list[int] = np.flatnonzero(~ok).tolist()
    return short


def fits_rows(
    pod_request: Resource,
    columns: NodeColumns,
    at: npt.NDArray[np.intp],
    ignored_resources: Set[str] = frozenset(),
    ignored_groups: Set[str] = frozenset(),
) -> npt.NDArray[np.bool_] | None:
    """`fits_columns` of the rows `at`, or None when an amount is not exact in int64."""
    amounts = wanted(pod_request, ignored_resources, ignored_groups)
    if not columns.exact or any(abs(q) >= SAFE_AMOUNT for _, q in amounts):
        return None
    return fits_columns(pod_request, columns, ignored_resources, ignored_groups, at)


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


@dataclass(frozen=True)
class ScoringColumns:
    """What the scorers read of each node, as arrays aligned with the nodes: allocatable,
    requests, and non-zero requests (CPU and memory), by resource name; a missing resource
    is all zeros."""

    size: int
    allocatable: dict[str, Ints]
    requested: dict[str, Ints]
    non_zero_requested: dict[str, Ints]

    @classmethod
    def of(cls, columns: NodeColumns) -> ScoringColumns:
        return cls(
            len(columns.names),
            columns.allocatable,
            columns.requested,
            columns.non_zero_requested,
        )


def _allocatable_and_requested(
    resource: str, pod_request: int, columns: ScoringColumns
) -> tuple[Ints, Ints] | None:
    """Columns of `resource_allocation.allocatable_and_requested`; None skips the resource."""
    size = columns.size
    if resource in (CPU, MEMORY):
        return (
            _column(columns.allocatable, resource, size),
            _column(columns.non_zero_requested, resource, size) + pod_request,
        )
    if not scored_resource(resource, pod_request):
        return None
    return (
        _column(columns.allocatable, resource, size),
        _column(columns.requested, resource, size) + pod_request,
    )


def scored_resource(resource: str, pod_request: int) -> bool:
    """Whether the scorers count `resource` at all: never the pod count, and an extended
    resource only when the pod requests it."""
    if resource in (CPU, MEMORY, EPHEMERAL_STORAGE):
        return True
    return resource != PODS and pod_request != 0


def score_columns(
    strategy: ScoringStrategy, pod_requests: Sequence[int], columns: NodeColumns
) -> Ints:
    """The strategy's score of every node, given the pod's request of each scored resource."""
    return score_arrays(strategy, pod_requests, ScoringColumns.of(columns))


def score_arrays(
    strategy: ScoringStrategy, pod_requests: Sequence[int], columns: ScoringColumns
) -> Ints:
    """`score_columns` on the arrays the scorers read."""
    size = columns.size
    if strategy.type in (LEAST_ALLOCATED, MOST_ALLOCATED):
        common = _score_all_allocatable(strategy, pod_requests, columns)
        if common is not None:
            return common
    node_score = np.zeros(size, np.int64)
    weight_sum = np.zeros(size, np.int64)
    rtcr = strategy.type not in (LEAST_ALLOCATED, MOST_ALLOCATED)
    shape = (
        scaled_shape(strategy.requested_to_capacity_ratio.shape)
        if rtcr and strategy.requested_to_capacity_ratio is not None
        else []
    )
    for spec, pod_request in zip(strategy.resources, pod_requests, strict=True):
        pair = _allocatable_and_requested(spec.name, pod_request, columns)
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


def _score_all_allocatable(
    strategy: ScoringStrategy, pod_requests: Sequence[int], columns: ScoringColumns
) -> Ints | None:
    """`score_arrays` for LeastAllocated and MostAllocated when every node has every scored
    resource (the usual case): no node leaves a resource out, so the weight sum is one
    number and the masks go. None when some node has 0 of a scored resource."""
    node_score: Ints | int = 0
    weight_sum = 0
    for spec, pod_request in zip(strategy.resources, pod_requests, strict=True):
        pair = _allocatable_and_requested(spec.name, pod_request, columns)
        if pair is None:
            continue
        alloc, req = pair
        if not alloc.all():
            return None
        if strategy.type == LEAST_ALLOCATED:
            # 0 where the request exceeds the node, as np.where(req > alloc, 0, ...) has it
            score = np.maximum(alloc - req, 0) * MAX_NODE_SCORE // alloc
        else:
            score = np.minimum(req, alloc) * MAX_NODE_SCORE // alloc
        node_score = node_score + (score * spec.weight if spec.weight != 1 else score)
        weight_sum += spec.weight
    if weight_sum <= 0 or isinstance(node_score, int):
        return np.zeros(columns.size, np.int64)
    return (node_score // weight_sum).astype(np.int64)


def scoring_columns(
    nodes: Sequence[NodeInfo],
    resources: Sequence[str],
    pod_requests: Sequence[int],
    amounts: RowAmounts | None = None,
) -> ScoringColumns | None:
    """The arrays `score_arrays` reads for the resources it scores, of `nodes` alone (the
    cycle's feasible nodes): read from the snapshot's columns through `amounts` (their
    rows) when given, else gathered from the node infos.

    None when an amount, of a node or of the pod, is too large for exact int64 arithmetic
    (see SAFE_AMOUNT). With `amounts`, `nodes` is not read (it may be empty)."""
    if any(abs(r) >= SAFE_AMOUNT for r in pod_requests):
        return None
    size = len(nodes) if amounts is None else len(amounts.rows)
    alloc: dict[str, Ints] = {}
    req: dict[str, Ints] = {}
    non_zero: dict[str, Ints] = {}
    for name, pod_request in zip(resources, pod_requests, strict=True):
        if name in (CPU, MEMORY):
            tables: tuple[tuple[Table, dict[str, Ints]], ...] = (
                ("allocatable", alloc),
                ("non_zero_requested", non_zero),
            )
        elif scored_resource(name, pod_request):
            tables = (("allocatable", alloc), ("requested", req))
        else:
            continue
        for table, into in tables:
            found = _read(nodes, amounts, table, name)
            if found is None:
                return None
            into[name] = found
    return ScoringColumns(size, alloc, req, non_zero)


def _read(
    nodes: Sequence[NodeInfo], amounts: RowAmounts | None, table: Table, name: str
) -> Ints | None:
    """Column `table` (a NodeColumns/NodeInfo attribute) of resource `name` for the nodes;
    None when an amount is not below SAFE_AMOUNT (a value saturated in the columns is
    not either)."""
    if amounts is not None:
        column, largest = amounts.get(table, name)
    else:
        try:
            column = np.fromiter((getattr(n, table).get(name) for n in nodes), np.int64, len(nodes))
        except OverflowError:
            return None
        largest = int(np.abs(column).max()) if len(column) else 0
    return column if largest < SAFE_AMOUNT else None
