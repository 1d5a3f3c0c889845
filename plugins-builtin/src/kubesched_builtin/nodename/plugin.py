"""NodeName honours a pod's `spec.nodeName` when the scheduler is asked to place it anyway.

Upstream: pkg/scheduler/framework/plugins/nodename/node_name.go.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

import numpy as np

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    NodeColumns,
    NodeInfo,
    RowMask,
    Rows,
    Status,
)
from kubesched_builtin.names import NODE_NAME

__all__ = ["ERR_REASON", "NodeName", "fits"]

ERR_REASON: Final = "node(s) didn't match the requested node name"


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """Whether the pod names no node, or names this one."""
    return not pod.spec.node_name or pod.spec.node_name == node_info.name


class NodeName(FilterPlugin, EnqueueExtensions):
    """Filter: UnschedulableAndUnresolvable on every node but the one the pod names."""

    name: ClassVar[str] = NODE_NAME
    filter_mask_exact: ClassVar[bool] = True
    """`filter_mask` rejects only what `filter` rejects (see `mask_is_exact`)."""

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if fits(pod, node_info):
            return None
        return Status.unresolvable(ERR_REASON)

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Filter of each node in one call (BatchFilterPlugin): nothing to check for a pod
        that names no node."""
        wanted = pod.spec.node_name
        if not wanted:
            return [None] * len(nodes)
        return [None if info.name == wanted else Status.unresolvable(ERR_REASON) for info in nodes]

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        """Filter on the snapshot's columns (ArrayFilterPlugin): only the named node's row
        passes, every row for a pod that names none."""
        wanted = pod.spec.node_name
        if not wanted:
            return np.ones(len(rows), np.bool_)
        mask: RowMask = np.equal(rows, columns.index.get(wanted, -1))
        return mask

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # upstream (queueing hints on): only a new node can be the named one; no hint
        # function, so every such event queues the pod.
        return [ClusterEventWithHint(ClusterEvent(EventResource.Node, ActionType.Add))]
