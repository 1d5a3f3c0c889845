"""The Coscheduling plugin: gang scheduling of PodGroup members."""

from kubesched_coscheduling.coscheduling.args import (
    DEFAULT_MAX_BACKOFF_SECONDS,
    CoschedulingArgs,
    group_backoff_seconds,
)
from kubesched_coscheduling.coscheduling.conditions import (
    BACKING_OFF,
    QUORUM_REACHED,
    UNSCHEDULABLE,
    WAITING_FOR_QUORUM,
    WAITING_FOR_RESERVATION,
)
from kubesched_coscheduling.coscheduling.feasibility import Plan, pack
from kubesched_coscheduling.coscheduling.permits import PODS_TO_ACTIVATE_KEY
from kubesched_coscheduling.coscheduling.plugin import STATE_KEY, Coscheduling
from kubesched_coscheduling.coscheduling.preemption import GangVictimGuard, protection_reason
from kubesched_coscheduling.coscheduling.resources import (
    check_cluster_resource,
    min_resources_request,
)

__all__ = [
    "BACKING_OFF",
    "DEFAULT_MAX_BACKOFF_SECONDS",
    "PODS_TO_ACTIVATE_KEY",
    "QUORUM_REACHED",
    "STATE_KEY",
    "UNSCHEDULABLE",
    "WAITING_FOR_QUORUM",
    "WAITING_FOR_RESERVATION",
    "Coscheduling",
    "CoschedulingArgs",
    "GangVictimGuard",
    "Plan",
    "check_cluster_resource",
    "group_backoff_seconds",
    "min_resources_request",
    "pack",
    "protection_reason",
]
