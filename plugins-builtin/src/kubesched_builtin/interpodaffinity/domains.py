"""Totals per topology domain on one snapshot's NodeColumns, kept in PreFilter's and
PreScore's state beside the dicts so Filter and Score can answer for many rows at once."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from kubesched.framework import NodeColumns

__all__ = ["DomainTotals", "Domains"]

Ints = npt.NDArray[np.int64]

DomainTotals = dict[tuple[int, str], Ints]
"""(which count, topology key) → total per domain id of the key (`domain_ids`), with one 0
more at the end: the total a row without the key (id -1) reads."""


class Domains:
    """`totals` as made on `columns` (a state's arrays answer only for those columns)."""

    __slots__ = ("_keys", "columns", "totals")

    def __init__(self, columns: NodeColumns, totals: DomainTotals) -> None:
        self.columns = columns
        self.totals = totals
        self._keys: dict[int, list[str]] = {}

    def keys(self, which: int) -> list[str]:
        """The topology keys of count `which` with some nonzero total."""
        found = self._keys.get(which)
        if found is None:
            found = self._keys[which] = [
                key for (w, key), t in self.totals.items() if w == which and t.any()
            ]
        return found

    def at(self, which: int, key: str, ids: npt.NDArray[np.int64]) -> Ints:
        """The total of count `which` in each of the domains `ids` of `key` (0 for -1)."""
        totals = self.totals.get((which, key))
        if totals is None:
            return np.zeros(len(ids), np.int64)
        if len(ids) and int(ids.max()) >= len(totals) - 1:
            # a value that appeared after the totals were made: never counted
            raise RuntimeError(f"label {key!r} has values the domain totals do not know")
        out: Ints = totals[ids]
        return out

    def counts(self, which: int) -> dict[tuple[str, str], int]:
        """Count `which` as a dict: (topology key, value) → total, for each domain with a
        nonzero total (the `TopologyCounts` the walks make)."""
        out: dict[tuple[str, str], int] = {}
        for (w, key), totals in self.totals.items():
            if w != which:
                continue
            values = self.columns.domain_values(key)
            at = np.flatnonzero(totals[:-1]).tolist()
            out.update(zip(((key, values[d]) for d in at), totals[at].tolist(), strict=True))
        return out

    def check(self, columns: NodeColumns) -> None:
        """Raise unless the totals were made on `columns` (the caller then asks node by
        node)."""
        if columns is not self.columns:
            raise RuntimeError("the domain totals were made on other node columns")
