"""NodeResourcesBalancedAllocation favours nodes whose resources would be used evenly.

Upstream: pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go and
resource_allocation.go (v1.34). For each configured resource the fraction requested/allocatable
is taken with *real* requests (the node's pods plus this pod, no 100m/200Mi defaults), capped
at 1; resources the node does not have (allocatable 0) and extended resources the pod does
not request are left out. The score is `(1 - std) * 100` truncated, where std is half the
difference for two fractions and the population standard deviation for more. Best-effort
pods (no request at all) are not scored (PreScore Skip, v1.33+, kubernetes#129138). Its
scores are already 0..100, so there is no NormalizeScore.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

import numpy as np

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, Pod
from kubesched.framework import (
    MAX_NODE_SCORE,
    CycleState,
    Handle,
    NodeColumns,
    NodeInfo,
    PodInfo,
    PreScorePlugin,
    Rows,
    RowScores,
    ScorePlugin,
    StateData,
    Status,
)
from kubesched_builtin.balancedallocation.args import NodeResourcesBalancedAllocationArgs
from kubesched_builtin.balancedallocation.vectorized import balanced_array, balanced_scores
from kubesched_builtin.helper.columns import snapshot_rows
from kubesched_builtin.helper.row_amounts import RowAmounts, row_amounts
from kubesched_builtin.helper.row_scores import RowScoreCache
from kubesched_builtin.names import NODE_RESOURCES_BALANCED_ALLOCATION

__all__ = [
    "PRE_SCORE_STATE_KEY",
    "NodeResourcesBalancedAllocation",
    "allocatable_and_requested",
    "balanced_resource_score",
    "pod_request_list",
]

PRE_SCORE_STATE_KEY: Final = "PreScore" + NODE_RESOURCES_BALANCED_ALLOCATION


def pod_request_list(pod: Pod, resources: Sequence[str]) -> list[int]:
    """The pod's real request of each resource, in order (CPU in millicores)."""
    requests = PodInfo.of(pod).request_amounts
    return [requests.get(name, 0) for name in resources]


def allocatable_and_requested(
    node_info: NodeInfo, resource: str, pod_request: int
) -> tuple[int, int]:
    """(allocatable, requested incl. the pod) of one resource with real requests; (0, 0)
    leaves the resource out."""
    if resource == CPU:
        return node_info.allocatable.milli_cpu, node_info.requested.milli_cpu + pod_request
    if resource == MEMORY:
        return node_info.allocatable.memory, node_info.requested.memory + pod_request
    if resource == EPHEMERAL_STORAGE:
        return (
            node_info.allocatable.ephemeral_storage,
            node_info.requested.ephemeral_storage + pod_request,
        )
    if pod_request == 0 or resource not in node_info.allocatable.scalar:
        # an extended resource the pod does not ask for, or one the node lacks (pods too)
        return 0, 0
    return (
        node_info.allocatable.scalar[resource],
        node_info.requested.scalar.get(resource, 0) + pod_request,
    )


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """`(1 - std) * 100` over the fractions of the resources with allocatable > 0."""
    fractions: list[float] = []
    total = 0.0
    for req, alloc in zip(requested, allocatable, strict=True):
        if alloc == 0:
            continue
        fraction = min(float(req) / float(alloc), 1.0)  # Go converts before dividing
        total += fraction
        fractions.append(fraction)
    std = 0.0
    if len(fractions) == 2:
        # the usual cpu/memory case: the standard deviation of two values
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        squares = 0.0
        for f in fractions:
            squares += (f - mean) * (f - mean)
        std = math.sqrt(squares / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


@dataclass(frozen=True)
class PreScoreState:
    """The pod's request of each configured resource, in the args' order."""

    pod_requests: tuple[int, ...]

    def clone(self) -> StateData:
        return self


class NodeResourcesBalancedAllocation(
    PreScorePlugin[NodeResourcesBalancedAllocationArgs],
    ScorePlugin[NodeResourcesBalancedAllocationArgs],
):
    """Score: prefer nodes where the pod leaves the resources' usage most even."""

    name: ClassVar[str] = NODE_RESOURCES_BALANCED_ALLOCATION

    def __init__(self, args: NodeResourcesBalancedAllocationArgs, handle: Handle) -> None:
        super().__init__(args, handle)
        self.resources = [r.name for r in args.resources]
        self._row_scores = RowScoreCache()
        """`score_array`'s scores, kept per pod shape while a node is unchanged."""

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        requests = pod_request_list(pod, self.resources)
        if not any(requests):
            # best-effort pods would all pile onto the emptiest node (kubernetes#129138)
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(tuple(requests)))
        return None

    def _requests(self, state: CycleState, pod: Pod) -> Sequence[int] | None:
        """The pod's requests from PreScore; None for a pod that requests nothing."""
        data = state.get(PRE_SCORE_STATE_KEY)
        if isinstance(data, PreScoreState):
            return data.pod_requests
        # upstream: PreScore may not have run; compute here
        requests = pod_request_list(pod, self.resources)
        return requests if any(requests) else None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        requests = self._requests(state, pod)
        if requests is None:
            return 0, None
        requested: list[int] = []
        allocatable: list[int] = []
        for resource, pod_request in zip(self.resources, requests, strict=True):
            alloc, req = allocatable_and_requested(node_info, resource, pod_request)
            allocatable.append(alloc)
            requested.append(req if alloc else 0)
        return balanced_resource_score(requested, allocatable), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """Score of every node at once (BatchScorePlugin), with numpy on the snapshot's
        columns; node by node when an amount is too large for int64."""
        requests = self._requests(state, pod)
        if requests is None:
            return [0] * len(nodes), None
        rows = snapshot_rows(self.handle, nodes)
        amounts = None if rows is None else RowAmounts(*rows)
        scores = balanced_scores(nodes, self.resources, requests, amounts)
        if scores is None:
            return [self.score(state, pod, n)[0] for n in nodes], None
        return scores, None

    def score_array(
        self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> tuple[RowScores, Status | None]:
        """Score on the snapshot's columns (ArrayScorePlugin); raises (so `score` answers)
        when an amount does not fit in int64."""
        requests = self._requests(state, pod)
        if requests is None:
            return np.zeros(len(rows), np.int64), None

        def by_rows(at: Rows) -> RowScores:
            # the rows' amounts, shared with NodeResourcesFit
            scores = balanced_array((), self.resources, requests, row_amounts(state, columns, at))
            if scores is None:
                raise OverflowError("amounts beyond int64")
            return scores

        # a node's score changes only with the node or the pod's requests: kept per shape
        key = tuple(requests)
        return self._row_scores.plugin_scores(self, state, pod, key, columns, rows, by_rows), None
