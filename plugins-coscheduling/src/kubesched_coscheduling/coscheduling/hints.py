"""The cluster events that may let a member the plugin turned away through, with hints.

Upstream registers Pod Add and PodGroup Add|Update without hints (hints were tried and
reverted in 2026 after they livelocked priority tests, #972). The hints here only skip
events that cannot help the pod: another group's PodGroup, a status-only PodGroup write,
another group's unscheduled pods, and this group's own assigned members leaving (a failed
attempt releasing them: the group retries when its backoff ends, together). Resources
freed anywhere else (an assigned pod leaving or shrinking, a node added or changed) always
requeue, whatever its priority, so no gang is starved of a retry.
"""

from __future__ import annotations

from typing import Any

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from kubesched_coscheduling.names import POD_GROUP_KIND
from kubesched_coscheduling.podgroup import PodGroup, pod_group_key

__all__ = ["events_to_register", "meaningful_pod_change", "pod_group_hint", "pod_hint"]


def events_to_register() -> list[ClusterEventWithHint]:
    node_changes = (
        ActionType.Add
        | ActionType.UpdateNodeAllocatable
        | ActionType.UpdateNodeLabel
        | ActionType.UpdateNodeTaint
    )
    pod_changes = (
        ActionType.Add
        | ActionType.Delete
        | ActionType.UpdatePodLabel
        | ActionType.UpdatePodSchedulingGatesEliminated
        | ActionType.UpdatePodScaleDown
    )
    return [
        ClusterEventWithHint(
            ClusterEvent(POD_GROUP_KIND, ActionType.Add | ActionType.UpdateOther), pod_group_hint
        ),
        ClusterEventWithHint(ClusterEvent(EventResource.Pod, pod_changes), pod_hint),
        ClusterEventWithHint(ClusterEvent(EventResource.Node, node_changes)),
    ]


def pod_group_hint(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """Queue the pod when its own PodGroup appears or its spec changes."""
    if not isinstance(new, PodGroup) or new.key != pod_group_key(pod):
        return QueueingHint.QueueSkip
    if old is None or old.spec != new.spec:
        return QueueingHint.Queue
    return QueueingHint.QueueSkip


def pod_hint(pod: Pod, old: Any, new: Any) -> QueueingHint:
    """Queue the pod when an assigned pod of another group left or shrank (resources
    freed), or when a member of its own group appeared, was ungated or relabelled into it.
    Its own group's assigned members leaving do not count: the group retries when its
    backoff ends."""
    key = pod_group_key(pod)
    if new is None:
        if not isinstance(old, Pod) or not old.spec.node_name:
            return QueueingHint.QueueSkip
        same_group = bool(key) and pod_group_key(old) == key
        return QueueingHint.QueueSkip if same_group else QueueingHint.Queue
    if not isinstance(new, Pod) or new.metadata.uid == pod.metadata.uid:
        return QueueingHint.QueueSkip
    if isinstance(old, Pod) and old.spec.node_name and new.spec.node_name:
        return QueueingHint.Queue  # an assigned pod scaled down
    if key and pod_group_key(new) == key:
        return QueueingHint.Queue
    return QueueingHint.QueueSkip


def meaningful_pod_change(event: WatchEvent) -> bool:
    """Whether a Pod event could change a scheduling outcome (status-condition writes and
    nominations, which the scheduler itself makes on every failure, do not)."""
    if event.type != "MODIFIED":
        return True
    old: Pod = event.old
    new: Pod = event.obj
    return (
        old.spec != new.spec
        or old.metadata.labels != new.metadata.labels
        or old.status.phase != new.status.phase
        or old.metadata.deletion_timestamp != new.metadata.deletion_timestamp
    )
