"""PodTopologySpread: spread matching pods evenly over topology domains.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/plugin.go. The pod's
`DoNotSchedule` constraints are enforced by PreFilter/Filter (AddPod/RemovePod keep the
counts right for nominated pods and preemption); its `ScheduleAnyway` constraints rank nodes
in PreScore/Score/NormalizeScore. A pod without constraints gets the default ones: the
System defaults (hostname maxSkew 3, zone maxSkew 5, both ScheduleAnyway) or the args' list,
selecting the pods of the same Services and controller.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from kubesched.api import Node, Pod, TopologySpreadConstraint
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
    NodeScore,
    PodInfo,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueingHint,
    RowMask,
    Rows,
    RowScores,
    ScorePlugin,
    Status,
)
from kubesched_builtin.helper.state import read_state
from kubesched_builtin.names import POD_TOPOLOGY_SPREAD
from kubesched_builtin.podtopologyspread import scoring_columns
from kubesched_builtin.podtopologyspread.args import SYSTEM_DEFAULTING, PodTopologySpreadArgs
from kubesched_builtin.podtopologyspread.columns import MatchCounts, pre_filter_counts
from kubesched_builtin.podtopologyspread.common import (
    HONOR,
    LABEL_HOSTNAME,
    LABEL_TOPOLOGY_ZONE,
    Action,
    SpreadConstraint,
    default_selector,
    node_labels_match_constraints,
    parse_constraints,
    pod_labels_match_constraints,
)
from kubesched_builtin.podtopologyspread.filtering import (
    PreFilterState,
    compute_pre_filter_state,
    filter_mask,
    filter_node,
    filter_nodes,
)
from kubesched_builtin.podtopologyspread.scoring import (
    PreScoreState,
    compute_pre_score_state,
    normalize_scores,
    score_node,
)

__all__ = [
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "PodTopologySpread",
]

PRE_FILTER_STATE_KEY: Final = "PreFilter" + POD_TOPOLOGY_SPREAD
PRE_SCORE_STATE_KEY: Final = "PreScore" + POD_TOPOLOGY_SPREAD

SYSTEM_DEFAULT_CONSTRAINTS: Final = (
    TopologySpreadConstraint(
        max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable="ScheduleAnyway"
    ),
    TopologySpreadConstraint(
        max_skew=5, topology_key=LABEL_TOPOLOGY_ZONE, when_unsatisfiable="ScheduleAnyway"
    ),
)


class PodTopologySpread(
    PreFilterPlugin[PodTopologySpreadArgs],
    FilterPlugin[PodTopologySpreadArgs],
    PreScorePlugin[PodTopologySpreadArgs],
    ScorePlugin[PodTopologySpreadArgs],
    EnqueueExtensions,
):
    """Filters nodes that would break a DoNotSchedule spread constraint and prefers nodes
    whose domains hold fewer matching pods."""

    name: ClassVar[str] = POD_TOPOLOGY_SPREAD

    def __init__(self, args: PodTopologySpreadArgs, handle: Handle) -> None:
        super().__init__(args, handle)
        self._match_counts = MatchCounts()
        self.system_defaulted = args.defaulting_type == SYSTEM_DEFAULTING
        self.default_constraints: tuple[TopologySpreadConstraint, ...] = (
            SYSTEM_DEFAULT_CONSTRAINTS
            if self.system_defaulted
            else tuple(c.as_constraint() for c in args.default_constraints)
        )
        # parsed once per action when no default reads the pod's labels (matchLabelKeys)
        self._parsed_defaults: dict[Action, list[SpreadConstraint]] | None = (
            None if any(c.match_label_keys for c in self.default_constraints) else {}
        )

    # -- constraints -----------------------------------------------------------------------
    def constraints_for(self, pod: Pod, action: Action) -> list[SpreadConstraint]:
        """The pod's own constraints for `action`, or, when it has none at all, the default
        constraints for `action` with the selector deduced from its Services and controller
        (none when that selector is empty)."""
        if pod.spec.topology_spread_constraints:
            return parse_constraints(
                pod.spec.topology_spread_constraints, pod.metadata.labels, action
            )
        constraints = self._default_constraints(pod, action)
        if not constraints:
            return []
        selector = default_selector(pod, self.handle.cluster)
        if selector.is_empty:
            return []
        return [
            SpreadConstraint(
                c.max_skew,
                c.topology_key,
                selector,
                c.min_domains,
                c.node_affinity_policy,
                c.node_taints_policy,
            )
            for c in constraints
        ]

    def _default_constraints(self, pod: Pod, action: Action) -> list[SpreadConstraint]:
        parsed = self._parsed_defaults
        if parsed is None:
            return parse_constraints(self.default_constraints, pod.metadata.labels, action)
        found = parsed.get(action)
        if found is None:
            found = parsed[action] = parse_constraints(self.default_constraints, {}, action)
        return found

    # -- PreFilter / Filter ----------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        constraints = self.constraints_for(pod, "DoNotSchedule")
        if not constraints:
            return None, Status.skip()
        counted = None
        snapshot = self.handle.snapshot
        if nodes and nodes is snapshot.node_info_list:
            # the cluster's own nodes: the walk on the snapshot's columns
            counted = pre_filter_counts(
                pod, constraints, nodes, snapshot.columns, self._match_counts
            )
        state.write(
            PRE_FILTER_STATE_KEY, compute_pre_filter_state(pod, constraints, nodes, counted)
        )
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return self

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        try:
            s = _pre_filter_state(state)
        except RuntimeError as exc:
            return Status.as_error(exc)
        s.update_with_pod(pod_info_to_add.pod, pod_to_schedule, node_info.node, 1)
        return None

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        try:
            s = _pre_filter_state(state)
        except RuntimeError as exc:
            return Status.as_error(exc)
        s.update_with_pod(pod_info_to_remove.pod, pod_to_schedule, node_info.node, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if node_info.node is None:
            return Status.as_error("node not found")
        try:
            s = _pre_filter_state(state)
        except RuntimeError as exc:
            return Status.as_error(exc)
        return filter_node(s, pod, node_info.node)

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Filter of each node in one call (BatchFilterPlugin): PreFilter's state is read
        once, and what does not depend on the node is worked out once."""
        try:
            s = _pre_filter_state(state)
        except RuntimeError:
            return [self.filter(state, pod, info) for info in nodes]
        return filter_nodes(s, pod, nodes)

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        """Filter on the snapshot's columns (ArrayFilterPlugin): each constraint's domain
        per row from `domain_ids`, its count and limit from PreFilter's state (upstream
        filtering.go). Raises without that state, so `filter` reports the error."""
        return filter_mask(_pre_filter_state(state), pod, columns, rows)

    # -- PreScore / Score ------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        all_nodes = self.handle.snapshot.list()
        if not all_nodes:
            return Status.skip()
        # Only the System defaults let a node without a zone label keep hostname spreading.
        require_all = bool(pod.spec.topology_spread_constraints) or not self.system_defaulted
        constraints = self.constraints_for(pod, "ScheduleAnyway")
        if not constraints:
            return Status.skip()
        found = None
        snapshot = self.handle.snapshot
        if all_nodes is snapshot.node_info_list:
            # the cluster's own nodes: the walk on the snapshot's columns
            columns = snapshot.columns
            feasible = columns.positions(nodes)
            if feasible is not None:
                found = scoring_columns.pre_score_from_columns(
                    pod, constraints, feasible, all_nodes, columns, self._match_counts, require_all
                )
        if found is None:
            found = compute_pre_score_state(pod, constraints, nodes, all_nodes, require_all)
        state.write(PRE_SCORE_STATE_KEY, found)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        try:
            s = _pre_score_state(state)
        except RuntimeError as exc:
            return 0, Status.as_error(exc)
        return score_node(s, pod, node_info), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """Score of every node in one call (BatchScorePlugin): PreScore's state is read
        once."""
        if not nodes:
            return [], None
        try:
            s = _pre_score_state(state)
        except RuntimeError as exc:
            return [], Status.as_error(exc)
        return [score_node(s, pod, info) for info in nodes], None

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        try:
            s = _pre_score_state(state)
        except RuntimeError as exc:
            return Status.as_error(exc)
        normalize_scores(s, scores)
        return None

    def score_array(
        self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> tuple[RowScores, Status | None]:
        """Score on the snapshot's columns (ArrayScorePlugin): each constraint's domain
        from `domain_ids`, its count from PreScore's state, hostname counts per node
        generation (upstream scoring.go). Raises (so `score` answers) without PreScore's
        state or on columns other than the snapshot's."""
        snapshot = self.handle.snapshot
        if columns is not snapshot.columns:
            raise ValueError("columns of another snapshot")
        s = _pre_score_state(state)
        nodes = snapshot.node_info_list
        return scoring_columns.score_array(s, pod, nodes, columns, rows, self._match_counts), None

    def normalize_score_array(
        self, state: CycleState, pod: Pod, scores: RowScores
    ) -> tuple[RowScores, Status | None]:
        """NormalizeScore on the array `score_array` gave (ArrayNormalizeScorePlugin)."""
        try:
            s = _pre_score_state(state)
        except RuntimeError as exc:
            return scores, Status.as_error(exc)
        return scoring_columns.normalize_score_array(s, scores), None

    # -- EnqueueExtensions -----------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        # upstream with queueing hints on (v1.34 default): a pod appearing, leaving or
        # changing labels changes the counts; the pod itself gaining a toleration matters
        # for nodeTaintsPolicy Honor; a node's topology labels or taints change domains.
        pod_actions = (
            ActionType.Add
            | ActionType.UpdatePodLabel
            | ActionType.UpdatePodToleration
            | ActionType.Delete
        )
        node_actions = (
            ActionType.Add
            | ActionType.Delete
            | ActionType.UpdateNodeLabel
            | ActionType.UpdateNodeTaint
        )
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.Pod, pod_actions), self.is_schedulable_after_pod_change
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.Node, node_actions),
                self.is_schedulable_after_node_change,
            ),
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Queue when a scheduled pod of the same namespace that a hard constraint selects
        appears or leaves, when such a pod starts or stops matching, or when this pod gains
        tolerations while a constraint honours taints."""
        if not (old_obj is None or isinstance(old_obj, Pod)) or not (
            new_obj is None or isinstance(new_obj, Pod)
        ):
            return QueueingHint.Queue
        if (new_obj is not None and not _involved(new_obj, pod)) or (
            old_obj is not None and not _involved(old_obj, pod)
        ):
            return QueueingHint.QueueSkip
        constraints = self.constraints_for(pod, "DoNotSchedule")
        if new_obj is not None and old_obj is not None:
            if (
                new_obj.metadata.uid == pod.metadata.uid
                and new_obj.spec.tolerations != old_obj.spec.tolerations
                and any(c.node_taints_policy == HONOR for c in constraints)
            ):
                return QueueingHint.Queue
            old_labels, new_labels = old_obj.metadata.labels, new_obj.metadata.labels
            if old_labels == new_labels:
                return QueueingHint.QueueSkip
            changed = any(
                c.selector.matches(old_labels) != c.selector.matches(new_labels)
                for c in constraints
            )
            return QueueingHint.Queue if changed else QueueingHint.QueueSkip
        changed_pod = new_obj if new_obj is not None else old_obj
        if changed_pod is not None and pod_labels_match_constraints(
            constraints, changed_pod.metadata.labels
        ):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when a node holding every topology key appears or leaves, gains or loses a
        key, changes a key's value, or (still holding them all) changes its taints."""
        if not (old_obj is None or isinstance(old_obj, Node)) or not (
            new_obj is None or isinstance(new_obj, Node)
        ):
            return QueueingHint.Queue
        constraints = self.constraints_for(pod, "DoNotSchedule")
        old_match = old_obj is not None and node_labels_match_constraints(
            old_obj.metadata.labels, constraints
        )
        new_match = new_obj is not None and node_labels_match_constraints(
            new_obj.metadata.labels, constraints
        )
        if old_obj is not None and new_obj is not None:
            if old_match != new_match:
                return QueueingHint.Queue
            if new_match and (
                _topology_labels_changed(old_obj, new_obj, constraints)
                or old_obj.spec.taints != new_obj.spec.taints
            ):
                return QueueingHint.Queue
            return QueueingHint.QueueSkip
        if new_obj is not None:
            return QueueingHint.Queue if new_match else QueueingHint.QueueSkip
        return QueueingHint.Queue if old_match else QueueingHint.QueueSkip


def _involved(other: Pod, pod: Pod) -> bool:
    """upstream involvedInTopologySpreading: the pod itself, or a scheduled pod of its
    namespace."""
    return other.metadata.uid == pod.metadata.uid or (
        bool(other.spec.node_name)
        and (other.metadata.namespace or "default") == (pod.metadata.namespace or "default")
    )


def _topology_labels_changed(old: Node, new: Node, constraints: Sequence[SpreadConstraint]) -> bool:
    before, after = old.metadata.labels, new.metadata.labels
    return any(before.get(c.topology_key) != after.get(c.topology_key) for c in constraints)


def _pre_filter_state(state: CycleState) -> PreFilterState:
    return read_state(
        state,
        PRE_FILTER_STATE_KEY,
        PreFilterState,
        reading="reading",
        convert=" convert to podtopologyspread.preFilterState error",
    )


def _pre_score_state(state: CycleState) -> PreScoreState:
    return read_state(
        state,
        PRE_SCORE_STATE_KEY,
        PreScoreState,
        reading="error reading",
        convert="  convert to podtopologyspread.preScoreState error",
    )
