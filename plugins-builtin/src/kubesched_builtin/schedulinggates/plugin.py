"""SchedulingGates holds back a pod while it carries scheduling gates (KEP-3521).

Upstream: pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go. The pod stays
in the unschedulable pool, gated, until an update removes its last gate.
"""

from __future__ import annotations

from typing import Any, ClassVar

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EnqueueExtensions,
    EventResource,
    PreEnqueuePlugin,
    QueueingHint,
    Status,
)
from kubesched_builtin.names import SCHEDULING_GATES

__all__ = ["SchedulingGates"]


class SchedulingGates(PreEnqueuePlugin, EnqueueExtensions):
    """Rejects a gated pod at PreEnqueue with UnschedulableAndUnresolvable."""

    name: ClassVar[str] = SCHEDULING_GATES

    def pre_enqueue(self, pod: Pod) -> Status | None:
        gates = [gate.name for gate in pod.spec.scheduling_gates]
        if not gates:
            return None
        # Go's %v of a []string: "[g1 g2]"
        return Status.unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.Pod, ActionType.UpdatePodSchedulingGatesEliminated),
                self.is_schedulable_after_pod_change,
            )
        ]

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Queue only when the update is to this very pod and it has no gates left."""
        if not isinstance(new_obj, Pod):
            # upstream returns Queue with an error for objects of the wrong type
            return QueueingHint.Queue
        if new_obj.metadata.uid != pod.metadata.uid:
            return QueueingHint.QueueSkip
        if not new_obj.spec.scheduling_gates:
            return QueueingHint.Queue
        return QueueingHint.QueueSkip
