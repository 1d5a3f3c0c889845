"""TaintToleration keeps pods off nodes whose taints they do not tolerate, and prefers nodes
with fewer untolerated PreferNoSchedule taints.

Upstream: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go (v1.34).
Filter looks only at NoSchedule and NoExecute taints and rejects with
UnschedulableAndUnresolvable (preemption cannot remove a taint). Score counts the node's
PreferNoSchedule taints that none of the pod's PreferNoSchedule (or effect-less) tolerations
tolerates; NormalizeScore reverses the counts so the node with fewest gets 100.

The Filter reason does not name the taint: taint keys and values may be sensitive, so since
kubernetes/kubernetes#134740 (in release-1.34 as #135023) the pod status says only
`node(s) had untolerated taint(s)` and upstream logs the taint. kubesched shows it in
`simulate --explain` instead (`explain_filter`, the FilterExplainer capability).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import numpy as np

from kubesched.api import Node, Pod, Taint, Toleration, find_untolerated_taint, tolerates_any
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    NodeColumns,
    NodeInfo,
    NodeScore,
    PreScorePlugin,
    QueueingHint,
    RowMask,
    Rows,
    RowScores,
    ScorePlugin,
    StateData,
    Status,
)
from kubesched_builtin.helper import default_normalize_score, is_do_not_schedule_taint
from kubesched_builtin.helper.arrays import per_distinct_at, taints_of
from kubesched_builtin.helper.normalize_score import default_normalize_array
from kubesched_builtin.names import TAINT_TOLERATION

__all__ = [
    "ERR_REASON_UNTOLERATED",
    "PRE_SCORE_STATE_KEY",
    "TaintToleration",
    "untolerated_taint_detail",
]

PRE_SCORE_STATE_KEY: Final = "PreScore" + TAINT_TOLERATION
ERR_REASON_UNTOLERATED: Final = "node(s) had untolerated taint(s)"


def untolerated_taint_detail(taint: Taint) -> str:
    """The explanation line naming the first untolerated taint (the wording the Filter
    reason had before v1.34 dropped the taint from it)."""
    return f"untolerated taint {{{taint.key}: {taint.value}}}"


@dataclass(frozen=True)
class PreScoreState:
    """The pod's tolerations that can tolerate a PreferNoSchedule taint."""

    tolerations_prefer_no_schedule: tuple[Toleration, ...]

    def clone(self) -> StateData:
        return self  # never changed after PreScore


def _prefer_no_schedule_tolerations(tolerations: Sequence[Toleration]) -> tuple[Toleration, ...]:
    # an empty effect matches every effect, PreferNoSchedule included
    return tuple(t for t in tolerations if t.effect in ("", "PreferNoSchedule"))


def _count_intolerable_prefer_no_schedule(
    taints: Sequence[Taint], tolerations: Sequence[Toleration]
) -> int:
    return sum(
        1
        for taint in taints
        if taint.effect == "PreferNoSchedule" and not tolerates_any(tolerations, taint)
    )


def _untolerated(node: Node, tolerations: Sequence[Toleration]) -> Taint | None:
    return find_untolerated_taint(node.spec.taints, tolerations, is_do_not_schedule_taint)


class TaintToleration(FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions):
    """Filter: untolerated NoSchedule/NoExecute taints; Score: fewer untolerated
    PreferNoSchedule taints is better."""

    name: ClassVar[str] = TAINT_TOLERATION
    filter_mask_exact: ClassVar[bool] = True
    """`filter_mask` rejects only what `filter` rejects (see `mask_is_exact`)."""

    # -- Filter -------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None:
            return Status.as_error("node not found")
        if _untolerated(node, pod.spec.tolerations) is None:
            return None
        return Status.unresolvable(ERR_REASON_UNTOLERATED)

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Filter of each node in one call (BatchFilterPlugin): an untainted node passes
        at once."""
        tolerations = pod.spec.tolerations
        out: list[Status | None] = [None] * len(nodes)
        for i, info in enumerate(nodes):
            node = info.node
            if node is None:
                out[i] = Status.as_error("node not found")
            elif node.spec.taints and _untolerated(node, tolerations) is not None:
                out[i] = Status.unresolvable(ERR_REASON_UNTOLERATED)
        return out

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        """Filter on the snapshot's columns (ArrayFilterPlugin): each distinct taint list
        is checked once against the pod's tolerations."""
        tolerations = pod.spec.tolerations

        def tolerated(taint_set: int) -> bool:
            taints = taints_of(columns, taint_set)
            return not taints or (
                find_untolerated_taint(list(taints), tolerations, is_do_not_schedule_taint) is None
            )

        taint_sets = len(columns.taint_sets)
        return per_distinct_at(columns.taint_set, rows, taint_sets, tolerated, np.bool_)  # type: ignore[return-value]

    def explain_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[str]:
        """Which taint the pod does not tolerate: the first NoSchedule or NoExecute one, as
        upstream's Filter finds it (FilterExplainer)."""
        node = node_info.node
        taint = None if node is None else _untolerated(node, pod.spec.tolerations)
        return [] if taint is None else [untolerated_taint_detail(taint)]

    # -- PreScore / Score ---------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        tolerations = _prefer_no_schedule_tolerations(pod.spec.tolerations)
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(tolerations))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        node = node_info.node
        if node is None:
            return 0, Status.as_error("node not found")
        data = state.get(PRE_SCORE_STATE_KEY)
        if not isinstance(data, PreScoreState):
            # upstream reads the state strictly: Score without PreScore is an error
            return 0, Status.as_error(
                f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found'
            )
        count = _count_intolerable_prefer_no_schedule(
            node.spec.taints, data.tolerations_prefer_no_schedule
        )
        return count, None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """Score of every node in one call (BatchScorePlugin): one loop, no per-node
        lookups of the cycle state; an untainted node counts 0 at once."""
        data = state.get(PRE_SCORE_STATE_KEY)
        tolerations = (
            data.tolerations_prefer_no_schedule if isinstance(data, PreScoreState) else None
        )
        counts: list[int] = []
        for info in nodes:
            node = info.node
            if node is None:
                return [], Status.as_error("node not found")
            if tolerations is None:  # the error `score` gives on its first node
                return [], Status.as_error(
                    f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found'
                )
            taints = node.spec.taints
            counts.append(
                _count_intolerable_prefer_no_schedule(taints, tolerations) if taints else 0
            )
        return counts, None

    def score_array(
        self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> tuple[RowScores, Status | None]:
        """Score on the snapshot's columns (ArrayScorePlugin): the untolerated
        PreferNoSchedule taints of each distinct taint list, counted once."""
        data = state.get(PRE_SCORE_STATE_KEY)
        if not isinstance(data, PreScoreState):
            if not len(rows):
                return np.zeros(0, np.int64), None
            return np.zeros(0, np.int64), Status.as_error(
                f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found'
            )
        tolerations = data.tolerations_prefer_no_schedule

        def count(taint_set: int) -> int:
            taints = taints_of(columns, taint_set)
            return _count_intolerable_prefer_no_schedule(taints, tolerations) if taints else 0

        taint_sets = len(columns.taint_sets)
        return per_distinct_at(columns.taint_set, rows, taint_sets, count, np.int64), None  # type: ignore[return-value]

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        default_normalize_score(scores, reverse=True)
        return None

    def normalize_score_array(
        self, state: CycleState, pod: Pod, scores: RowScores
    ) -> tuple[RowScores, Status | None]:
        """NormalizeScore on the array (ArrayNormalizeScorePlugin)."""
        return default_normalize_array(scores, reverse=True), None

    # -- EnqueueExtensions --------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        # upstream with queueing hints on (the v1.34 default): a node that appears or changes
        # taints, and the pod itself gaining tolerations
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.Node, ActionType.Add | ActionType.UpdateNodeTaint),
                self.is_schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.Pod, ActionType.UpdatePodToleration),
                self.is_schedulable_after_pod_toleration_change,
            ),
        ]

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when the node went from having an untolerated NoSchedule/NoExecute taint (or
        not existing) to having none."""
        if not isinstance(new_obj, Node) or not (old_obj is None or isinstance(old_obj, Node)):
            return QueueingHint.Queue
        tolerations = pod.spec.tolerations
        was_untolerated = old_obj is None or _untolerated(old_obj, tolerations) is not None
        is_untolerated = _untolerated(new_obj, tolerations) is not None
        if was_untolerated and not is_untolerated:
            return QueueingHint.Queue
        return QueueingHint.QueueSkip

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when the rejected pod itself changed tolerations (only additions are
        allowed, so it may now tolerate the taint)."""
        if not isinstance(new_obj, Pod) or not (old_obj is None or isinstance(old_obj, Pod)):
            return QueueingHint.Queue
        if new_obj.metadata.uid == pod.metadata.uid:
            return QueueingHint.Queue
        return QueueingHint.QueueSkip
