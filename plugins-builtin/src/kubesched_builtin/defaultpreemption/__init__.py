"""DefaultPreemption: the PostFilter plugin that preempts lower-priority pods."""

from kubesched_builtin.defaultpreemption.args import DefaultPreemptionArgs
from kubesched_builtin.defaultpreemption.pdb import filter_pods_with_pdb_violation
from kubesched_builtin.defaultpreemption.plugin import (
    NO_VICTIMS,
    NOT_ELIGIBLE_NEVER,
    NOT_ELIGIBLE_TERMINATING,
    DefaultPreemption,
    IsEligiblePodFunc,
    pod_terminating_by_preemption,
)

__all__ = [
    "NOT_ELIGIBLE_NEVER",
    "NOT_ELIGIBLE_TERMINATING",
    "NO_VICTIMS",
    "DefaultPreemption",
    "DefaultPreemptionArgs",
    "IsEligiblePodFunc",
    "filter_pods_with_pdb_violation",
    "pod_terminating_by_preemption",
]
