"""InterPodAffinity's Filter, Score and NormalizeScore on rows of the snapshot's
NodeColumns (ArrayFilterPlugin, ArrayScorePlugin, ArrayNormalizeScorePlugin, and the batch
Filter on the snapshot's own nodes).

Each answers as the per-node form does (filtering.filter_node, scoring.node_score,
scoring.normalize), reading a row's domain of each topology key from
`NodeColumns.domain_ids` and its count or score from the per-domain totals PreFilter and
PreScore kept (`Domains`). Without those totals (the state's counts were changed by
AddPod/RemovePod, or PreFilter/PreScore walked another node list) they raise, and the
framework asks the per-node form.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from kubesched.framework import MAX_NODE_SCORE, NodeColumns, RowMask, Rows, RowScores, Status
from kubesched_builtin.interpodaffinity.domains import Domains
from kubesched_builtin.interpodaffinity.filtering import (
    AFFINITY,
    ANTI_AFFINITY,
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    EXISTING_ANTI_AFFINITY,
    PreFilterState,
)
from kubesched_builtin.interpodaffinity.scoring import PreScoreState
from kubesched_builtin.interpodaffinity.terms import pod_matches_all_terms

__all__ = ["filter_mask", "filter_statuses", "normalize_array", "score_array"]

Ints = npt.NDArray[np.int64]


def _domains(domains: Domains | None, columns: NodeColumns) -> Domains:
    if domains is None:
        raise RuntimeError("no domain totals in the state: ask node by node")
    domains.check(columns)
    return domains


def _failed_rule(state: PreFilterState, columns: NodeColumns, rows: Rows) -> Ints:
    """For each row, the first of filtering.filter_node's three rules its node fails (1:
    satisfies_pod_affinity, 2: satisfies_pod_anti_affinity, 3:
    satisfies_existing_pods_anti_affinity), 0 where it passes them all."""
    d = _domains(state.domains, columns)
    failed: Ints = np.zeros(len(rows), np.int64)
    if state.has_counts(EXISTING_ANTI_AFFINITY):
        for key in d.keys(EXISTING_ANTI_AFFINITY):
            ids = columns.domain_ids(key)[rows]
            failed[d.at(EXISTING_ANTI_AFFINITY, key, ids) > 0] = 3
    if state.has_counts(ANTI_AFFINITY):
        for term in state.required_anti_affinity:
            ids = columns.domain_ids(term.topology_key)[rows]
            failed[d.at(ANTI_AFFINITY, term.topology_key, ids) > 0] = 2
    if state.required_affinity:
        ok: RowMask = np.ones(len(rows), np.bool_)
        pods_exist: RowMask = np.ones(len(rows), np.bool_)
        for term in state.required_affinity:
            ids = columns.domain_ids(term.topology_key)[rows]
            ok &= ids >= 0  # the node must have every topology key
            pods_exist &= d.at(AFFINITY, term.topology_key, ids) > 0
        # the first pod of a group with affinity to itself passes where no pod matches yet
        if state.has_counts(AFFINITY) or not pod_matches_all_terms(
            state.required_affinity, state.pod
        ):
            ok &= pods_exist
        failed[~ok] = 1
    return failed


def filter_mask(state: PreFilterState, columns: NodeColumns, rows: Rows) -> RowMask:
    """True where `filter_node` passes the row's node."""
    out: RowMask = _failed_rule(state, columns, rows) == 0
    return out


_STATUSES: Final = (
    None,
    lambda: Status.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH),
    lambda: Status.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH),
    lambda: Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH),
)


def filter_statuses(state: PreFilterState, columns: NodeColumns, rows: Rows) -> list[Status | None]:
    """`filter_node` of each row's node: the status of the first rule it fails."""
    statuses: list[Status | None] = []
    for rule in _failed_rule(state, columns, rows).tolist():
        make = _STATUSES[rule]
        statuses.append(None if make is None else make())
    return statuses


def score_array(state: PreScoreState, columns: NodeColumns, rows: Rows) -> RowScores:
    """`node_score` of each row: the sum of its domains' topology scores."""
    d = _domains(state.domains, columns)
    total: RowScores = np.zeros(len(rows), np.int64)
    for which, key in d.totals:
        total += d.at(which, key, columns.domain_ids(key)[rows])
    return total


def normalize_array(state: PreScoreState, scores: RowScores) -> RowScores:
    """scoring.normalize on the array: `int(100 * (s - min) / (max - min))` in the same
    float64 arithmetic, all 0 when every score is the same; unchanged without topology
    scores."""
    if not state.topology_scores or not len(scores):
        return scores
    low = int(scores.min())
    spread = int(scores.max()) - low
    if spread <= 0:
        return np.zeros(len(scores), np.int64)
    shifted = (scores - low).astype(np.float64)
    out: Ints = (float(MAX_NODE_SCORE) * (shifted / float(spread))).astype(np.int64)
    return out
