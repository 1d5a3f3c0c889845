"""What NodeVolumeLimits' array Filter reads per row of the snapshot's `NodeColumns`.

Not in upstream. `NodeVolumeLimits.filter_mask` passes a row where Filter answers without
counting the node's pods' volumes one by one (`_count` returns None before that): the
pod's own volumes (for the row's CSINode migration key) are none, the node has no limits,
or they fit under every limit even if each of the pods' volumes and VolumeAttachments
took a slot. Rows it does not pass go to `filter`, which counts them in full.

`NodeRows` keeps, per row, what that needs: from the node's CSINode (its migration key,
its limit per driver), rebuilt when the cluster's CSINode list is not the one it was built
from; from the node's pods (their volume count, whether counting them could fail), derived
again for a row only when the row's NodeInfo generation moved on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from kubesched.framework import NodeInfo, Rows
from kubesched_volumebinding.nodevolumelimits.counting import pod_volume_count, volume_limits
from kubesched_volumebinding.storage import CSINode, VolumeAttachment, csi_migration_key

__all__ = ["NO_LIMIT", "NodeRows"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

NO_LIMIT: Final = np.iinfo(np.int64).max
"""A driver's limit on a row whose CSINode sets none."""


class NodeRows:
    """Per row of one `NodeColumns` (aligned with its `names`): the CSINode facts and the
    pods' volume counts NodeVolumeLimits' array Filter reads."""

    __slots__ = (
        "_csi_list",
        "csi_node_of_key",
        "generation",
        "has_limits",
        "key_id",
        "limits",
        "may_fail",
        "names",
        "volume_count",
    )

    def __init__(self, names: list[str]) -> None:
        self.names = names
        size = len(names)
        self._csi_list: list[Any] | None = None
        self.key_id: Ints = np.zeros(size, np.int64)
        """An id per distinct `csi_migration_key` of the rows' CSINodes."""
        self.csi_node_of_key: list[CSINode | None] = []
        """A CSINode (None: no CSINode) with each key id's migration key."""
        self.limits: dict[str, Ints] = {}
        """Driver → its limit per row (NO_LIMIT where the CSINode sets none)."""
        self.has_limits: Bools = np.zeros(size, np.bool_)
        self.generation: Ints = np.full(size, -1, np.int64)
        """The NodeInfo generation each row's pod counts were derived on (-1: never)."""
        self.volume_count: Ints = np.zeros(size, np.int64)
        self.may_fail: Bools = np.zeros(size, np.bool_)

    def refresh_csi_nodes(self, csi_list: list[Any]) -> None:
        """Take the CSINode facts anew unless `csi_list` (the cluster's CSINodes) holds the
        same objects as last time, or objects equal to them."""
        if self._csi_list is not None and csi_list == self._csi_list:
            return
        self._csi_list = csi_list
        by_name = {o.metadata.name: o for o in csi_list if isinstance(o, CSINode)}
        size = len(self.names)
        key_ids: dict[str | None, int] = {}
        self.csi_node_of_key = []
        self.limits = {}
        for i, name in enumerate(self.names):
            csi_node = by_name.get(name)
            key = csi_migration_key(csi_node)
            found = key_ids.get(key)
            if found is None:
                found = key_ids[key] = len(self.csi_node_of_key)
                self.csi_node_of_key.append(csi_node)
            self.key_id[i] = found
            limits = volume_limits(csi_node)
            self.has_limits[i] = bool(limits)
            for driver, limit in limits.items():
                column = self.limits.get(driver)
                if column is None:
                    column = self.limits[driver] = np.full(size, NO_LIMIT, np.int64)
                column[i] = limit

    def refresh_pods(self, rows: Rows, generation: Ints, infos: Sequence[NodeInfo]) -> None:
        """Count the pods' volumes again on the `rows` whose generation (the columns'
        `generation[rows]`) is not the one they were counted on; `infos` are the
        snapshot's node infos by row."""
        stale = rows[self.generation[rows] != generation]
        for i in stale.tolist():
            self.volume_count[i], self.may_fail[i] = pod_volume_count(p.pod for p in infos[i].pods)
            self.generation[i] = infos[i].generation

    def attachment_counts(
        self, by_node: dict[str, list[VolumeAttachment]], index: dict[str, int]
    ) -> Ints:
        """VolumeAttachments per row, from the attachments grouped by node name; `index`
        is the columns' row by node name."""
        counts: Ints = np.zeros(len(self.names), np.int64)
        for name, attachments in by_node.items():
            i = index.get(name)
            if i is not None:
                counts[i] = len(attachments)
        return counts
