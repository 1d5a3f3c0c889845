"""NodeAffinity: the pod's nodeSelector and node affinity, plus the profile's added affinity.

Upstream: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (v1.34).

- PreFilter is skipped for a pod with no nodeSelector, no required node affinity and no added
  affinity. When every required term names nodes through `matchFields metadata.name In`,
  it narrows the cycle to those nodes (intersected within a term, united across terms); an
  empty union is UnschedulableAndUnresolvable `pod affinity terms conflict`.
- Filter rejects (UnschedulableAndUnresolvable) nodes the added affinity or the pod's own
  constraints exclude.
- Score sums the weights of the matching preferred terms (pod's and added), normalized so
  the best node gets 100; PreScore is skipped when there are no preferred terms at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import numpy as np

from kubesched.api import Node, Pod
from kubesched.api.field import aggregate
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
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueingHint,
    RowMask,
    Rows,
    RowScores,
    ScorePlugin,
    StateData,
    Status,
)
from kubesched_builtin.helper import default_normalize_score
from kubesched_builtin.helper.arrays import label_keys, per_label_group, pod_required_terms
from kubesched_builtin.helper.normalize_score import default_normalize_array
from kubesched_builtin.names import NODE_AFFINITY
from kubesched_builtin.nodeaffinity.args import NodeAffinityArgs
from kubesched_builtin.nodeaffinity.selector import (
    OBJECT_NAME_FIELD,
    NodeSelectorMatcher,
    PreferredTerms,
    RequiredNodeAffinity,
    required_node_affinity,
)

__all__ = [
    "ERR_REASON_CONFLICT",
    "ERR_REASON_ENFORCED",
    "ERR_REASON_POD",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "NodeAffinity",
]

PRE_FILTER_STATE_KEY: Final = "PreFilter" + NODE_AFFINITY
PRE_SCORE_STATE_KEY: Final = "PreScore" + NODE_AFFINITY

ERR_REASON_POD: Final = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED: Final = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT: Final = "pod affinity terms conflict"


@dataclass(frozen=True)
class PreFilterState:
    """The pod's parsed required constraints; not affected by other pods."""

    required: RequiredNodeAffinity

    def clone(self) -> StateData:
        return self


@dataclass(frozen=True)
class PreScoreState:
    """The pod's parsed preferred terms (None: it has none)."""

    preferred: PreferredTerms | None

    def clone(self) -> StateData:
        return self


def _pod_preferred_terms(pod: Pod) -> PreferredTerms | None:
    """The pod's preferred node affinity, parsed; raises ValueError when a term does not
    parse (upstream getPodPreferredNodeAffinity)."""
    affinity = pod.spec.affinity
    if affinity is None or affinity.node_affinity is None:
        return None
    preferred = affinity.node_affinity.preferred_during_scheduling_ignored_during_execution
    if not preferred:
        return None
    terms = PreferredTerms.parse(preferred)
    if terms.errors:
        raise ValueError(aggregate(terms.errors))
    return terms


def _names_from_match_fields(pod: Pod) -> set[str] | None:
    """The node names the required terms allow, or None when some term allows any node."""
    affinity = pod.spec.affinity
    if affinity is None or affinity.node_affinity is None:
        return None
    required = affinity.node_affinity.required_during_scheduling_ignored_during_execution
    if required is None or not required.node_selector_terms:
        return None
    names: set[str] = set()
    for term in required.node_selector_terms:
        term_names: set[str] | None = None
        for req in term.match_fields:
            if req.key == OBJECT_NAME_FIELD and req.operator == "In":
                # requirements of a term are ANDed: intersect
                values = set(req.values)
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None  # terms are ORed, and this one does not name nodes
        names |= term_names
    return names


def _required(state: CycleState, pod: Pod) -> RequiredNodeAffinity:
    """PreFilter's parsed constraints; parsed here when PreFilter did not run (e.g.
    disabled), as upstream's Filter does."""
    data = state.get(PRE_FILTER_STATE_KEY)
    if isinstance(data, PreFilterState):
        return data.required
    return required_node_affinity(pod)


class NodeAffinity(
    PreFilterPlugin[NodeAffinityArgs],
    FilterPlugin[NodeAffinityArgs],
    PreScorePlugin[NodeAffinityArgs],
    ScorePlugin[NodeAffinityArgs],
    EnqueueExtensions,
):
    """Filters nodes by the pod's (and the profile's) node constraints and scores them by
    preferred node affinity."""

    name: ClassVar[str] = NODE_AFFINITY
    filter_mask_exact: ClassVar[bool] = True
    """`filter_mask` rejects only what `filter` rejects (see `mask_is_exact`)."""

    def __init__(self, args: NodeAffinityArgs, handle: Handle) -> None:
        super().__init__(args, handle)
        self.added_node_selector: NodeSelectorMatcher | None = None
        self.added_preferred_terms: PreferredTerms | None = None
        added = args.added_affinity
        if added is not None:
            required = added.required_during_scheduling_ignored_during_execution
            if required is not None:
                self.added_node_selector = NodeSelectorMatcher.parse(required)
            preferred = added.preferred_during_scheduling_ignored_during_execution
            if preferred:
                self.added_preferred_terms = PreferredTerms.parse(preferred)

    # -- PreFilter / Filter --------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        affinity = pod.spec.affinity
        has_required = (
            affinity is not None
            and affinity.node_affinity is not None
            and affinity.node_affinity.required_during_scheduling_ignored_during_execution
            is not None
        )
        if not has_required and self.added_node_selector is None and not pod.spec.node_selector:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(required_node_affinity(pod)))
        names = _names_from_match_fields(pod)
        if names is None:
            return None, None
        if not names:
            return None, Status.unresolvable(ERR_REASON_CONFLICT)
        return PreFilterResult.of(names), None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return self._filter(node_info, _required(state, pod))

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Filter of each node in one call (BatchFilterPlugin): PreFilter's state is read
        (or the pod's constraints parsed) once."""
        required = _required(state, pod)
        return [self._filter(info, required) for info in nodes]

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        """Filter on the snapshot's columns (ArrayFilterPlugin): nodes alike in every
        label the pod's and the profile's required terms and nodeSelector read answer
        alike, so `filter` runs on one node per group. Raises (so `filter` answers node by
        node) when a term reads a field."""
        keys = self._required_keys(pod)
        if keys is None:
            raise LookupError("matchFields")
        if not len(rows):
            return np.zeros(0, np.bool_)
        required = _required(state, pod)
        infos = self.handle.snapshot.node_info_list
        first, group = per_label_group(columns, rows, keys)
        ok = np.array(
            [self._filter(infos[rows[i]], required) is None for i in first.tolist()], np.bool_
        )
        mask: RowMask = ok[group]
        return mask

    def _required_keys(self, pod: Pod) -> set[str] | None:
        terms = pod_required_terms(pod)
        added = self.args.added_affinity
        if added is not None:
            required = added.required_during_scheduling_ignored_during_execution
            if required is not None:
                terms += required.node_selector_terms
        keys = label_keys(terms)
        return None if keys is None else keys | set(pod.spec.node_selector)

    def _filter(self, node_info: NodeInfo, required: RequiredNodeAffinity) -> Status | None:
        node = node_info.node
        if node is None:
            return Status.as_error("node not found")
        if self.added_node_selector is not None and not self.added_node_selector.matches(node):
            return Status.unresolvable(ERR_REASON_ENFORCED)
        if not required.matches(node):  # parse errors ignored, as upstream
            return Status.unresolvable(ERR_REASON_POD)
        return None

    # -- PreScore / Score ----------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        try:
            preferred = _pod_preferred_terms(pod)
        except ValueError as exc:
            return Status.as_error(str(exc))
        if preferred is None and self.added_preferred_terms is None:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(preferred))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        node = node_info.node
        if node is None:
            return 0, Status.as_error("node not found")
        count = 0
        if self.added_preferred_terms is not None:
            count += self.added_preferred_terms.score(node)
        data = state.get(PRE_SCORE_STATE_KEY)
        if isinstance(data, PreScoreState):
            preferred = data.preferred
        else:  # upstream: computed here when PreScore did not run
            try:
                preferred = _pod_preferred_terms(pod)
            except ValueError as exc:
                return 0, Status.as_error(str(exc))
        if preferred is not None:
            count += preferred.score(node)
        return count, None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """Score of every node in one call (BatchScorePlugin): the preferred terms are
        read (or parsed) once, then matched node by node."""
        added = self.added_preferred_terms
        data = state.get(PRE_SCORE_STATE_KEY)
        known = isinstance(data, PreScoreState)
        preferred = data.preferred if isinstance(data, PreScoreState) else None
        counts: list[int] = []
        for info in nodes:
            node = info.node
            if node is None:
                return [], Status.as_error("node not found")
            if not known:  # as `score` does on its first node without PreScore
                try:
                    preferred = _pod_preferred_terms(pod)
                except ValueError as exc:
                    return [], Status.as_error(str(exc))
                known = True
            count = added.score(node) if added is not None else 0
            if preferred is not None:
                count += preferred.score(node)
            counts.append(count)
        return counts, None

    def score_array(
        self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> tuple[RowScores, Status | None]:
        """Score on the snapshot's columns (ArrayScorePlugin): one node scored per group
        of nodes alike in the labels the preferred terms read. Raises (so `score` answers
        node by node) without PreScore's state or when a term reads a field."""
        data = state.get(PRE_SCORE_STATE_KEY)
        if not isinstance(data, PreScoreState):
            raise LookupError(PRE_SCORE_STATE_KEY)
        affinity = pod.spec.affinity
        sources = [self.args.added_affinity, affinity.node_affinity if affinity else None]
        terms = [
            entry.preference
            for source in sources
            if source is not None
            for entry in source.preferred_during_scheduling_ignored_during_execution
        ]
        keys = label_keys(terms)
        if keys is None:
            raise LookupError("matchFields")
        if not len(rows):
            return np.zeros(0, np.int64), None
        infos = self.handle.snapshot.node_info_list
        first, group = per_label_group(columns, rows, keys)
        counts, status = self.score_nodes(state, pod, [infos[rows[i]] for i in first.tolist()])
        if status is not None:
            return np.zeros(0, np.int64), status
        scores: RowScores = np.array(counts, np.int64)[group]
        return scores, None

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        default_normalize_score(scores, reverse=False)
        return None

    def normalize_score_array(
        self, state: CycleState, pod: Pod, scores: RowScores
    ) -> tuple[RowScores, Status | None]:
        """NormalizeScore on the array (ArrayNormalizeScorePlugin)."""
        return default_normalize_array(scores, reverse=False), None

    # -- EnqueueExtensions ---------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        # upstream with queueing hints on: only a node that appears or changes labels can
        # start to match (a pod's selector and affinity are immutable)
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.Node, ActionType.Add | ActionType.UpdateNodeLabel),
                self.is_schedulable_after_node_change,
            )
        ]

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when a new node matches the pod (and the added affinity), or an updated node
        went from not matching the pod's required constraints to matching them."""
        if not isinstance(new_obj, Node) or not (old_obj is None or isinstance(old_obj, Node)):
            return QueueingHint.Queue
        if self.added_node_selector is not None and not self.added_node_selector.matches(new_obj):
            return QueueingHint.QueueSkip
        required = required_node_affinity(pod)
        matched, error = required.match(new_obj)
        if error:
            return QueueingHint.Queue  # upstream returns (Queue, err)
        if not matched:
            return QueueingHint.QueueSkip
        if old_obj is None:
            return QueueingHint.Queue
        was_matched, error = required.match(old_obj)
        if error:
            return QueueingHint.Queue
        return QueueingHint.QueueSkip if was_matched else QueueingHint.Queue
