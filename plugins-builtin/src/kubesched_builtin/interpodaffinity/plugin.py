"""InterPodAffinity: pod affinity and anti-affinity, required (Filter) and preferred (Score).

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/plugin.go. Required affinity the
node cannot meet is UnschedulableAndUnresolvable (removing pods never creates a matching
pod); anti-affinity, the pod's own or an existing pod's, is Unschedulable, since preemption
may remove the pods in the way. PreFilter returns Skip when nothing could reject the pod;
PreScore returns Skip when no term matched anything.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from kubesched.api import Namespace, Pod
from kubesched.framework import (
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
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
    RowMask,
    Rows,
    RowScores,
    ScorePlugin,
    Snapshot,
    Status,
)
from kubesched_builtin.helper.state import read_state
from kubesched_builtin.interpodaffinity import arrays, events
from kubesched_builtin.interpodaffinity.args import InterPodAffinityArgs
from kubesched_builtin.interpodaffinity.domains import Domains
from kubesched_builtin.interpodaffinity.filtering import (
    EXISTING_ANTI_AFFINITY,
    PreFilterState,
    filter_node,
    filter_nodes,
)
from kubesched_builtin.interpodaffinity.podindex import (
    PodIndex,
    existing_anti_affinity_counts,
    existing_anti_affinity_hits,
    incoming_affinity_counts,
    incoming_affinity_hits,
    score_hits,
    topology_scores,
)
from kubesched_builtin.interpodaffinity.rows import RowTallies, to_scores
from kubesched_builtin.interpodaffinity.scoring import PreScoreState, node_score, normalize
from kubesched_builtin.interpodaffinity.terms import (
    AffinityTerm,
    TermCache,
    WeightedAffinityTerm,
    merge_namespaces,
    pod_namespace,
)
from kubesched_builtin.names import INTER_POD_AFFINITY

__all__ = ["PRE_FILTER_STATE_KEY", "PRE_SCORE_STATE_KEY", "InterPodAffinity"]

PRE_FILTER_STATE_KEY: Final = "PreFilter" + INTER_POD_AFFINITY
PRE_SCORE_STATE_KEY: Final = "PreScore" + INTER_POD_AFFINITY


class _Namespaces:
    """The cluster's Namespace objects, listed at most once per PreFilter/PreScore."""

    def __init__(self, cluster: Any) -> None:
        self._cluster = cluster
        self._items: builtins.list[Namespace] | None = None

    def list(self) -> builtins.list[Namespace]:
        if self._items is None:
            self._items = [n for n in self._cluster.list("Namespace") if isinstance(n, Namespace)]
        return self._items


def _resolve(
    terms: Sequence[WeightedAffinityTerm], namespaces: _Namespaces
) -> tuple[WeightedAffinityTerm, ...]:
    """The incoming pod's preferred terms with their namespace selectors resolved."""
    return tuple(
        WeightedAffinityTerm(merge_namespaces(t.term, namespaces.list), t.weight) for t in terms
    )


def _namespace_labels(cluster: Any, name: str) -> Mapping[str, str]:
    """A copy of the namespace's labels; none when it cannot be read (upstream
    GetNamespaceLabelsSnapshot assumes an empty set then)."""
    try:
        namespace = cluster.get("Namespace", name)
    except Exception:
        return {}
    return dict(namespace.metadata.labels) if isinstance(namespace, Namespace) else {}


class InterPodAffinity(
    PreFilterPlugin[InterPodAffinityArgs],
    FilterPlugin[InterPodAffinityArgs],
    PreScorePlugin[InterPodAffinityArgs],
    ScorePlugin[InterPodAffinityArgs],
    EnqueueExtensions,
):
    """Keeps pods with (or away from) the pods their terms select, in a topology domain."""

    name: ClassVar[str] = INTER_POD_AFFINITY

    def __init__(self, args: InterPodAffinityArgs, handle: Handle) -> None:
        super().__init__(args, handle)
        self.terms = TermCache()
        self.index = PodIndex(self.terms)
        """Each node's pods grouped by labels and by terms (PreFilter and PreScore match a
        group once)."""
        self.tallies = RowTallies()
        """What each node row added to PreFilter's counts and PreScore's scores, per query,
        kept while the row's generation holds."""
        self.use_columns = handle.fast_path
        """Whether PreFilter and PreScore count on the snapshot's columns (the fast path)
        when given the snapshot's own node list; the scheduler's fast path off keeps the
        walks."""

    # -- PreFilter ------------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        terms = self.terms.terms(pod)
        if terms.error is not None:
            return None, Status.unresolvable(f"parsing pod: {terms.error}")
        namespaces = _Namespaces(self.handle.cluster)
        try:
            affinity = tuple(merge_namespaces(t, namespaces.list) for t in terms.required_affinity)
            anti_affinity = tuple(
                merge_namespaces(t, namespaces.list) for t in terms.required_anti_affinity
            )
        except Exception as exc:
            return None, Status.as_error(exc)
        snapshot = self.handle.snapshot
        if (
            not affinity
            and not anti_affinity
            and not snapshot.have_pods_with_required_anti_affinity
        ):
            # no term of the pod's and no node with pods whose anti-affinity could count:
            # every count is empty, upstream's Skip (the namespace's labels only count)
            return None, Status.skip()
        namespace_labels = _namespace_labels(self.handle.cluster, pod_namespace(pod))
        if self.use_columns and nodes and nodes is snapshot.node_info_list:
            domains = self._count_on_columns(
                pod, namespace_labels, affinity, anti_affinity, nodes, snapshot.columns
            )
            s = PreFilterState(pod, affinity, anti_affinity, namespace_labels, domains=domains)
        else:
            s = PreFilterState(
                pod,
                affinity,
                anti_affinity,
                namespace_labels,
                existing_anti_affinity_counts(
                    self.index,
                    pod,
                    namespace_labels,
                    snapshot.have_pods_with_required_anti_affinity,
                ),
                *incoming_affinity_counts(self.index, affinity, anti_affinity, nodes),
            )
        if not s.has_counts(EXISTING_ANTI_AFFINITY) and not affinity and not anti_affinity:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def _count_on_columns(
        self,
        pod: Pod,
        namespace_labels: Mapping[str, str],
        affinity: tuple[AffinityTerm, ...],
        anti_affinity: tuple[AffinityTerm, ...],
        nodes: Sequence[NodeInfo],
        columns: NodeColumns,
    ) -> Domains:
        """PreFilter's three counts per domain, from the rows' tallies (`rows.RowTallies`):
        the same pairs and numbers the walks give."""
        existing, _ = self.tallies.totals(
            ("existing", pod_namespace(pod), _items(pod.metadata.labels), _items(namespace_labels)),
            existing_anti_affinity_hits(pod, namespace_labels),
            self.index,
            nodes,
            columns,
            columns.with_required_anti_affinity,
        )
        totals = {(EXISTING_ANTI_AFFINITY, key): t for (_, key), t in existing.items()}
        if affinity or anti_affinity:
            # hits of count 0 are affinity ones, of count 1 anti-affinity ones
            incoming, _ = self.tallies.totals(
                ("incoming", affinity, anti_affinity),
                incoming_affinity_hits(affinity, anti_affinity),
                self.index,
                nodes,
                columns,
                columns.pod_count > 0,
            )
            totals.update(incoming)
        return Domains(columns, totals)

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return self

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self._update(state, pod_info_to_add, node_info, 1)

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        return self._update(state, pod_info_to_remove, node_info, -1)

    def _update(
        self, state: CycleState, pod_info: PodInfo, node_info: NodeInfo, multiplier: int
    ) -> Status | None:
        try:
            s = _pre_filter_state(state)
        except RuntimeError as exc:
            return Status.as_error(exc)
        if node_info.node is not None:
            s.update_with_pod(
                self.terms.terms(pod_info.pod), pod_info.pod, node_info.node, multiplier
            )
        return None

    # -- Filter ---------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            s = _pre_filter_state(state)
        except RuntimeError as exc:
            return Status.as_error(exc)
        return filter_node(s, node_info)

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Filter of each node in one call (BatchFilterPlugin): PreFilter's state is read
        once."""
        try:
            s = _pre_filter_state(state)
        except RuntimeError:
            return [self.filter(state, pod, info) for info in nodes]
        if s.domains is not None:
            # the snapshot's own nodes: the rules on their rows, no dicts made
            rows = s.domains.columns.positions(nodes)
            if rows is not None:
                return arrays.filter_statuses(s, s.domains.columns, rows)
        return filter_nodes(s, nodes)

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        """Filter on the snapshot's columns (ArrayFilterPlugin): each rule on every row,
        from the per-domain counts PreFilter kept."""
        return arrays.filter_mask(_pre_filter_state(state), columns, rows)

    # -- PreScore / Score -----------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        affinity = pod.spec.affinity
        has_constraints = affinity is not None and bool(
            (
                affinity.pod_affinity is not None
                and affinity.pod_affinity.preferred_during_scheduling_ignored_during_execution
            )
            or (
                affinity.pod_anti_affinity is not None
                and affinity.pod_anti_affinity.preferred_during_scheduling_ignored_during_execution
            )
        )
        if self.args.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status.skip()
        snapshot = self.handle.snapshot
        # unless the pod has preferred terms, only pods with terms of their own can score
        all_nodes = snapshot.list() if has_constraints else snapshot.have_pods_with_affinity
        terms = self.terms.terms(pod)
        if terms.error is not None:
            return Status.as_error(f"failed to parse pod: {terms.error}")
        namespaces = _Namespaces(self.handle.cluster)
        try:
            preferred = _resolve(terms.preferred_affinity, namespaces)
        except Exception as exc:
            return Status.as_error(f"updating PreferredAffinityTerms: {exc}")
        try:
            preferred_anti = _resolve(terms.preferred_anti_affinity, namespaces)
        except Exception as exc:
            return Status.as_error(f"updating PreferredAntiAffinityTerms: {exc}")
        if not all_nodes:
            # no node to process (no pod with terms anywhere): no topology score, Skip
            return Status.skip()
        s = PreScoreState(
            preferred,
            preferred_anti,
            _namespace_labels(self.handle.cluster, pod_namespace(pod)),
            self.args.hard_pod_affinity_weight,
        )
        if self.use_columns and snapshot.node_info_list:
            # every node of the snapshot: rows without pods that could match add nothing
            self._score_on_columns(s, pod, has_constraints, snapshot)
        else:
            s.topology_scores = topology_scores(
                self.index,
                pod,
                preferred,
                preferred_anti,
                s.namespace_labels,
                s.hard_pod_affinity_weight,
                all_nodes,
                all_pods=has_constraints,
            )
        if not s.topology_scores:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def _score_on_columns(
        self, s: PreScoreState, pod: Pod, has_constraints: bool, snapshot: Snapshot
    ) -> None:
        """PreScore's topology scores from the rows' tallies (`rows.RowTallies`): the same
        entries the walk gives, plus the per-domain sums Score's array reads."""
        columns = snapshot.columns
        incoming_terms = has_constraints and bool(s.preferred_affinity or s.preferred_anti_affinity)
        sums, hits = self.tallies.totals(
            (
                "score",
                pod_namespace(pod),
                _items(pod.metadata.labels),
                _items(s.namespace_labels),
                s.preferred_affinity if incoming_terms else (),
                s.preferred_anti_affinity if incoming_terms else (),
                s.hard_pod_affinity_weight,
            ),
            score_hits(
                pod,
                s.preferred_affinity,
                s.preferred_anti_affinity,
                s.namespace_labels,
                s.hard_pod_affinity_weight,
                all_pods=has_constraints,
            ),
            self.index,
            snapshot.node_info_list,
            columns,
            columns.pod_count > 0 if incoming_terms else columns.with_affinity,
            count_hits=True,
        )
        s.topology_scores = to_scores(columns, sums, hits)
        s.domains = Domains(columns, sums)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        try:
            s = _pre_score_state(state)
        except RuntimeError as exc:
            return 0, Status.as_error(exc)
        if node_info.node is None:
            return 0, Status.as_error("node not found")
        return node_score(s.topology_scores, node_info.node), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[builtins.list[int], Status | None]:
        """Score of every node in one call (BatchScorePlugin): PreScore's state is read
        once; without topology scores every node scores 0."""
        if not nodes:
            return [], None
        try:
            s = _pre_score_state(state)
        except RuntimeError as exc:
            return [], Status.as_error(exc)
        scores: builtins.list[int] = []
        for info in nodes:
            if info.node is None:
                return [], Status.as_error("node not found")
            scores.append(node_score(s.topology_scores, info.node) if s.topology_scores else 0)
        return scores, None

    def score_array(
        self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> tuple[RowScores, Status | None]:
        """Score of each row (ArrayScorePlugin) from the per-domain sums PreScore kept."""
        return arrays.score_array(_pre_score_state(state), columns, rows), None

    def normalize_score_array(
        self, state: CycleState, pod: Pod, scores: RowScores
    ) -> tuple[RowScores, Status | None]:
        """NormalizeScore on the array (ArrayNormalizeScorePlugin)."""
        return arrays.normalize_array(_pre_score_state(state), scores), None

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: builtins.list[NodeScore]
    ) -> Status | None:
        try:
            s = _pre_score_state(state)
        except RuntimeError as exc:
            return Status.as_error(exc)
        if s.topology_scores:
            normalize(scores)
        return None

    # -- EnqueueExtensions ----------------------------------------------------------------
    def events_to_register(self) -> builtins.list[ClusterEventWithHint]:
        return events.events_to_register(self.terms)


def _items(labels: Mapping[str, str]) -> frozenset[tuple[str, str]]:
    return frozenset(labels.items())


def _pre_filter_state(state: CycleState) -> PreFilterState:
    # PreFilter did not run (or returned Skip) when the key is missing
    return read_state(
        state,
        PRE_FILTER_STATE_KEY,
        PreFilterState,
        reading="error reading",
        convert="  convert to interpodaffinity.state error",
    )


def _pre_score_state(state: CycleState) -> PreScoreState:
    return read_state(
        state,
        PRE_SCORE_STATE_KEY,
        PreScoreState,
        reading="failed to read",
        convert="  convert to interpodaffinity.preScoreState error",
    )
