"""Resource amounts of the nodes one cycle scores, gathered once for every scorer.

NodeResourcesFit and NodeResourcesBalancedAllocation both score the same feasible rows of
the snapshot's NodeColumns, and both read the rows' allocatable CPU and memory. What one
gathers (`columns.<table>[resource][rows]`, with its largest absolute amount, which each
plugin holds against its own bound for exact int64 arithmetic) is kept in the cycle's
state for the other; a new cycle has a new state, so nothing outlives the snapshot it was
read from.
"""

from __future__ import annotations

from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from kubesched.framework import CycleState, NodeColumns

__all__ = ["RowAmounts", "Table", "row_amounts"]

Ints = npt.NDArray[np.int64]
Rows = npt.NDArray[np.intp]
Table = Literal["allocatable", "requested", "non_zero_requested"]

STATE_KEY: Final = "kubesched_builtin/row-amounts"


class RowAmounts:
    """Amounts of `columns` at `rows`, by (table, resource), each gathered on first use."""

    __slots__ = ("_gathered", "columns", "rows")

    def __init__(self, columns: NodeColumns, rows: Rows) -> None:
        self.columns = columns
        self.rows = rows
        self._gathered: dict[tuple[Table, str], tuple[Ints, int]] = {}

    def get(self, table: Table, resource: str) -> tuple[Ints, int]:
        """The amounts of `resource` in `table` at the rows (zeros where no node has the
        resource), and the largest of them in absolute value. Shared: read, never change."""
        key = (table, resource)
        found = self._gathered.get(key)
        if found is None:
            column = getattr(self.columns, table).get(resource)
            if column is None or not len(self.rows):
                found = (np.zeros(len(self.rows), np.int64), 0)
            else:
                amounts: Ints = column[self.rows]
                found = (amounts, int(np.abs(amounts).max()))
            self._gathered[key] = found
        return found

    def clone(self) -> RowAmounts:
        return self  # never changed, only added to


def row_amounts(state: CycleState, columns: NodeColumns, rows: Rows) -> RowAmounts:
    """The cycle's RowAmounts of `rows` (the very array the Score runner passes every
    plugin) of `columns`, made and kept in `state` on first use."""
    found = state.get(STATE_KEY)
    if isinstance(found, RowAmounts) and found.columns is columns and found.rows is rows:
        return found
    made = RowAmounts(columns, rows)
    state.write(STATE_KEY, made)
    return made
