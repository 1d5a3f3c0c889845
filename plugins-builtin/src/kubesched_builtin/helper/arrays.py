"""Shared pieces of the builtin plugins' array forms (ArrayFilterPlugin, ArrayScorePlugin,
ArrayNormalizeScorePlugin, plugin API 0.4): answers per distinct value of an id column,
spread over the rows, and the snapshot's taint lists as Taint objects."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from kubesched.api import Taint
from kubesched.framework import NodeColumns

__all__ = ["per_distinct", "taints_of"]


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


@lru_cache(maxsize=1024)
def _taints(key: tuple[tuple[str, str, str], ...]) -> tuple[Taint, ...]:
    return tuple(Taint(key=k, value=v, effect=e) for k, v, e in key)


def taints_of(columns: NodeColumns, taint_set: int) -> tuple[Taint, ...]:
    """The taints of a `NodeColumns.taint_set` id, as the node lists them."""
    return _taints(columns.taint_sets[taint_set])
