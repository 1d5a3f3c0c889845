"""The snapshot's columns for the nodes a batch Filter/Score is called with.

The runners call `filter_nodes`/`score_nodes` with the cycle's own NodeInfos, rows of
`handle.snapshot.columns`; reading those rows is what makes the batch forms cheap (no gather
node by node). Anything else (a what-if clone with nominated pods or preemption victims
removed, a list from another snapshot) is not a row of the columns, and the caller gathers
from the NodeInfos instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kubesched.framework import Handle, NodeColumns, NodeInfo

__all__ = ["Rows", "snapshot_rows"]

Rows = tuple[NodeColumns, npt.NDArray[np.intp]]
"""The snapshot's columns and the row of each node, in the order the nodes were given."""


def snapshot_rows(handle: Handle, nodes: Sequence[NodeInfo]) -> Rows | None:
    """The columns and rows of `nodes`, or None when they are not all the snapshot's own
    node infos."""
    if not nodes:
        return None
    columns = handle.snapshot.columns
    rows = columns.positions(nodes)
    return None if rows is None else (columns, rows)
