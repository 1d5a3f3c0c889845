"""The PodGroup kind (`scheduling.x-k8s.io/v1alpha1`) and how pods join one.

Upstream: kubernetes-sigs/scheduler-plugins apis/scheduling/v1alpha1/types.go and
pkg/util/podgroup.go. A PodGroup names how many of its pods must be placed together
(`minMember`); a pod joins the PodGroup of its own namespace named by its
`scheduling.x-k8s.io/pod-group` label. Manifests written for scheduler-plugins load
unchanged: fields this package does not read are ignored, as for every kind.

Differences from upstream's types, all additive: `status.scheduled` (removed upstream in
2023) is back with a precise meaning (members bound to a node), the `Scheduled` phase is
used, and `status.conditions` carries the scheduler's reasons.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final, Literal

from pydantic import Field

from kubesched.api import K8sModel, KindInfo, ObjectMeta, Pod, ResourceList
from kubesched_coscheduling.names import (
    API_VERSION,
    POD_GROUP_KIND,
    POD_GROUP_LABEL,
    POD_GROUP_PLURAL,
)

__all__ = [
    "CONDITION_SCHEDULED",
    "DEFAULT_WAIT_SECONDS",
    "PHASE_FAILED",
    "PHASE_FINISHED",
    "PHASE_PENDING",
    "PHASE_RUNNING",
    "PHASE_SCHEDULED",
    "PHASE_SCHEDULING",
    "PHASE_UNKNOWN",
    "POD_GROUP_KIND_INFO",
    "PodGroup",
    "PodGroupCondition",
    "PodGroupSpec",
    "PodGroupStatus",
    "group_key",
    "pod_group_key",
    "pod_group_name",
    "wait_seconds",
]

PHASE_PENDING: Final = "Pending"
"""Fewer than minMember members exist (or are ungated)."""
PHASE_SCHEDULING: Final = "Scheduling"
"""Enough members exist; fewer than minMember are bound."""
PHASE_SCHEDULED: Final = "Scheduled"
"""At least minMember members are bound; fewer than minMember run or have succeeded."""
PHASE_RUNNING: Final = "Running"
"""At least minMember members run (or have succeeded)."""
PHASE_FINISHED: Final = "Finished"
"""At least minMember members succeeded. Terminal."""
PHASE_FAILED: Final = "Failed"
"""Members failed and the members that did not fail are fewer than minMember."""
PHASE_UNKNOWN: Final = "Unknown"
"""Declared for compatibility; never set (as upstream)."""

CONDITION_SCHEDULED: Final = "Scheduled"
"""The condition the scheduler writes: False with a reason while the group cannot be
placed (Unschedulable, WaitingForQuorum, WaitingForReservation, BackingOff), True with
reason QuorumReached once minMember members passed Permit (never set back to False)."""

DEFAULT_WAIT_SECONDS: Final = 60
"""The Permit wait when neither the PodGroup nor the args give one (util.DefaultWaitTime)."""


class PodGroupSpec(K8sModel):
    min_member: int = Field(default=1, ge=1)
    """How many members must be placed together; the CRD requires at least 1."""
    min_resources: ResourceList | None = None
    """Free capacity the whole cluster must have (summed over nodes) before a member is
    tried; `pods: minMember` is added implicitly."""
    schedule_timeout_seconds: int | None = Field(default=None, ge=0)
    """How long members wait at Permit for the quorum; 0 or unset means the plugin's
    `permitWaitingTimeSeconds`."""


class PodGroupCondition(K8sModel):
    type: str
    status: Literal["True", "False", "Unknown"]
    reason: str = ""
    message: str = ""
    last_transition_time: datetime | None = None


class PodGroupStatus(K8sModel):
    phase: str = ""
    occupied_by: str = ""
    """`namespace/ownerName` of the members' owners, comma-separated."""
    scheduled: int = 0
    """Members bound to a node (whatever their phase)."""
    running: int = 0
    succeeded: int = 0
    failed: int = 0
    schedule_start_time: datetime | None = None
    """When the group first had enough members to be scheduled."""
    conditions: list[PodGroupCondition] = Field(default_factory=list)

    def condition(self, type_: str) -> PodGroupCondition | None:
        return next((c for c in self.conditions if c.type == type_), None)


class PodGroup(K8sModel):
    """A gang: its pods are bound all together (at least `minMember` of them) or not at all."""

    api_version: str = API_VERSION
    kind: Literal["PodGroup"] = "PodGroup"
    metadata: ObjectMeta
    spec: PodGroupSpec = Field(default_factory=PodGroupSpec)
    status: PodGroupStatus = Field(default_factory=PodGroupStatus)

    @property
    def key(self) -> str:
        """`namespace/name`, the key members are counted by."""
        return group_key(self.metadata.namespace or "default", self.metadata.name)


POD_GROUP_KIND_INFO: Final = KindInfo(
    API_VERSION, POD_GROUP_KIND, POD_GROUP_PLURAL, namespaced=True, model=PodGroup
)
"""What the `kubesched_register_kinds` hook registers (short names upstream: pg, pgs)."""


def group_key(namespace: str, name: str) -> str:
    return f"{namespace}/{name}"


def pod_group_name(pod: Pod) -> str:
    """The PodGroup the pod names in its label, or "" (upstream util.GetPodGroupLabel)."""
    return pod.metadata.labels.get(POD_GROUP_LABEL, "")


def pod_group_key(pod: Pod) -> str:
    """`namespace/group` of the pod's PodGroup, or "" for a pod without the label
    (upstream util.GetPodGroupFullName)."""
    name = pod_group_name(pod)
    if not name:
        return ""
    return group_key(pod.metadata.namespace or "default", name)


def wait_seconds(pod_group: PodGroup | None, permit_waiting_time_seconds: int) -> float:
    """How long members wait at Permit: the group's `scheduleTimeoutSeconds` when set and
    non-zero, else the plugin's `permitWaitingTimeSeconds` when non-zero, else 60 s
    (upstream util.GetWaitTimeDuration)."""
    if pod_group is not None and pod_group.spec.schedule_timeout_seconds:
        return float(pod_group.spec.schedule_timeout_seconds)
    if permit_waiting_time_seconds:
        return float(permit_waiting_time_seconds)
    return float(DEFAULT_WAIT_SECONDS)
