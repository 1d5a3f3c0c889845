"""NodeResourcesBalancedAllocation's Score over many nodes at once, with numpy.

The same rule as `plugin.balanced_resource_score` on each node, written so that every
floating-point operation is the one the per-node form does, in the same order: numpy's
float64 `+ - * /`, `abs`, `sqrt` and int64 → float64 conversion round exactly as Python's,
so the scores are equal bit for bit (the tests check it on random clusters). Resources a
node leaves out (allocatable 0, or an extended resource the pod does not request) add
exact zeros where the per-node form skips them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from kubesched.framework import MAX_NODE_SCORE, NodeInfo
from kubesched_builtin.helper.row_amounts import RowAmounts

__all__ = ["SAFE_AMOUNT", "balanced_array", "balanced_scores"]

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

SAFE_AMOUNT = 2**62
"""Node and pod amounts below this add up without overflowing int64; with a larger one the
plugin scores node by node."""


def _gather(
    nodes: Sequence[NodeInfo], amounts: RowAmounts | None, resource: str, pod_request: int
) -> tuple[Ints, Ints] | None:
    """(allocatable, requested incl. the pod) of `resource` on each node, as
    `plugin.allocatable_and_requested` gives them: from the snapshot's columns through
    `amounts` when given, else from the node infos; None when no node counts it."""
    size = len(nodes) if amounts is None else len(amounts.rows)
    if resource not in (CPU, MEMORY, EPHEMERAL_STORAGE) and pod_request == 0:
        return None  # an extended resource the pod does not ask for
    if amounts is not None:
        if resource == PODS:
            # the pod count is no scalar, and is left out like a missing one
            return np.zeros(size, np.int64), np.full(size, pod_request, np.int64)
        alloc, largest_alloc = amounts.get("allocatable", resource)
        req, largest_req = amounts.get("requested", resource)
        # a value saturated in the columns (beyond int64) fails this check too
        if max(largest_alloc, largest_req) >= SAFE_AMOUNT:
            raise OverflowError(resource)
        return alloc, req + pod_request
    if resource == CPU:
        alloc = np.fromiter((n.allocatable.milli_cpu for n in nodes), np.int64, size)
        req = np.fromiter((n.requested.milli_cpu for n in nodes), np.int64, size)
    elif resource == MEMORY:
        alloc = np.fromiter((n.allocatable.memory for n in nodes), np.int64, size)
        req = np.fromiter((n.requested.memory for n in nodes), np.int64, size)
    elif resource == EPHEMERAL_STORAGE:
        alloc = np.fromiter((n.allocatable.ephemeral_storage for n in nodes), np.int64, size)
        req = np.fromiter((n.requested.ephemeral_storage for n in nodes), np.int64, size)
    else:
        # `scalar`, not `get`: the pod count is no scalar, and is left out like a missing one
        alloc = np.fromiter((n.allocatable.scalar.get(resource, 0) for n in nodes), np.int64, size)
        req = np.fromiter((n.requested.scalar.get(resource, 0) for n in nodes), np.int64, size)
    if size and max(int(np.abs(alloc).max()), int(np.abs(req).max())) >= SAFE_AMOUNT:
        raise OverflowError(resource)
    return alloc, req + pod_request


def balanced_scores(
    nodes: Sequence[NodeInfo],
    resources: Sequence[str],
    pod_requests: Sequence[int],
    amounts: RowAmounts | None = None,
) -> list[int] | None:
    """`balanced_array` as a list of ints."""
    scores = balanced_array(nodes, resources, pod_requests, amounts)
    return None if scores is None else scores.tolist()


def balanced_array(
    nodes: Sequence[NodeInfo],
    resources: Sequence[str],
    pod_requests: Sequence[int],
    amounts: RowAmounts | None = None,
) -> Ints | None:
    """`balanced_resource_score` of each node, read from the snapshot's columns through
    `amounts` (their rows) when given (`nodes` is then not read, and may be empty); None
    when an amount does not fit in int64 (the caller then scores node by node)."""
    size = len(nodes) if amounts is None else len(amounts.rows)
    if any(abs(r) >= SAFE_AMOUNT for r in pod_requests):
        return None
    fractions: list[tuple[npt.NDArray[np.bool_], Floats]] = []
    everywhere = True  # every node counts every resource
    try:
        for resource, pod_request in zip(resources, pod_requests, strict=True):
            pair = _gather(nodes, amounts, resource, pod_request)
            if pair is None:
                continue
            alloc, req = pair
            counted = alloc != 0
            # int64 / int64 divides as float64, the conversions the per-node form makes
            if counted.all():  # the usual case: no masking needed
                fractions.append((counted, np.minimum(req / alloc, 1.0)))
                continue
            everywhere = False
            fraction = np.minimum(req / np.where(counted, alloc, 1), 1.0)
            fractions.append((counted, np.where(counted, fraction, 0.0)))
    except OverflowError:
        return None
    if len(fractions) == 2 and everywhere:
        # every node counts the same two resources (cpu and memory, usually): half their
        # difference, the same operations as below without the masks
        half: Floats = np.abs((fractions[0][1] - fractions[1][1]) / 2)
        two: Ints = ((1 - half) * MAX_NODE_SCORE).astype(np.int64)
        return two
    count = np.zeros(size, np.int64)
    total = np.zeros(size, np.float64)
    first = np.zeros(size, np.float64)
    second = np.zeros(size, np.float64)
    for counted, fraction in fractions:
        first = np.where(counted & (count == 0), fraction, first)
        second = np.where(counted & (count == 1), fraction, second)
        total = total + fraction  # + 0.0 where not counted: exact
        count += counted
    # two fractions, the usual cpu/memory case: half their difference
    std = np.where(count == 2, np.abs((first - second) / 2), 0.0)
    many = count > 2
    if many.any():
        mean = total / np.where(many, count, 1).astype(np.float64)
        squares = np.zeros(size, np.float64)
        for counted, fraction in fractions:
            diff = fraction - mean
            squares = squares + np.where(counted, diff * diff, 0.0)
        spread = np.sqrt(squares / np.where(many, count, 1).astype(np.float64))
        std = np.where(many, spread, std)
    # int() truncates toward zero, as astype does; the value is never negative
    scores: Ints = ((1 - std) * MAX_NODE_SCORE).astype(np.int64)
    return scores
