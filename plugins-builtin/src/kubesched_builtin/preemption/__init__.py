"""The generic preemption evaluator (upstream pkg/scheduler/framework/preemption), which a
PostFilter plugin drives with its own policy; DefaultPreemption is the default one."""

from kubesched_builtin.preemption.candidate import (
    Candidate,
    MoreImportantPodFunc,
    ScoreFunc,
    Victims,
    by_importance,
    earliest_start_time_of_highest_priority,
    importance_key,
    more_important_pod,
    pick_one_node_for_preemption,
    pod_start_time,
)
from kubesched_builtin.preemption.evaluator import (
    DISRUPTION_TARGET,
    PDB_KIND_NAME,
    PREEMPTION_BY_SCHEDULER,
    Evaluator,
    PreemptionInterface,
)

__all__ = [
    "DISRUPTION_TARGET",
    "PDB_KIND_NAME",
    "PREEMPTION_BY_SCHEDULER",
    "Candidate",
    "Evaluator",
    "MoreImportantPodFunc",
    "PreemptionInterface",
    "ScoreFunc",
    "Victims",
    "by_importance",
    "earliest_start_time_of_highest_priority",
    "importance_key",
    "more_important_pod",
    "pick_one_node_for_preemption",
    "pod_start_time",
]
