"""Shared pieces of the builtin plugins' array forms (ArrayFilterPlugin, ArrayScorePlugin,
ArrayNormalizeScorePlugin, plugin API 0.4): answers per distinct value of an id column,
spread over the rows, rows grouped by the node labels a selector reads, and the snapshot's
taint lists as Taint objects."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from kubesched.api import NodeSelectorTerm, Pod, Taint
from kubesched.framework import NodeColumns, Rows

__all__ = [
    "label_keys",
    "per_distinct",
    "per_distinct_at",
    "per_label_group",
    "pod_required_terms",
    "taints_of",
]


def per_distinct(
    ids: npt.NDArray[np.int64], answer: Callable[[int], object], dtype: type[np.generic]
) -> npt.NDArray[np.generic]:
    """`answer(id)` for each row's id, asked once per distinct id (taint sets, image
    sets: a cluster has few)."""
    if not len(ids):
        return np.zeros(0, dtype)
    first = ids[0]
    if (ids == first).all():
        return np.full(len(ids), answer(int(first)), dtype)
    distinct, inverse = np.unique(ids, return_inverse=True)
    values = np.array([answer(int(i)) for i in distinct.tolist()], dtype)
    return values[inverse]


def per_distinct_at(
    column: npt.NDArray[np.int64],
    rows: Rows,
    interned: int,
    answer: Callable[[int], object],
    dtype: type[np.generic],
) -> npt.NDArray[np.generic]:
    """`per_distinct` of `column` (an id column of NodeColumns, whose ids are never
    reused) at `rows`; `interned` is how many ids it ever gave: with one, every row holds
    id 0, and the rows are not read (a cluster of nodes alike: no taints, one image set)."""
    if interned == 1 and len(rows):
        return np.full(len(rows), answer(0), dtype)
    return per_distinct(column[rows], answer, dtype)


@lru_cache(maxsize=1024)
def _taints(key: tuple[tuple[str, str, str], ...]) -> tuple[Taint, ...]:
    return tuple(Taint(key=k, value=v, effect=e) for k, v, e in key)


def taints_of(columns: NodeColumns, taint_set: int) -> tuple[Taint, ...]:
    """The taints of a `NodeColumns.taint_set` id, as the node lists them."""
    return _taints(columns.taint_sets[taint_set])


def label_keys(terms: Iterable[NodeSelectorTerm]) -> set[str] | None:
    """The node label keys `terms` read, or None when one reads a field (matchFields:
    the node's name, which no label column holds)."""
    keys: set[str] = set()
    for term in terms:
        if term.match_fields:
            return None
        keys.update(r.key for r in term.match_expressions)
    return keys


def per_label_group(
    columns: NodeColumns, rows: Rows, keys: Iterable[str]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The rows grouped by their values of the label `keys` (a missing label is a value
    too): one representative position (in `rows`) per group, and each row's group."""
    ordered = sorted(keys)
    if not ordered:
        return np.zeros(1, np.intp), np.zeros(len(rows), np.intp)
    ids = np.stack([columns.domain_ids(k)[rows] for k in ordered], axis=1)
    _, first, inverse = np.unique(ids, axis=0, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def pod_required_terms(pod: Pod) -> list[NodeSelectorTerm]:
    """The pod's required node affinity terms (its nodeSelector aside)."""
    affinity = pod.spec.affinity
    if affinity is None or affinity.node_affinity is None:
        return []
    required = affinity.node_affinity.required_during_scheduling_ignored_during_execution
    return [] if required is None else list(required.node_selector_terms)
