"""PreFilter state and the Filter rule for DoNotSchedule constraints.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/filtering.go. PreFilter counts,
per constraint, the matching pods in every topology domain of the eligible nodes; Filter then
allows a node when `count(domain) + selfMatch - globalMin <= maxSkew` for every constraint.
AddPod/RemovePod keep the counts right for nominated pods and preemption dry runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np

from kubesched.api import Node, Pod
from kubesched.framework import NodeColumns, NodeInfo, RowMask, Rows, Status
from kubesched_builtin.nodeaffinity import required_node_affinity
from kubesched_builtin.podtopologyspread.common import (
    SpreadConstraint,
    count_pods_matching,
    node_labels_match_constraints,
)

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "CriticalPaths",
    "PreFilterState",
    "compute_pre_filter_state",
    "filter_mask",
    "filter_node",
    "filter_nodes",
]

ERR_REASON_CONSTRAINTS_NOT_MATCH: Final = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH: Final = (
    ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
)

_MAX_INT32: Final = 2**31 - 1


class CriticalPaths:
    """The two domains with the fewest matching pods seen so far for one constraint.

    `paths[0]` always holds the global minimum; `paths[1]` is at least as large but not
    necessarily the second minimum. Two entries suffice because a preemption dry run only
    removes pods from one node of one (cloned) state at a time."""

    __slots__ = ("paths",)

    def __init__(self) -> None:
        self.paths: list[tuple[str, int]] = [("", _MAX_INT32), ("", _MAX_INT32)]

    @property
    def min_match_num(self) -> int:
        return self.paths[0][1]

    def update(self, value: str, num: int) -> None:
        (first, first_num), (second, second_num) = self.paths
        if value in (first, second):
            self.paths[0 if value == first else 1] = (value, num)
            if self.paths[0][1] > self.paths[1][1]:
                self.paths.reverse()
        elif num < first_num:
            self.paths = [(value, num), (first, first_num)]
        elif num < second_num:
            self.paths[1] = (value, num)

    def clone(self) -> CriticalPaths:
        c = CriticalPaths()
        c.paths = list(self.paths)
        return c

    def __repr__(self) -> str:
        return f"CriticalPaths{tuple(self.paths)}"


class PreFilterState:
    """What PreFilter computed for one pod: its DoNotSchedule constraints, per constraint the
    matching-pod count of every eligible domain, and the critical paths."""

    __slots__ = ("constraints", "critical_paths", "tp_value_to_match_num")

    def __init__(
        self,
        constraints: Sequence[SpreadConstraint] = (),
        critical_paths: list[CriticalPaths] | None = None,
        tp_value_to_match_num: list[dict[str, int]] | None = None,
    ) -> None:
        self.constraints = tuple(constraints)
        self.critical_paths = critical_paths or []
        self.tp_value_to_match_num = tp_value_to_match_num or []

    def min_match_num(self, i: int) -> int:
        """The global minimum for constraint `i`: 0 while it has fewer eligible domains
        than minDomains."""
        if len(self.tp_value_to_match_num[i]) < self.constraints[i].min_domains:
            return 0
        return self.critical_paths[i].min_match_num

    def clone(self) -> PreFilterState:
        # constraints never change after PreFilter and are shared
        return PreFilterState(
            self.constraints,
            [p.clone() for p in self.critical_paths],
            [dict(m) for m in self.tp_value_to_match_num],
        )

    def update_with_pod(self, updated: Pod, preemptor: Pod, node: Node | None, delta: int) -> None:
        """Count `updated` in (delta 1) or out (delta -1) of the node's domains
        (upstream updateWithPod)."""
        if node is None or (updated.metadata.namespace or "default") != (
            preemptor.metadata.namespace or "default"
        ):
            return
        labels = node.metadata.labels
        if not node_labels_match_constraints(labels, self.constraints):
            return
        required = required_node_affinity(preemptor)
        for i, c in enumerate(self.constraints):
            if not c.selector.matches(updated.metadata.labels):
                continue
            if not c.match_node_inclusion_policies(preemptor, node, required):
                continue
            value = labels[c.topology_key]
            counts = self.tp_value_to_match_num[i]
            counts[value] = counts.get(value, 0) + delta
            self.critical_paths[i].update(value, counts[value])


def compute_pre_filter_state(
    pod: Pod,
    constraints: Sequence[SpreadConstraint],
    nodes: Sequence[NodeInfo],
    counted: list[dict[str, int]] | None = None,
) -> PreFilterState:
    """Count matching pods per eligible domain over `nodes` (upstream calPreFilterState).

    A node is eligible for a constraint when it has every constraint's topology key and
    passes that constraint's node inclusion policies. `counted`, when given, holds those
    counts already (`columns.pre_filter_counts`, the same walk on the snapshot's columns)."""
    if not constraints:
        return PreFilterState()
    counts = counted if counted is not None else _walk(pod, constraints, nodes)
    paths = []
    for per_value in counts:
        p = CriticalPaths()
        for value, num in per_value.items():
            p.update(value, num)
        paths.append(p)
    return PreFilterState(constraints, paths, counts)


def _walk(
    pod: Pod, constraints: Sequence[SpreadConstraint], nodes: Sequence[NodeInfo]
) -> list[dict[str, int]]:
    namespace = pod.metadata.namespace or "default"
    required = required_node_affinity(pod)
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for info in nodes:
        node = info.node
        if node is None:
            continue
        labels = node.metadata.labels
        if not node_labels_match_constraints(labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if not c.match_node_inclusion_policies(pod, node, required):
                continue
            value = labels[c.topology_key]
            found = count_pods_matching(info.pods, c.selector, namespace)
            counts[i][value] = counts[i].get(value, 0) + found
    return counts


_Limit = tuple[str, dict[str, int], int]


def _limits(state: PreFilterState, pod: Pod) -> list[_Limit]:
    """Per DoNotSchedule constraint: its topology key, the matching pods per domain, and
    the most a domain may hold for the pod to pass, `maxSkew + globalMin - selfMatch`
    (upstream's `matchNum + selfMatchNum - minMatchNum > maxSkew`, rearranged)."""
    pod_labels = pod.metadata.labels
    return [
        (
            c.topology_key,
            state.tp_value_to_match_num[i],
            c.max_skew + state.min_match_num(i) - (1 if c.selector.matches(pod_labels) else 0),
        )
        for i, c in enumerate(state.constraints)
    ]


def _check(labels: Mapping[str, str], limits: Sequence[_Limit]) -> Status | None:
    for key, counts, limit in limits:
        value = labels.get(key)
        if value is None:
            return Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
        if counts.get(value, 0) > limit:
            return Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
    return None


def filter_node(state: PreFilterState, pod: Pod, node: Node) -> Status | None:
    """Filter one node against the DoNotSchedule constraints."""
    return _check(node.metadata.labels, _limits(state, pod))


def filter_nodes(state: PreFilterState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[Status | None]:
    """`filter_node` of each node (an Error for a node info without its node), with what
    does not depend on the node (the pod's self match, each constraint's global minimum)
    worked out once."""
    limits = _limits(state, pod)
    return [
        Status.as_error("node not found")
        if info.node is None
        else _check(info.node.metadata.labels, limits)
        for info in nodes
    ]


def filter_mask(state: PreFilterState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
    """`filter_node` of each row passed or not, from the topology labels' `domain_ids`: a
    row passes when it has every constraint's key and its domain holds at most the
    constraint's limit. Each distinct domain among the rows is looked up once."""
    mask: RowMask = np.ones(len(rows), np.bool_)
    for key, counts, limit in _limits(state, pod):
        ids = columns.domain_ids(key)[rows]
        mask &= ids >= 0
        if limit >= 0 and (not counts or max(counts.values()) <= limit):
            continue  # every domain is within the limit (an unseen one holds 0)
        distinct, inverse = np.unique(ids, return_inverse=True)
        values = columns.domain_values(key)
        within = np.array(
            [i < 0 or counts.get(values[i], 0) <= limit for i in distinct.tolist()], np.bool_
        )
        mask &= within[inverse.reshape(-1)]
    return mask
