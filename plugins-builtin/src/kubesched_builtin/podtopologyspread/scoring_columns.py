"""PodTopologySpread's PreScore, Score and NormalizeScore on the snapshot's NodeColumns.

The same answers as `scoring.compute_pre_score_state`, `scoring.score_node` and
`scoring.normalize_scores` (upstream scoring.go), read from the columns: the topology labels
(`domain_ids`), the inclusion policies once per group of alike nodes (`columns.Inclusion`),
each node's matching pods once per NodeInfo generation (`columns.MatchCounts`). Scores are
summed in float64 with the per-node form's operations in its order, so they are equal bit
for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.framework import MAX_NODE_SCORE, NodeColumns, NodeInfo
from kubesched_builtin.podtopologyspread.columns import (
    Inclusion,
    MatchCounts,
    all_keys,
    matching_per_row,
)
from kubesched_builtin.podtopologyspread.common import LABEL_HOSTNAME, SpreadConstraint
from kubesched_builtin.podtopologyspread.scoring import PreScoreState, topology_normalizing_weight

__all__ = ["normalize_score_array", "pre_score_from_columns", "score_array"]

Bools = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.int64]
Rows = npt.NDArray[np.intp]


def pre_score_from_columns(
    pod: Pod,
    constraints: Sequence[SpreadConstraint],
    feasible: Rows,
    nodes: Sequence[NodeInfo],
    columns: NodeColumns,
    memo: MatchCounts,
    require_all_topologies: bool,
) -> PreScoreState | None:
    """`compute_pre_score_state` for the feasible nodes at rows `feasible` of `columns`,
    whose rows are `nodes` (every node of the cluster); None when the pod's required node
    affinity reads a field (the walk then answers)."""
    included = Inclusion.of(pod, constraints, nodes, columns)
    if included is None:
        return None
    state = PreScoreState(constraints)
    has_keys = all_keys(constraints, columns)
    scored = feasible
    if require_all_topologies:
        lacking = ~has_keys[feasible]
        if lacking.any():
            names = columns.names
            state.ignored_nodes.update(names[r] for r in feasible[lacking].tolist())
            scored = feasible[~lacking]
    # the walk reads a missing label as "" (a Go map's zero value): id -1 joins the "" domain
    eligible_base = has_keys if require_all_topologies else np.ones(len(columns), np.bool_)
    namespace = pod.metadata.namespace or "default"
    counts: list[dict[str, int]] = []
    weights: list[float] = []
    for c in constraints:
        if c.topology_key == LABEL_HOSTNAME:  # per-node counts are taken in Score
            counts.append({})
            weights.append(topology_normalizing_weight(len(feasible) - len(state.ignored_nodes)))
            continue
        domains, slot_of_id = _domains_of(columns, c.topology_key, scored)
        weights.append(topology_normalizing_weight(len(domains)))
        totals = np.zeros(len(domains), np.int64)
        if domains:
            at = np.flatnonzero(included.eligible(c, eligible_base))
            slots = slot_of_id[columns.domain_ids(c.topology_key)[at] + 1]
            counted = slots >= 0
            at, slots = at[counted], slots[counted]
            if len(at):
                per_row = matching_per_row(c, namespace, nodes, columns, at, memo)
                np.add.at(totals, slots, per_row)
        counts.append(dict(zip(domains, totals.tolist(), strict=True)))
    state.topology_value_to_pod_counts = counts
    state.topology_normalizing_weight = weights
    return state


def _domains_of(columns: NodeColumns, key: str, rows: Rows) -> tuple[list[str], Ints]:
    """The distinct values of label `key` on `rows` ("" for a missing label), in order of
    first appearance, and per domain id + 1 (0 for a missing label) its position in that
    list, -1 for values not among them."""
    values = columns.domain_values(key)
    slot_of_id = np.full(len(values) + 1, -1, np.int64)
    if not len(rows):
        return [], slot_of_id
    distinct, first_at = np.unique(columns.domain_ids(key)[rows], return_index=True)
    domains: list[str] = []
    slot: dict[str, int] = {}
    for k in np.argsort(first_at, kind="stable").tolist():
        d = int(distinct[k])
        value = values[d] if d >= 0 else ""
        if value not in slot:
            slot[value] = len(domains)
            domains.append(value)
        slot_of_id[d + 1] = slot[value]
    if "" in slot:
        # a node without the label and one labelled "" are in the same domain
        slot_of_id[0] = slot[""]
        if "" in values:
            slot_of_id[values.index("") + 1] = slot[""]
    return domains, slot_of_id


def score_array(
    state: PreScoreState,
    pod: Pod,
    nodes: Sequence[NodeInfo],
    columns: NodeColumns,
    rows: Rows,
    memo: MatchCounts,
) -> Ints:
    """`score_node` of each of `rows` (rows of `columns`, whose rows are `nodes`). Keeps
    which of them PreScore ignored in `state.scored_ignored`, for `normalize_score_array`."""
    total = np.zeros(len(rows), np.float64)
    namespace = pod.metadata.namespace or "default"
    for c, by_value, weight in zip(
        state.constraints,
        state.topology_value_to_pod_counts,
        state.topology_normalizing_weight,
        strict=True,
    ):
        ids = columns.domain_ids(c.topology_key)[rows]
        present = ids >= 0
        if c.topology_key == LABEL_HOSTNAME:
            count = np.zeros(len(rows), np.int64)
            at = np.flatnonzero(present)
            count[at] = matching_per_row(c, namespace, nodes, columns, rows[at], memo)
        else:
            values = columns.domain_values(c.topology_key)
            distinct, inverse = np.unique(ids, return_inverse=True)
            per_id = [by_value.get(values[d], 0) if d >= 0 else 0 for d in distinct.tolist()]
            count = np.array(per_id, np.int64)[inverse.reshape(-1)]
        # score_node's `count * weight + (maxSkew - 1)`, added only where the label is
        term = count.astype(np.float64) * weight + float(c.max_skew - 1)
        total = total + np.where(present, term, 0.0)
    # Go's math.Round, as score_node: halves away from zero, and scores are never negative
    scores: Ints = np.floor(total + 0.5).astype(np.int64)
    ignored = _ignored(state, columns, rows)
    if ignored is not None:
        scores[ignored] = 0
    state.scored_ignored = ignored if ignored is not None else np.zeros(len(rows), np.bool_)
    return scores


def _ignored(state: PreScoreState, columns: NodeColumns, rows: Rows) -> Bools | None:
    if not state.ignored_nodes:
        return None
    index = columns.index
    at = [index[name] for name in state.ignored_nodes if name in index]
    return np.isin(rows, np.array(at, np.intp))


def normalize_score_array(state: PreScoreState, scores: Ints) -> Ints:
    """`normalize_scores` on the scores of rows in order: reversed and scaled to 0..100
    over the nodes PreScore did not ignore; those end with 0. Which ones they are is known
    from `score_array` on the same rows; raises ValueError when it was not called on as
    many rows (the framework then normalizes NodeScores)."""
    ignored = state.scored_ignored
    if state.ignored_nodes and (ignored is None or len(ignored) != len(scores)):
        raise ValueError("normalize_score_array without score_array on the same rows")
    kept = scores if ignored is None or not ignored.any() else scores[~ignored]
    if not len(kept):
        return np.zeros(len(scores), np.int64)
    low = int(kept.min())
    high = max(int(kept.max()), 0)
    if high == 0:
        out = np.full(len(scores), MAX_NODE_SCORE, np.int64)
    else:
        out = MAX_NODE_SCORE * (high + low - scores) // high
    if ignored is not None:
        out[ignored] = 0
    return out
