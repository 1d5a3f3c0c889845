"""PodTopologySpread's PreFilter counts read from the snapshot's NodeColumns.

`compute_pre_filter_state` walks every node of the cluster once per cycle (upstream
calPreFilterState, in parallel there): whether the node counts toward each constraint's
domains, and how many of its pods match. On the snapshot's own node list the same answers
come from the columns: the topology labels (`domain_ids`), the pod's required node affinity
once per group of nodes alike in the labels it reads, the taint policy once per distinct
taint list, and each node's matching pods counted once per NodeInfo generation (a node
whose pods did not change keeps its count from the cycle before). The domains come out in
the order the walk finds them, so the critical paths are the walk's too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod, find_untolerated_taint
from kubesched.framework import NodeColumns, NodeInfo
from kubesched_builtin.helper import is_do_not_schedule_taint
from kubesched_builtin.helper.arrays import (
    label_keys,
    per_distinct,
    per_label_group,
    pod_required_terms,
    taints_of,
)
from kubesched_builtin.nodeaffinity import required_node_affinity
from kubesched_builtin.podtopologyspread.common import (
    HONOR,
    SpreadConstraint,
    count_pods_matching,
)

__all__ = ["Inclusion", "MatchCounts", "all_keys", "matching_per_row", "pre_filter_counts"]

Bools = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.intp] | npt.NDArray[np.int64]

_MAX_SELECTORS = 32


class MatchCounts:
    """Matching pods per node row, by (selector, namespace), each with the NodeInfo
    generation it was counted on: a generation names one content of one node (a global
    counter; every change takes a new one, a clone keeps it), so a count stays right for as
    long as its row shows the same generation, and only rows whose generation moved are
    counted again."""

    def __init__(self) -> None:
        self._by_selector: dict[tuple[str, str], tuple[Ints, Ints]] = {}

    def counts(
        self,
        constraint: SpreadConstraint,
        namespace: str,
        nodes: Sequence[NodeInfo],
        rows: Ints,
        row_generations: Ints | None = None,
    ) -> Ints:
        """The matching pods of `nodes[r]` for each of `rows`. `row_generations` is each
        node's generation by row (`NodeColumns.generation`), read from the nodes when not
        given."""
        key = (repr(constraint.selector), namespace)
        size = len(nodes)
        known = self._by_selector.pop(key, None)
        if known is None or len(known[0]) != size:
            known = (np.full(size, -1, np.int64), np.zeros(size, np.int64))
        generations, found = known
        if row_generations is None:
            at = rows.tolist()
            now = np.fromiter((nodes[r].generation for r in at), np.int64, len(at))
        else:
            now = row_generations[rows]
        for r in rows[generations[rows] != now].tolist():
            found[r] = count_pods_matching(nodes[r].pods, constraint.selector, namespace)
        generations[rows] = now
        if len(self._by_selector) >= _MAX_SELECTORS:
            del self._by_selector[next(iter(self._by_selector))]
        self._by_selector[key] = known
        out: Ints = found[rows]
        return out


def pre_filter_counts(
    pod: Pod,
    constraints: Sequence[SpreadConstraint],
    nodes: Sequence[NodeInfo],
    columns: NodeColumns,
    memo: MatchCounts,
) -> list[dict[str, int]] | None:
    """Per constraint, the matching pods of every eligible domain, in the order
    `compute_pre_filter_state` finds them, for `nodes` (the rows of `columns`, in order);
    None when the pod's required node affinity reads a field (the walk then answers)."""
    has_keys = all_keys(constraints, columns)
    included = Inclusion.of(pod, constraints, nodes, columns)
    if included is None:
        return None
    namespace = pod.metadata.namespace or "default"
    out: list[dict[str, int]] = []
    for c in constraints:
        at = np.flatnonzero(included.eligible(c, has_keys))
        if not len(at):
            out.append({})
            continue
        per_row = matching_per_row(c, namespace, nodes, columns, at, memo)
        ids = columns.domain_ids(c.topology_key)[at]
        values = columns.domain_values(c.topology_key)
        out.append({values[d]: total for d, total in domain_totals(ids, per_row, len(values))})
    return out


_FEW_DOMAINS = 32


def domain_totals(ids: Ints, per_row: Ints, size: int) -> list[tuple[int, int]]:
    """(domain id, sum of `per_row` over the rows in it) for each domain among `ids`
    (ids in [0, size)), in the order the rows first show them."""
    seen = np.bincount(ids, minlength=size)
    present = np.flatnonzero(seen)
    if len(present) <= _FEW_DOMAINS:
        # a few domains (zones, regions): counted with bincount, each found once by argmax
        totals = np.bincount(ids, weights=per_row, minlength=size)
        firsts = [int(np.argmax(ids == d)) for d in present.tolist()]
        ordered = sorted(zip(firsts, present.tolist(), strict=True))
        return [(d, int(totals[d])) for _, d in ordered]
    distinct, first_at, inverse = np.unique(ids, return_index=True, return_inverse=True)
    sums = np.zeros(len(distinct), np.int64)
    np.add.at(sums, inverse.reshape(-1), per_row)
    order = np.argsort(first_at, kind="stable").tolist()
    return [(int(distinct[k]), int(sums[k])) for k in order]


def all_keys(constraints: Sequence[SpreadConstraint], columns: NodeColumns) -> Bools:
    """Per row: whether the node has a label for every constraint's topology key
    (`node_labels_match_constraints`)."""
    has_keys = np.ones(len(columns), np.bool_)
    for c in constraints:
        has_keys &= columns.domain_ids(c.topology_key) >= 0
    return has_keys


def matching_per_row(
    c: SpreadConstraint,
    namespace: str,
    nodes: Sequence[NodeInfo],
    columns: NodeColumns,
    at: Ints,
    memo: MatchCounts,
) -> Ints:
    """`count_pods_matching` of each of the rows `at` (0 on a row without pods, and
    everywhere for an empty or match-nothing selector, as `count_pods_matching`)."""
    per_row = np.zeros(len(at), np.int64)
    if not (c.selector.is_empty or c.selector.nothing):
        busy = np.flatnonzero(columns.pod_count[at] > 0)
        if len(busy):
            per_row[busy] = memo.counts(c, namespace, nodes, at[busy], columns.generation)
    return per_row


class Inclusion:
    """Per row of the columns, the answers of `SpreadConstraint.match_node_inclusion_policies`
    that do not depend on the constraint: the pod's required node affinity (asked once per
    group of nodes alike in the labels it reads) and its tolerations of the node's
    NoSchedule/NoExecute taints (once per distinct taint list); each None when no
    constraint honours it."""

    __slots__ = ("affinity_ok", "taints_ok")

    def __init__(self, affinity_ok: Bools | None, taints_ok: Bools | None) -> None:
        self.affinity_ok = affinity_ok
        self.taints_ok = taints_ok

    @classmethod
    def of(
        cls,
        pod: Pod,
        constraints: Sequence[SpreadConstraint],
        nodes: Sequence[NodeInfo],
        columns: NodeColumns,
    ) -> Inclusion | None:
        """The answers for every row; None when the pod's required node affinity reads a
        field (matchFields), which no column holds."""
        affinity_ok: Bools | None = None
        if any(c.node_affinity_policy == HONOR for c in constraints):
            keys = label_keys(pod_required_terms(pod))
            if keys is None:
                return None
            required = required_node_affinity(pod)
            rows = np.arange(len(columns), dtype=np.intp)
            first, group = per_label_group(columns, rows, keys | set(pod.spec.node_selector))
            node_of = [nodes[i].node for i in first.tolist()]
            ok = np.array([n is not None and required.matches(n) for n in node_of], np.bool_)
            affinity_ok = ok[group]
        taints_ok: Bools | None = None
        if any(c.node_taints_policy == HONOR for c in constraints):
            tolerations = pod.spec.tolerations

            def tolerated(taint_set: int) -> bool:
                taints = list(taints_of(columns, taint_set))
                return find_untolerated_taint(taints, tolerations, is_do_not_schedule_taint) is None

            taints_ok = per_distinct(columns.taint_set, tolerated, np.bool_)  # type: ignore[assignment]
        return cls(affinity_ok, taints_ok)

    def eligible(self, c: SpreadConstraint, base: Bools) -> Bools:
        """A copy of `base`, cleared where the node fails `c`'s inclusion policies."""
        eligible = base.copy()
        if c.node_affinity_policy == HONOR and self.affinity_ok is not None:
            eligible &= self.affinity_ok
        if c.node_taints_policy == HONOR and self.taints_ok is not None:
            eligible &= self.taints_ok
        return eligible
