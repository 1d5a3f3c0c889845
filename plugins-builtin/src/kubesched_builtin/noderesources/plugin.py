"""NodeResourcesFit: does the node have room for the pod, and how full would it be.

Upstream: pkg/scheduler/framework/plugins/noderesources/fit.go. PreFilter computes the pod's
requests once; Filter reports every resource the node is short of (Unschedulable, so
preemption may help, or UnschedulableAndUnresolvable where a request exceeds the node's
whole allocatable, since v1.34); Score ranks nodes by the configured strategy (LeastAllocated by
default). Its scores are already 0..100, so there is no NormalizeScore.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, Node, Pod, pod_requests
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    Handle,
    NodeColumns,
    NodeInfo,
    PodInfo,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueingHint,
    Resource,
    RowMask,
    Rows,
    RowScores,
    ScorePlugin,
    StateData,
    Status,
)
from kubesched_builtin.helper.columns import snapshot_rows
from kubesched_builtin.helper.row_amounts import RowAmounts, row_amounts
from kubesched_builtin.helper.row_scores import RowScoreCache
from kubesched_builtin.helper.state import read_state
from kubesched_builtin.names import NODE_RESOURCES_FIT
from kubesched_builtin.noderesources import vectorized
from kubesched_builtin.noderesources.args import NodeResourcesFitArgs
from kubesched_builtin.noderesources.fits import (
    fits,
    fits_request,
    insufficient_status,
    nodes_short_of,
)
from kubesched_builtin.noderesources.resource_allocation import (
    allocatable_and_requested,
    pod_resource_request_list,
    scorer_for,
)

__all__ = ["PRE_FILTER_STATE_KEY", "PRE_SCORE_STATE_KEY", "NodeResourcesFit"]

PRE_FILTER_STATE_KEY: Final = "PreFilter" + NODE_RESOURCES_FIT
PRE_SCORE_STATE_KEY: Final = "PreScore" + NODE_RESOURCES_FIT


@dataclass(frozen=True)
class PreFilterState:
    """The pod's effective requests, written by PreFilter and read by Filter."""

    requests: Resource

    def clone(self) -> StateData:
        return self  # never changed after PreFilter


@dataclass(frozen=True)
class PreScoreState:
    """The pod's request of each scored resource, in the args' resource order."""

    pod_requests: tuple[int, ...]

    def clone(self) -> StateData:
        return self


class NodeResourcesFit(
    PreFilterPlugin[NodeResourcesFitArgs],
    FilterPlugin[NodeResourcesFitArgs],
    PreScorePlugin[NodeResourcesFitArgs],
    ScorePlugin[NodeResourcesFitArgs],
    EnqueueExtensions,
):
    """Filters nodes without room for the pod and scores the rest by resource allocation."""

    name: ClassVar[str] = NODE_RESOURCES_FIT
    filter_mask_exact: ClassVar[bool] = True
    """`filter_mask` rejects only what `filter` rejects (see `mask_is_exact`)."""

    def __init__(self, args: NodeResourcesFitArgs, handle: Handle) -> None:
        super().__init__(args, handle)
        self.ignored_resources = frozenset(args.ignored_resources)
        self.ignored_resource_groups = frozenset(args.ignored_resource_groups)
        self.resources = [r.name for r in args.scoring_strategy.resources]
        self.weights = [r.weight for r in args.scoring_strategy.resources]
        self.scorer = scorer_for(args.scoring_strategy)
        self._row_scores = RowScoreCache()
        """`score_array`'s scores, kept per pod shape while a node is unchanged."""
        self._row_fits = RowScoreCache(np.bool_)
        """`filter_mask`'s answers, kept per pod shape while a node is unchanged."""

    # -- PreFilter / Filter --------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(PodInfo.of(pod).requests))
        return None, None

    def _pod_request(self, state: CycleState) -> Resource:
        data = read_state(
            state,
            PRE_FILTER_STATE_KEY,
            PreFilterState,
            reading="error reading",
            convert="  convert to NodeResourcesFit.preFilterState error",
        )
        return data.requests

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            request = self._pod_request(state)
        except RuntimeError as exc:
            return Status.as_error(exc)
        return insufficient_status(
            fits_request(request, node_info, self.ignored_resources, self.ignored_resource_groups)
        )

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Filter of each node in one call (BatchFilterPlugin): one quick pass (on the
        snapshot's columns) finds the nodes short of something, and only those get
        `filter`'s reasons, in its order."""
        try:
            request = self._pod_request(state)
        except RuntimeError as exc:
            return [Status.as_error(exc) for _ in nodes]
        out: list[Status | None] = [None] * len(nodes)
        ignored, groups = self.ignored_resources, self.ignored_resource_groups
        rows = snapshot_rows(self.handle, nodes)
        short = None if rows is None else vectorized.short_rows(request, rows, ignored, groups)
        if short is None:
            short = nodes_short_of(request, nodes, ignored, groups)
        for i in short:
            out[i] = insufficient_status(fits_request(request, nodes[i], ignored, groups))
        return out

    def filter_vectorized(
        self, state: CycleState, pod: Pod, columns: NodeColumns
    ) -> npt.NDArray[np.bool_]:
        """Filter over every node of `columns` at once: True where the pod fits.

        Raises what Filter would report as an Error (PreFilter did not run)."""
        return vectorized.fits_columns(
            self._pod_request(state),
            columns,
            self.ignored_resources,
            self.ignored_resource_groups,
        )

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        """Filter on the snapshot's columns (ArrayFilterPlugin): room for the pod's
        requests and one more pod. Raises (so `filter` answers) without PreFilter's state
        or when an amount is not exact in int64."""
        request = self._pod_request(state)
        ignored, groups = self.ignored_resources, self.ignored_resource_groups

        def by_rows(at: Rows) -> RowMask:
            ok = vectorized.fits_rows(request, columns, at, ignored, groups)
            if ok is None:
                raise OverflowError("amounts beyond int64")
            return ok

        def by_node(info: NodeInfo) -> bool:
            return not fits_request(request, info, ignored, groups)

        # a node's answer changes only with the node or what the pod asks for: kept per shape
        key = vectorized.wanted(request, ignored, groups)
        nodes = self.handle.snapshot.node_info_list
        return self._row_fits.scores(key, columns, rows, by_rows, nodes, by_node)

    # -- PreScore / Score ----------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        requests = tuple(pod_resource_request_list(pod, self.resources))
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(requests))
        return None

    def _scoring_requests(self, state: CycleState, pod: Pod) -> Sequence[int]:
        data = state.get(PRE_SCORE_STATE_KEY)
        if isinstance(data, PreScoreState):
            return data.pod_requests
        # upstream: PreScore may not have run (e.g. called from preemption); compute here
        return pod_resource_request_list(pod, self.resources)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        requests = self._scoring_requests(state, pod)
        requested: list[int] = []
        allocatable: list[int] = []
        for resource, pod_request in zip(self.resources, requests, strict=True):
            alloc, req = allocatable_and_requested(node_info, resource, pod_request)
            allocatable.append(alloc)
            requested.append(req if alloc else 0)
        return self.scorer(requested, allocatable), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """Score of every node at once (BatchScorePlugin), with numpy on the snapshot's
        columns; node by node when an amount is too large for exact int64 arithmetic."""
        requests = self._scoring_requests(state, pod)
        rows = snapshot_rows(self.handle, nodes)
        amounts = None if rows is None else RowAmounts(*rows)
        columns = vectorized.scoring_columns(nodes, self.resources, requests, amounts)
        if columns is None:
            return [self.score(state, pod, n)[0] for n in nodes], None
        scores = vectorized.score_arrays(self.args.scoring_strategy, requests, columns)
        return scores.tolist(), None

    def score_array(
        self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> tuple[RowScores, Status | None]:
        """Score on the snapshot's columns (ArrayScorePlugin), every strategy; raises (so
        `score` answers) when an amount is too large for exact int64 arithmetic."""
        requests = self._scoring_requests(state, pod)

        def by_rows(at: Rows) -> RowScores:
            amounts = row_amounts(state, columns, at)  # shared with BalancedAllocation
            found = vectorized.scoring_columns((), self.resources, requests, amounts)
            if found is None:
                raise OverflowError("amounts beyond int64")
            return vectorized.score_arrays(self.args.scoring_strategy, requests, found)

        # a node's score changes only with the node or the pod's requests: kept per shape
        key = tuple(requests)
        return self._row_scores.plugin_scores(self, state, pod, key, columns, rows, by_rows), None

    def score_vectorized(
        self, state: CycleState, pod: Pod, columns: NodeColumns
    ) -> npt.NDArray[np.int64]:
        """Score over every node of `columns` at once, equal to `score` node by node."""
        return vectorized.score_columns(
            self.args.scoring_strategy,
            self._scoring_requests(state, pod),
            columns,
        )

    # -- EnqueueExtensions ---------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        # upstream with queueing hints on (v1.32+) and InPlacePodVerticalScaling on (v1.33+):
        # a scheduled pod leaving or shrinking frees room, a node appearing or growing adds
        # it. (Node label/taint updates are registered only when hints are off.)
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.Pod, ActionType.Delete | ActionType.UpdatePodScaleDown),
                self.is_schedulable_after_pod_event,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.Node, ActionType.Add | ActionType.UpdateNodeAllocatable),
                self.is_schedulable_after_node_change,
            ),
        ]

    def is_schedulable_after_pod_event(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Queue when a scheduled pod was deleted, or when a pod scaled down a resource this
        pod requests (or this pod itself scaled down)."""
        if not (old_obj is None or isinstance(old_obj, Pod)) or not (
            new_obj is None or isinstance(new_obj, Pod)
        ):
            return QueueingHint.Queue
        if new_obj is None:
            if old_obj is None or not old_obj.spec.node_name:
                return QueueingHint.QueueSkip
            return QueueingHint.Queue
        if old_obj is None:
            return QueueingHint.QueueSkip
        if _freed_room_for(pod, old_obj, new_obj):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when the new or changed node fits the pod and (for an update) grew in a
        resource the pod requests or in allowed pods."""
        if not isinstance(new_obj, Node) or not (old_obj is None or isinstance(old_obj, Node)):
            return QueueingHint.Queue
        if fits(pod, NodeInfo(new_obj)):
            return QueueingHint.QueueSkip  # something is still short on this node
        if old_obj is None or _any_requested_resource_increased(pod, old_obj, new_obj):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip


def _freed_room_for(target: Pod, original: Pod, modified: Pod) -> bool:
    """upstream isSchedulableAfterPodScaleDown."""
    if modified.metadata.uid == target.metadata.uid:
        return True
    if not modified.spec.node_name:
        return False
    before, after = pod_requests(original), pod_requests(modified)
    return any(
        quantity and before.get(name, 0) > after.get(name, 0)
        for name, quantity in pod_requests(target).items()
    )


def _any_requested_resource_increased(pod: Pod, original: Node, modified: Node) -> bool:
    """upstream haveAnyRequestedResourcesIncreased."""
    request = PodInfo(pod).requests
    before, after = NodeInfo(original).allocatable, NodeInfo(modified).allocatable
    if after.allowed_pod_number > before.allowed_pod_number:
        return True
    for name in (CPU, MEMORY, EPHEMERAL_STORAGE):
        if request.get(name) > 0 and after.get(name) > before.get(name):
            return True
    return any(
        quantity and after.scalar.get(name, 0) > before.scalar.get(name, 0)
        for name, quantity in request.scalar.items()
    )
