"""The `domain_ids` of hostname label values, for VolumeBinding's array Filter.

`NodeColumns.domain_ids(key)` numbers the distinct values of a node label and
`domain_values(key)` lists them by number, a list that only grows while the columns live.
`HostIds` keeps the reverse lookup (value → id) for that list, extended with the values
added since it last looked, so finding the ids of a few hostnames costs no pass over every
node.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from kubesched.framework import NodeColumns
from kubesched_volumebinding.volumebinding.volume_index import HOSTNAME_LABEL

__all__ = ["HostIds"]


class HostIds:
    """Hostname label value → its id in one `NodeColumns`' `domain_ids(HOSTNAME_LABEL)`."""

    __slots__ = ("_ids", "_values")

    def __init__(self) -> None:
        self._values: list[str] | None = None
        self._ids: dict[str, int] = {}

    def of(self, columns: NodeColumns, hosts: Iterable[str]) -> npt.NDArray[np.int64]:
        """The ids of those of `hosts` some node has (unknown ones are left out)."""
        values = columns.domain_values(HOSTNAME_LABEL)
        if values is not self._values:
            self._values = values
            self._ids = {}
        ids = self._ids
        for i in range(len(ids), len(values)):
            ids[values[i]] = i
        return np.array([ids[h] for h in hosts if h in ids], np.int64)
