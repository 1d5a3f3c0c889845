"""InterPodAffinity's Filter, Score and NormalizeScore on rows of the snapshot's
NodeColumns (ArrayFilterPlugin, ArrayScorePlugin, ArrayNormalizeScorePlugin).

Each answers as the per-node form does (filtering.filter_node, scoring.node_score,
scoring.normalize), reading a row's domain of each topology key from
`NodeColumns.domain_ids` and its count or score from the per-domain totals PreFilter and
PreScore kept (`Domains`). Without those totals (the state's counts were changed by
AddPod/RemovePod, or PreFilter/PreScore walked another node list) they raise, and the
framework asks the per-node form.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from kubesched.framework import MAX_NODE_SCORE, NodeColumns, RowMask, Rows, RowScores
from kubesched_builtin.interpodaffinity.domains import Domains
from kubesched_builtin.interpodaffinity.filtering import PreFilterState
from kubesched_builtin.interpodaffinity.scoring import PreScoreState
from kubesched_builtin.interpodaffinity.terms import pod_matches_all_terms

__all__ = ["filter_mask", "normalize_array", "score_array"]

Ints = npt.NDArray[np.int64]


def _domains(domains: Domains | None, columns: NodeColumns) -> Domains:
    if domains is None:
        raise RuntimeError("no domain totals in the state: ask node by node")
    domains.check(columns)
    return domains


def filter_mask(state: PreFilterState, columns: NodeColumns, rows: Rows) -> RowMask:
    """True where `filter_node` passes the row's node: the three rules of
    filtering.satisfies_pod_affinity / satisfies_pod_anti_affinity /
    satisfies_existing_pods_anti_affinity, each on every row at once."""
    d = _domains(state.domains, columns)
    ok: RowMask = np.ones(len(rows), np.bool_)
    if state.required_affinity:
        pods_exist = np.ones(len(rows), np.bool_)
        for term in state.required_affinity:
            ids = columns.domain_ids(term.topology_key)[rows]
            ok &= ids >= 0  # the node must have every topology key
            pods_exist &= d.at(0, term.topology_key, ids) > 0
        # the first pod of a group with affinity to itself passes where no pod matches yet
        if state.affinity_counts or not pod_matches_all_terms(state.required_affinity, state.pod):
            ok &= pods_exist
    if state.anti_affinity_counts:
        for term in state.required_anti_affinity:
            ids = columns.domain_ids(term.topology_key)[rows]
            ok &= d.at(1, term.topology_key, ids) <= 0
    if state.existing_anti_affinity_counts:
        for key in d.keys(2):
            ok &= d.at(2, key, columns.domain_ids(key)[rows]) <= 0
    return ok


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
