"""What a failed attempt becomes: the pod back in the queue, its condition, a log line.

Upstream: pkg/scheduler/schedule_one.go (handleSchedulingFailure; a rejection on the
chosen node, in Reserve, Permit or PreBind, reported as a FitError over that node). The
loop (`_scheduler`) calls these in that order; the Event, the status write and the
observers stay with it.
"""

from __future__ import annotations

import logging
from typing import Final

from kubesched._errors import KubeschedError
from kubesched.api import POD_SCHEDULED, Pod, PodCondition
from kubesched.cluster import Cluster
from kubesched.framework import (
    Diagnosis,
    FitError,
    NominatingInfo,
    NominatingMode,
    PodInfo,
    QueuedPodInfo,
    Status,
)
from kubesched.queue import SchedulingQueue
from kubesched.scheduler._attempt_error import raised_exception

__all__ = [
    "CLEAR_NOMINATION",
    "failure_condition",
    "log_error",
    "nominated_node",
    "requeue",
    "single_node_failure",
    "update_pod",
]

_log = logging.getLogger("kubesched.scheduler")

REASON_UNSCHEDULABLE: Final = "Unschedulable"
REASON_SCHEDULER_ERROR: Final = "SchedulerError"

CLEAR_NOMINATION: Final = NominatingInfo("", NominatingMode.Override)
"""A failure that clears the pod's nominated node."""


def single_node_failure(pod: Pod, host: str, status: Status) -> Status:
    """A rejection on the chosen node becomes a FitError over that one node."""
    if not status.is_rejected:
        return status
    diagnosis = Diagnosis()
    diagnosis.node_to_status.set(host, status)
    diagnosis.add_plugin_status(status)
    if status.plugin:
        diagnosis.unschedulable_plugins.add(status.plugin)
    return Status(status.code, error=FitError(pod, 1, diagnosis), plugin=status.plugin)


def requeue(
    queue: SchedulingQueue,
    cluster: Cluster,
    qpi: QueuedPodInfo,
    status: Status,
    nominating: NominatingInfo | None,
) -> None:
    """The pod back among the unschedulable pods, with the plugins that rejected it (their
    events can move it), unless it is gone or bound meanwhile; then its nomination."""
    error = status.error
    if isinstance(error, FitError):
        qpi.unschedulable_plugins = set(error.diagnosis.unschedulable_plugins)
        qpi.pending_plugins = set(error.diagnosis.pending_plugins)
    else:
        qpi.unschedulable_plugins = set()
        qpi.pending_plugins = set()
    pod = qpi.pod
    current = cluster.get("Pod", pod.metadata.name, pod.metadata.namespace)
    if current is None or current.spec.node_name:
        queue.done(pod.metadata.uid)
    else:
        qpi.pod_info = PodInfo(current)
        queue.add_unschedulable_if_not_present(qpi, queue.scheduling_cycle)
    if nominating is not None:
        queue.add_nominated_pod(qpi.pod_info, nominating)


def log_error(pod: Pod, status: Status) -> None:
    """An Error (not a rejection), logged with its traceback."""
    # upstream logs this at error level (utilruntime.HandleErrorWithContext); the
    # condition, the Event and simulate's report already carry it, so the log line
    # (with the traceback) is for debugging
    _log.debug(
        'Error scheduling pod; retrying pod="%s" err="%s"',
        pod.key,
        status.message(),
        exc_info=raised_exception(status),
    )


def failure_condition(status: Status) -> PodCondition:
    """The PodScheduled=False condition a failed attempt writes."""
    reason = REASON_UNSCHEDULABLE if status.is_rejected else REASON_SCHEDULER_ERROR
    return PodCondition(type=POD_SCHEDULED, status="False", reason=reason, message=status.message())


def nominated_node(nominating: NominatingInfo | None) -> str | None:
    """The nominated node the status write sets, when the failure overrides it."""
    if nominating is not None and nominating.mode is NominatingMode.Override:
        return nominating.nominated_node_name
    return None


async def update_pod(
    cluster: Cluster, pod: Pod, condition: PodCondition, nominated_node_name: str | None
) -> None:
    """Write the failed attempt's condition and nomination; a write that fails is logged
    and dropped (schedule_one.go handleSchedulingFailure: "Error updating pod")."""
    try:
        await cluster.update_pod_condition(pod, condition, nominated_node_name)
    except KubeschedError as exc:  # the cluster's errors (ApiError is one)
        _log.error("Error updating pod %s: %s", pod.key, exc)
