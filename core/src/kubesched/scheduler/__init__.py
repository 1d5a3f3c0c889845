"""The scheduler loop: scheduling cycles, binding cycles, informer handlers, failures.

`new_scheduler` builds one (upstream scheduler.New); `SchedulerObserver`s watch its
observation points, `SchedulingReport` (each Scheduler's `report`) keeps what reports read.
"""

from kubesched.scheduler._algorithm import (
    FAST_PATH_ENV,
    MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
    MIN_FEASIBLE_NODES_TO_FIND,
    NO_NODES_AVAILABLE,
    NoNodesAvailableError,
    ScheduleResult,
    SchedulingAlgorithm,
    StatusError,
    fast_path_enabled,
    num_feasible_nodes_to_find,
)
from kubesched.scheduler._attempt_error import AttemptError
from kubesched.scheduler._explain import Explanation, NodeExplanation
from kubesched.scheduler._explain_cycle import CycleExplainer
from kubesched.scheduler._factory import new_scheduler
from kubesched.scheduler._observers import ObserverList, SchedulerObserver
from kubesched.scheduler._recorder import ClusterEventRecorder
from kubesched.scheduler._report import (
    KEEP_ALL,
    RUN_RETENTION,
    AttemptRecord,
    Retention,
    SchedulerStats,
    SchedulingReport,
)
from kubesched.scheduler._scheduler import Scheduler

__all__ = [
    "FAST_PATH_ENV",
    "KEEP_ALL",
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "NO_NODES_AVAILABLE",
    "RUN_RETENTION",
    "AttemptError",
    "AttemptRecord",
    "ClusterEventRecorder",
    "CycleExplainer",
    "Explanation",
    "NoNodesAvailableError",
    "NodeExplanation",
    "ObserverList",
    "Retention",
    "ScheduleResult",
    "Scheduler",
    "SchedulerObserver",
    "SchedulerStats",
    "SchedulingAlgorithm",
    "SchedulingReport",
    "StatusError",
    "fast_path_enabled",
    "new_scheduler",
    "num_feasible_nodes_to_find",
]
