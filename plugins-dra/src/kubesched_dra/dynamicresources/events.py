"""DynamicResources' cluster events and queueing hints.

upstream v1.34: dynamicresources.go (EventsToRegister, isSchedulableAfterClaimChange,
isSchedulableAfterPodChange). SchedulerQueueingHints is GA (locked on), so Node/
UpdateNodeTaint is not registered.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any, Final

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from kubesched_dra.api import ResourceClaim
from kubesched_dra.dynamicresources.claims import ClaimUnavailableError

if TYPE_CHECKING:
    from kubesched_dra.dynamicresources.plugin import DynamicResources

__all__ = [
    "CLAIM_UPDATE",
    "DEVICE_CLASS",
    "RESOURCE_CLAIM",
    "RESOURCE_SLICE",
    "after_claim_change",
    "after_pod_change",
    "claim_event_pods",
    "dynamic_resources_events",
    "pod_event_pods",
]

RESOURCE_CLAIM: Final = "ResourceClaim"
DEVICE_CLASS: Final = "DeviceClass"
RESOURCE_SLICE: Final = "ResourceSlice"

CLAIM_UPDATE: Final = ClusterEvent(RESOURCE_CLAIM, ActionType.UpdateOther)
"""What the plugin reports when it undoes an assumption of its own."""


def dynamic_resources_events(plugin: DynamicResources) -> list[ClusterEventWithHint]:
    add_or_update = ActionType.Add | ActionType.Update
    node_actions = ActionType.Add | ActionType.UpdateNodeLabel | ActionType.UpdateNodeAllocatable
    return [
        # a resource might depend on node labels for topology filtering
        ClusterEventWithHint(ClusterEvent(EventResource.Node, node_actions)),
        # allocation is tracked in ResourceClaims: any change may make pods schedulable
        ClusterEventWithHint(
            ClusterEvent(RESOURCE_CLAIM, add_or_update),
            plugin.is_schedulable_after_claim_change,
            lambda old, new: claim_event_pods(plugin, old, new),
        ),
        # the generated claim's name in the pod status lets a waiting pod in
        ClusterEventWithHint(
            ClusterEvent(EventResource.Pod, ActionType.UpdatePodGeneratedResourceClaim),
            plugin.is_schedulable_after_pod_change,
            pod_event_pods,
        ),
        # a pod might wait for a class to be created or changed
        ClusterEventWithHint(ClusterEvent(DEVICE_CLASS, add_or_update)),
        # new or changed slices might offer the devices a pod waits for
        ClusterEventWithHint(ClusterEvent(RESOURCE_SLICE, add_or_update)),
    ]


def _claims_usable(plugin: DynamicResources, pod: Pod) -> list[ResourceClaim] | None:
    try:
        return plugin.pod_resource_claims(pod)
    except ClaimUnavailableError:
        return None


def _may_name(pod: Pod, claim: ResourceClaim) -> bool:
    """Whether `claim` can be one of the pod's claims: same namespace, and its name is in
    `spec.resourceClaims` or (for a template) in `status.resourceClaimStatuses`."""
    if (claim.metadata.namespace or "default") != (pod.metadata.namespace or "default"):
        return False
    name = claim.metadata.name
    return any(c.resource_claim_name == name for c in pod.spec.resource_claims) or any(
        s.resource_claim_name == name for s in pod.status.resource_claim_statuses
    )


def after_claim_change(plugin: DynamicResources, pod: Pod, old: Any, new: Any) -> QueueingHint:
    """upstream isSchedulableAfterClaimChange: a claim of the pod created or with a new
    status, or any claim deallocated (its devices are free)."""
    if not isinstance(new, ResourceClaim):
        return QueueingHint.Queue
    deallocated = _deallocated(old, new)
    if not deallocated and not _may_name(pod, new):
        # the answer upstream reaches after looking up all the pod's claims, found at once
        # (a claim event is offered to every waiting pod)
        return QueueingHint.QueueSkip
    claims = _claims_usable(plugin, pod)
    if claims is None:
        return QueueingHint.QueueSkip
    if deallocated:
        return QueueingHint.Queue
    if not any(c.metadata.uid == new.metadata.uid for c in claims):
        return QueueingHint.QueueSkip
    if old is None:
        return QueueingHint.Queue
    # only a status change matters (a finalizer added by a driver does not)
    if isinstance(old, ResourceClaim) and old.status == new.status:
        return QueueingHint.QueueSkip
    return QueueingHint.Queue


def _deallocated(old: Any, new: ResourceClaim) -> bool:
    return (
        isinstance(old, ResourceClaim)
        and old.status.allocation is not None
        and new.status.allocation is None
    )


def claim_event_pods(plugin: DynamicResources, old: Any, new: Any) -> Collection[str] | None:
    """The only pods :func:`after_claim_change` may queue for a claim event (so the queue
    does not offer every claim event to every waiting pod): all after a deallocation,
    else the pods naming the claim in their spec and the pod controlling it (a claim
    from a template is one of its pod's claims only when the pod is its controller)."""
    if not isinstance(new, ResourceClaim) or _deallocated(old, new):
        return None
    uids = set(plugin.manager.pods_naming(new))
    for claim in (old, new):
        if isinstance(claim, ResourceClaim):
            uids.update(r.uid for r in claim.metadata.owner_references if r.controller)
    return uids


def pod_event_pods(old: Any, new: Any) -> Collection[str] | None:
    """The only pod :func:`after_pod_change` may queue: the one that changed."""
    return (new.metadata.uid,) if isinstance(new, Pod) else None


def after_pod_change(plugin: DynamicResources, pod: Pod, old: Any, new: Any) -> QueueingHint:
    """upstream isSchedulableAfterPodChange: the pod itself now has all its claims."""
    if not isinstance(new, Pod):
        return QueueingHint.Queue
    if new.metadata.uid != pod.metadata.uid:
        return QueueingHint.QueueSkip
    if _claims_usable(plugin, new) is None:
        return QueueingHint.QueueSkip
    return QueueingHint.Queue
