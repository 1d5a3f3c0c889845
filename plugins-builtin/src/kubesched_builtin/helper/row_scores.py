"""Score arrays (and Filter masks) kept across cycles, by pod shape: a row is computed
again only when its node changed.

NodeResourcesFit's and BalancedAllocation's score of a node, and NodeResourcesFit's Filter
answer, depend only on the node's amounts (its row of the snapshot's NodeColumns, which a
change to the node replaces under a new generation) and on the pod's requests: pods of one
shape (a Deployment's) get the same answer from a node until the node changes. Each shape
keeps every row's value with the generation it was computed on; a cycle computes only the
rows of its own that are stale: node by node (the plugin's per-node form, a few rows) or
with the array form (many). The columns being laid out anew (a node added or removed)
drops everything.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.framework import CycleState, NodeColumns, NodeInfo, ScorePlugin

__all__ = ["RowScoreCache"]

Ints = npt.NDArray[np.int64]
Rows = npt.NDArray[np.intp]
Values = npt.NDArray[Any]

_SHAPES: Final = 16
"""Pod shapes kept (the least recently used goes first)."""
_BY_NODE: Final = 8
"""Stale rows up to this many are scored node by node: cheaper than the array form's fixed
cost of a few dozen numpy calls."""


class _Shape:
    __slots__ = ("generations", "scores")

    def __init__(self, size: int, dtype: type[np.generic]) -> None:
        self.scores: Values = np.zeros(size, dtype)
        self.generations: Ints = np.full(size, -1, np.int64)
        """The generation each row's value was computed on (-1: never)."""


class RowScoreCache:
    """One plugin's values (scores, or Filter's pass) of the snapshot's rows, per pod shape
    (`key`), as `dtype`."""

    __slots__ = ("_columns", "_dtype", "_shapes")

    def __init__(self, dtype: type[np.generic] = np.int64) -> None:
        self._columns: NodeColumns | None = None
        self._dtype = dtype
        self._shapes: OrderedDict[Hashable, _Shape] = OrderedDict()

    def scores(
        self,
        key: Hashable,
        columns: NodeColumns,
        rows: Rows,
        by_rows: Callable[[Rows], Values],
        nodes: Sequence[NodeInfo],
        by_node: Callable[[NodeInfo], object],
    ) -> Values:
        """The scores of `rows` of `columns` for pods of shape `key`: those kept from an
        earlier cycle where the row's generation is unchanged, the others computed by
        `by_rows` (the array form, on some rows), or, when few, by `by_node` on their node
        infos in `nodes` (the snapshot's list, whose rows the columns are; used only where
        a node info's name and generation are its row's). What `by_rows` raises is raised,
        nothing kept from that call."""
        if columns is not self._columns:
            self._columns = columns
            self._shapes.clear()
        shape = self._shapes.get(key)
        if shape is None:
            if len(self._shapes) >= _SHAPES:
                self._shapes.popitem(last=False)
            shape = self._shapes[key] = _Shape(len(columns), self._dtype)
        else:
            self._shapes.move_to_end(key)
        generations = columns.generation[rows]
        stale = np.flatnonzero(generations != shape.generations[rows])
        if stale.size:
            at = rows if stale.size == len(rows) else rows[stale]
            fresh = generations[stale]
            found = None
            if stale.size <= _BY_NODE:
                found = _node_by_node(columns, at, fresh, nodes, by_node, self._dtype)
            if found is None:
                found = by_rows(at)
            shape.scores[at] = found
            shape.generations[at] = fresh
        return shape.scores[rows]

    def plugin_scores(
        self,
        plugin: ScorePlugin,
        state: CycleState,
        pod: Pod,
        key: Hashable,
        columns: NodeColumns,
        rows: Rows,
        by_rows: Callable[[Rows], Values],
    ) -> Values:
        """`scores` with the plugin's Score of a node for the few stale rows, on its
        handle's snapshot."""

        def by_node(info: NodeInfo) -> int:
            return plugin.score(state, pod, info)[0]

        nodes = plugin.handle.snapshot.node_info_list
        return self.scores(key, columns, rows, by_rows, nodes, by_node)


def _node_by_node(
    columns: NodeColumns,
    at: Rows,
    generations: Ints,
    nodes: Sequence[NodeInfo],
    by_node: Callable[[NodeInfo], object],
    dtype: type[np.generic],
) -> Values | None:
    """`by_node` of the node info at each row of `at`, or None when one is not the row's
    node at the row's generation (`nodes` is not the list the columns describe)."""
    if len(nodes) != len(columns):
        return None
    names = columns.names
    infos = [nodes[r] for r in at.tolist()]
    for r, info, generation in zip(at.tolist(), infos, generations.tolist(), strict=True):
        if info.name != names[r] or info.generation != generation:
            return None
    return np.array([by_node(info) for info in infos], dtype)
