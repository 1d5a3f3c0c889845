"""InterPodAffinity's PreFilter counts and PreScore scores on the snapshot's NodeColumns.

The walks of `podindex` visit every node (PreFilter's incoming terms) or every node with
(anti-)affinity pods (existing pods' terms, PreScore) in every cycle. What a node adds to
them depends only on its pods and on the cycle's query (the incoming pod's terms, its
namespace and labels), and a node's pods change only when its NodeInfo takes a new
generation. So each node row keeps what it added (`podindex.Hit`s summed per count and
topology key) with the generation it was counted on, per query, and a cycle walks again
only the rows whose generation moved (one or two: the node the last pod went to). The
topology domains then add up with one `np.bincount` per key over `NodeColumns.domain_ids`.

PreFilter keeps the per-domain totals (`Domains`) and makes its `TopologyCounts` from them
only when read; PreScore makes its `TopologyScores` at once (`to_scores`). Both have the
entries the walks give: a pair is present when a pod was counted there (scores: when a term
matched, even if the weights cancel). Filter's mask and Score's array read the totals.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from kubesched.framework import NodeColumns, NodeInfo
from kubesched_builtin.interpodaffinity.domains import DomainTotals
from kubesched_builtin.interpodaffinity.podindex import NodeHits, PodIndex
from kubesched_builtin.interpodaffinity.scoring import TopologyScores

__all__ = ["RowTallies", "to_scores"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Slot = tuple[int, str]
"""(which count, topology key) of a `podindex.Hit`."""

_MAX_QUERIES: Final = 16


@dataclass(eq=False, slots=True)
class _Tallies:
    """One query's sums per row, each with the generation its row was counted on."""

    generations: Ints
    sums: dict[Slot, Ints]
    hits: dict[Slot, Ints]
    """How many hits made each sum (a sum of signed weights may be 0 where terms matched)."""


class RowTallies:
    """Per query (a hashable naming what the hits depend on besides the nodes' pods), the
    hits of each node row summed by slot, kept across cycles; the `_MAX_QUERIES` most
    recently asked are kept."""

    __slots__ = ("_queries",)

    def __init__(self) -> None:
        self._queries: dict[Hashable, _Tallies] = {}

    def totals(
        self,
        query: Hashable,
        hits: NodeHits,
        index: PodIndex,
        nodes: Sequence[NodeInfo],
        columns: NodeColumns,
        busy: Bools,
        *,
        count_hits: bool = False,
    ) -> tuple[DomainTotals, DomainTotals]:
        """The sums of `hits` over each slot's topology domains (and, with `count_hits`,
        how many hits each domain had), for `nodes`, the rows of `columns` in order. Rows
        not `busy` add nothing (their pods could not hit)."""
        tallies = self._tallies(query, hits, index, nodes, columns, busy)
        sums = {slot: _by_domain(columns, slot[1], t) for slot, t in tallies.sums.items()}
        if not count_hits:
            return sums, {}
        counts = {slot: _by_domain(columns, slot[1], t) for slot, t in tallies.hits.items()}
        return sums, counts

    def _tallies(
        self,
        query: Hashable,
        hits: NodeHits,
        index: PodIndex,
        nodes: Sequence[NodeInfo],
        columns: NodeColumns,
        busy: Bools,
    ) -> _Tallies:
        size = len(nodes)
        if not busy.any() and not getattr(self._queries.get(query), "sums", None):
            # no row can hit and none kept a sum: the answer is empty, as a walk would find
            # (most cycles of pods without affinity, where no pod has (anti-)affinity)
            return _NOTHING
        found = self._queries.pop(query, None)
        if found is None or len(found.generations) != size:
            found = _Tallies(np.full(size, -1, np.int64), {}, {})
        if len(self._queries) >= _MAX_QUERIES:
            del self._queries[next(iter(self._queries))]
        self._queries[query] = found
        now = columns.generation
        stale = np.flatnonzero(found.generations != now)
        if not len(stale):
            return found
        for column in (*found.sums.values(), *found.hits.values()):
            column[stale] = 0
        for r in stale[busy[stale]].tolist():
            info = nodes[r]
            if info.node is None:
                continue
            for which, key, amount in hits(index.node(info)):
                slot = (which, key)
                sums = found.sums.get(slot)
                if sums is None:
                    sums = found.sums[slot] = np.zeros(size, np.int64)
                    found.hits[slot] = np.zeros(size, np.int64)
                sums[r] += amount
                found.hits[slot][r] += 1
        found.generations[stale] = now[stale]
        return found


_NOTHING: Final = _Tallies(np.zeros(0, np.int64), {}, {})
"""The tallies of a query no row can add to (never stored, never written)."""


def _by_domain(columns: NodeColumns, key: str, per_row: Ints) -> Ints:
    """`per_row` summed per domain id of label `key`, with the 0 for rows without it."""
    ids = columns.domain_ids(key)
    size = len(columns.domain_values(key)) + 1
    at = np.flatnonzero(per_row)
    at = at[ids[at] >= 0]
    if not len(at):
        return np.zeros(size, np.int64)
    # float64 weights are exact here: counts and weights stay far below 2**53
    return np.bincount(ids[at], weights=per_row[at], minlength=size).astype(np.int64)


def to_scores(columns: NodeColumns, sums: DomainTotals, hits: DomainTotals) -> TopologyScores:
    """The `TopologyScores`: a value for each domain some term matched in."""
    scores: TopologyScores = {}
    for slot, by_domain in sums.items():
        key = slot[1]
        values = columns.domain_values(key)
        at = np.flatnonzero(hits[slot][:-1]).tolist()
        if at:
            scores[key] = dict(
                zip(map(values.__getitem__, at), by_domain[at].tolist(), strict=True)
            )
    return scores
