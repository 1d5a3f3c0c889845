"""Cluster events and queueing hints: what may make a rejected pod schedulable.

Upstream: staging/src/k8s.io/kube-scheduler/framework/types.go (ClusterEvent, ActionType)
and interface.go (QueueingHint, EnqueueExtensions).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from kubesched.api import Pod

__all__ = [
    "ActionType",
    "ClusterEvent",
    "ClusterEventWithHint",
    "EventResource",
    "QueueingHint",
    "QueueingHintFn",
]


class ActionType(enum.IntFlag):
    Add = 1
    Delete = 1 << 1
    UpdateNodeAllocatable = 1 << 2
    UpdateNodeLabel = 1 << 3
    UpdateNodeTaint = 1 << 4
    """Also covers `spec.unschedulable`."""
    UpdateNodeCondition = 1 << 5
    UpdateNodeAnnotation = 1 << 6
    UpdatePodLabel = 1 << 7
    UpdatePodScaleDown = 1 << 8
    UpdatePodToleration = 1 << 9
    UpdatePodSchedulingGatesEliminated = 1 << 10
    UpdatePodGeneratedResourceClaim = 1 << 11
    UpdateOther = 1 << 12
    """Any update of a kind whose update is not broken down further (PVs, PodGroups ...)."""
    Update = (
        UpdateNodeAllocatable
        | UpdateNodeLabel
        | UpdateNodeTaint
        | UpdateNodeCondition
        | UpdateNodeAnnotation
        | UpdatePodLabel
        | UpdatePodScaleDown
        | UpdatePodToleration
        | UpdatePodSchedulingGatesEliminated
        | UpdatePodGeneratedResourceClaim
        | UpdateOther
    )
    All = Add | Delete | Update


class EventResource:
    """Resource names events are about; plugin packages add their own kinds' names."""

    Pod = "Pod"
    """Any pod event (assigned or not)."""
    AssignedPod = "AssignedPod"
    UnscheduledPod = "UnscheduledPod"
    Node = "Node"
    PersistentVolume = "PersistentVolume"
    PersistentVolumeClaim = "PersistentVolumeClaim"
    StorageClass = "StorageClass"
    CSINode = "CSINode"
    CSIDriver = "CSIDriver"
    CSIStorageCapacity = "CSIStorageCapacity"
    Wildcard = "*"


_POD_VARIANTS = {EventResource.AssignedPod, EventResource.UnscheduledPod}


@dataclass(frozen=True)
class ClusterEvent:
    """Something that happened to a resource, or what a plugin registers interest in."""

    resource: str
    action: ActionType
    label: str = ""

    @property
    def is_wildcard(self) -> bool:
        return self.resource == EventResource.Wildcard and self.action == ActionType.All

    def matches(self, incoming: ClusterEvent) -> bool:
        """Whether this registration covers `incoming` (same resource or `*`, and a shared
        action bit); "Pod" covers both assigned and unscheduled pod events."""
        if incoming.is_wildcard:
            return True
        resource_ok = (
            self.resource == EventResource.Wildcard
            or self.resource == incoming.resource
            or (self.resource == EventResource.Pod and incoming.resource in _POD_VARIANTS)
        )
        return resource_ok and bool(self.action & incoming.action)

    def __str__(self) -> str:
        return self.label or f"{self.resource}{self.action.name or int(self.action)}"


class QueueingHint(enum.IntEnum):
    QueueSkip = 0
    Queue = 1


QueueingHintFn = Callable[[Pod, Any, Any], QueueingHint]
"""hint(pod, old_object, new_object): whether this event may make `pod` schedulable."""

PodsOfInterestFn = Callable[[Any, Any], Collection[str] | None]
"""pods_of_interest(old_object, new_object): the uids of the only pods `hint` may answer
Queue for; None: any pod."""


@dataclass(frozen=True)
class ClusterEventWithHint:
    event: ClusterEvent
    hint: QueueingHintFn | None = None
    """None means always Queue."""
    pods_of_interest: PodsOfInterestFn | None = None
    """Optional, with `hint`: for an event that concerns a few pods (a claim names its
    pod), the queue offers it only to those, not to every waiting pod. An optimization:
    the hint must answer QueueSkip for every other pod."""
