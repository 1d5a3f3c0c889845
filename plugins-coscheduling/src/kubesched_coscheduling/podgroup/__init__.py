"""The PodGroup kind, its members, its status controller."""

from kubesched_coscheduling.podgroup.controller import (
    CONTROLLER_NAME,
    PodGroupController,
    compute_status,
)
from kubesched_coscheduling.podgroup.members import MemberCounts, MemberIndex, is_live, is_ungated
from kubesched_coscheduling.podgroup.status import set_condition, update_status
from kubesched_coscheduling.podgroup.types import (
    CONDITION_SCHEDULED,
    DEFAULT_WAIT_SECONDS,
    PHASE_FAILED,
    PHASE_FINISHED,
    PHASE_PENDING,
    PHASE_RUNNING,
    PHASE_SCHEDULED,
    PHASE_SCHEDULING,
    PHASE_UNKNOWN,
    POD_GROUP_KIND_INFO,
    PodGroup,
    PodGroupCondition,
    PodGroupSpec,
    PodGroupStatus,
    group_key,
    pod_group_key,
    pod_group_name,
    wait_seconds,
)

__all__ = [
    "CONDITION_SCHEDULED",
    "CONTROLLER_NAME",
    "DEFAULT_WAIT_SECONDS",
    "PHASE_FAILED",
    "PHASE_FINISHED",
    "PHASE_PENDING",
    "PHASE_RUNNING",
    "PHASE_SCHEDULED",
    "PHASE_SCHEDULING",
    "PHASE_UNKNOWN",
    "POD_GROUP_KIND_INFO",
    "MemberCounts",
    "MemberIndex",
    "PodGroup",
    "PodGroupCondition",
    "PodGroupController",
    "PodGroupSpec",
    "PodGroupStatus",
    "compute_status",
    "group_key",
    "is_live",
    "is_ungated",
    "pod_group_key",
    "pod_group_name",
    "set_condition",
    "update_status",
    "wait_seconds",
]
