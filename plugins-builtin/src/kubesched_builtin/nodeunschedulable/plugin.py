"""NodeUnschedulable keeps pods off cordoned nodes unless they tolerate the cordon.

Upstream: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go. A node
with `spec.unschedulable: true` is treated as if it had the taint
`node.kubernetes.io/unschedulable:NoSchedule`; a pod tolerating that taint may still land there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

import numpy as np

from kubesched.api import Node, Pod, Taint, Toleration, tolerates_any
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
    QueueingHint,
    RowMask,
    Rows,
    Status,
)
from kubesched_builtin.names import NODE_UNSCHEDULABLE

__all__ = ["ERR_REASON_NODE_NOT_FOUND", "ERR_REASON_UNSCHEDULABLE", "NodeUnschedulable"]

ERR_REASON_UNSCHEDULABLE: Final = "node(s) were unschedulable"
ERR_REASON_NODE_NOT_FOUND: Final = "node not found"

TAINT_NODE_UNSCHEDULABLE: Final = "node.kubernetes.io/unschedulable"
_UNSCHEDULABLE_TAINT: Final = Taint(key=TAINT_NODE_UNSCHEDULABLE, effect="NoSchedule")


def _tolerates_unschedulable(tolerations: list[Toleration]) -> bool:
    return tolerates_any(tolerations, _UNSCHEDULABLE_TAINT)


class NodeUnschedulable(FilterPlugin, EnqueueExtensions):
    """Filter: UnschedulableAndUnresolvable on a cordoned node the pod does not tolerate."""

    name: ClassVar[str] = NODE_UNSCHEDULABLE
    filter_mask_exact: ClassVar[bool] = True
    """`filter_mask` rejects only what `filter` rejects (see `mask_is_exact`)."""

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is None:
            return Status.unresolvable(ERR_REASON_NODE_NOT_FOUND)
        if not node.spec.unschedulable:
            return None
        if _tolerates_unschedulable(pod.spec.tolerations):
            return None
        return Status.unresolvable(ERR_REASON_UNSCHEDULABLE)

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Filter of each node in one call (BatchFilterPlugin): the toleration is looked
        up once, and only for a pod that meets a cordoned node."""
        out: list[Status | None] = [None] * len(nodes)
        tolerates: bool | None = None
        for i, info in enumerate(nodes):
            node = info.node
            if node is None:
                out[i] = Status.unresolvable(ERR_REASON_NODE_NOT_FOUND)
            elif node.spec.unschedulable:
                if tolerates is None:
                    tolerates = _tolerates_unschedulable(pod.spec.tolerations)
                if not tolerates:
                    out[i] = Status.unresolvable(ERR_REASON_UNSCHEDULABLE)
        return out

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        """Filter on the snapshot's columns (ArrayFilterPlugin): a cordoned row fails
        unless the pod tolerates the unschedulable taint."""
        cordoned = columns.unschedulable[rows]
        if not cordoned.any() or _tolerates_unschedulable(pod.spec.tolerations):
            return np.ones(len(rows), np.bool_)
        return ~cordoned

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # upstream (queueing hints on): a node that appears or is uncordoned, and a pod that
        # gains the toleration. UpdateNodeTaint also covers changes of spec.unschedulable.
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.Node, ActionType.Add | ActionType.UpdateNodeTaint),
                self.is_schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.Pod, ActionType.UpdatePodToleration),
                self.is_schedulable_after_pod_toleration_change,
            ),
        ]

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when a schedulable node was added or a node went unschedulable → schedulable."""
        if not isinstance(new_obj, Node) or not (old_obj is None or isinstance(old_obj, Node)):
            return QueueingHint.Queue
        if new_obj.spec.unschedulable:
            return QueueingHint.QueueSkip
        if old_obj is None or old_obj.spec.unschedulable:
            return QueueingHint.Queue
        return QueueingHint.QueueSkip

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when this pod's update made it tolerate the unschedulable taint."""
        if not isinstance(new_obj, Pod) or not (old_obj is None or isinstance(old_obj, Pod)):
            return QueueingHint.Queue
        if new_obj.metadata.uid != pod.metadata.uid:
            return QueueingHint.QueueSkip
        if _tolerates_unschedulable(new_obj.spec.tolerations):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip
