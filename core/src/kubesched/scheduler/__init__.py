"""The scheduler loop: scheduling cycles, binding cycles, informer handlers, failures."""

from kubesched.scheduler._algorithm import (
    MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
    MIN_FEASIBLE_NODES_TO_FIND,
    NO_NODES_AVAILABLE,
    NoNodesAvailableError,
    ScheduleResult,
    SchedulingAlgorithm,
    StatusError,
    num_feasible_nodes_to_find,
)
from kubesched.scheduler._attempt_error import AttemptError
from kubesched.scheduler._explain import Explanation, NodeExplanation
from kubesched.scheduler._explain_cycle import CycleExplainer
from kubesched.scheduler._recorder import ClusterEventRecorder
from kubesched.scheduler._scheduler import AttemptRecord, Scheduler, SchedulerStats

__all__ = [
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "NO_NODES_AVAILABLE",
    "AttemptError",
    "AttemptRecord",
    "ClusterEventRecorder",
    "CycleExplainer",
    "Explanation",
    "NoNodesAvailableError",
    "NodeExplanation",
    "ScheduleResult",
    "Scheduler",
    "SchedulerStats",
    "SchedulingAlgorithm",
    "StatusError",
    "num_feasible_nodes_to_find",
]
