"""The Job controller of the embedded cluster.

upstream: pkg/controller/job/job_controller.go (syncJob, manageJob, getNewFinishedPods,
the backoff of getRemainingTime / backoffRecord) and pkg/registry/batch/job/strategy.go
(generateSelector: the pods' job-name and controller-uid labels). A Job keeps
`min(parallelism, completions - succeeded)` active pods named `<job>-<5 random characters>`
(`<job>-<index>-<...>` for an Indexed Job, one per pending index) until `completions` pods
have succeeded (Complete), or until more than `backoffLimit` have failed (Failed,
BackoffLimitExceeded; its active pods are deleted); a pod deleted before it finished
(preempted, or its node gone) counts as failed, as upstream's pod tracking counts it. After
a failure, new pods wait out the pod failure backoff: 10 s doubled per failure, at most 6
minutes.

`spec.suspend` (upstream manageJob, syncJob): a suspended Job deletes its active pods (not
counted as failed) and makes none; its `Suspended` condition is True (`JobSuspended`, `Job
suspended`), and turns False (`JobResumed`, `Job resumed`) when it is resumed, which
restarts its startTime. `spec.activeDeadlineSeconds` (pastActiveDeadline): once a Job not
suspended has been active that long since its startTime, its active pods are deleted and it
fails (`DeadlineExceeded`, `Job was active longer than specified deadline`); the backoff
limit is looked at first. As upstream's recorder, the controller records Events: Normal
`Suspended` and `Resumed` when the condition changes, Normal `Completed` (`Job completed`),
and a Warning with the failure's reason and message.

Pods finish through the pod lifecycle (`kubesched.workloads.PodLifecycle`): a Job's pods run
for the duration in their template's `simulation.kubesched.io/duration` annotation or, when
the template has none, in the Job's own; a Job whose pods have neither never completes.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any, Final

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched.workloads._labels import (
    COMPLETION_INDEX,
    CONTROLLER_UID,
    DURATION_ANNOTATION,
    JOB_NAME,
    LEGACY_CONTROLLER_UID,
    LEGACY_JOB_NAME,
    RESULT_ANNOTATION,
)
from kubesched.workloads._models import Job, JobCondition, JobStatus
from kubesched.workloads._pods import controller_of, is_active, pod_from_template
from kubesched.workloads._reconciler import Reconciler

__all__ = ["BACKOFF_BASE", "BACKOFF_MAX", "JobController", "backoff_delay"]


BACKOFF_BASE: Final = 10.0
"""upstream DefaultJobPodFailureBackOff."""
BACKOFF_MAX: Final = 360.0
"""upstream MaxJobPodFailureBackOff."""


def backoff_delay(failures: int) -> float:
    """Seconds new pods wait after the `failures`-th failure (0 when none failed)."""
    if failures <= 0:
        return 0.0
    return min(BACKOFF_BASE * 2.0 ** (failures - 1), BACKOFF_MAX)


class JobController(Reconciler):
    """Runs each Job's pods to completion or to its backoff limit."""

    name = "job"
    kind = "Job"

    def __init__(self) -> None:
        super().__init__()
        self._failures: dict[str, tuple[int, float]] = {}
        """Job uid -> (failed pods seen, loop time the last new failure was seen)."""
        self._lost: dict[str, int] = {}
        """Job uid -> its pods deleted before they finished (preempted, evicted ...)."""
        self._released: set[str] = set()
        """Uids of pods a suspended Job deleted: their deletion is no failure."""

    def _on_pod(self, ev: WatchEvent) -> None:
        # upstream (pod tracking with finalizers): a pod deleted before it finished counts
        # as failed, and so toward the backoff limit; one deleted for a suspension does not
        # (deleteJobPods removes its tracking finalizer first)
        pod: Pod = ev.obj
        if ev.type == "DELETED" and not pod.is_terminal:
            ref = controller_of(pod)
            if pod.metadata.uid in self._released:
                self._released.discard(pod.metadata.uid)
            elif ref is not None and ref.kind == self.kind:
                self._lost[ref.uid] = self._lost.get(ref.uid, 0) + 1
        super()._on_pod(ev)

    async def sync(self, obj: Any) -> None:
        job: Job = obj
        if job.finished:
            return
        pods = self.pods_of(job)
        active = [p for p in pods if is_active(p)]
        succeeded = [p for p in pods if p.status.phase == "Succeeded"]
        failed = sum(1 for p in pods if p.status.phase == "Failed")
        failed += self._lost.get(job.metadata.uid, 0)
        status = job.status.model_copy(
            update={"active": len(active), "succeeded": len(succeeded), "failed": failed}
        )
        spec = job.spec
        # upstream syncJob: the first start, only when not suspended
        if status.start_time is None and not spec.suspend:
            status.start_time = self._now()
        failure = None
        if failed > spec.backoff_limit:
            failure = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
        elif self._past_deadline(job, status):
            failure = ("DeadlineExceeded", "Job was active longer than specified deadline")
        if failure is not None:
            for pod in active:
                await self.delete_pod(pod)
            status = self._finish(status, "Failed", *failure)
            await self.write_status(job, status.model_copy(update={"active": 0}))
            # upstream recordJobFinished
            await self.record(job, "Warning", *failure)
            return
        indexed = spec.completion_mode == "Indexed"
        done_indexes = {_index(p) for p in succeeded} if indexed else set()
        if _complete(spec.completions, succeeded, active, done_indexes, indexed):
            status = self._finish(
                status,
                "Complete",
                "CompletionsReached",
                "Reached expected number of succeeded pods",
            )
            status.completion_time = status.conditions[-1].last_transition_time
            await self.write_status(job, status)
            await self.record(job, "Normal", "Completed", "Job completed")
            return
        if spec.suspend:
            # upstream manageJob: a suspended Job deletes all its active pods
            for pod in active:
                self._released.add(pod.metadata.uid)
                await self.delete_pod(pod)
            status.active = 0
        else:
            wanted = self._wanted(job, len(succeeded), len(active))
            if wanted > len(active) and not self._backing_off(job, failed):
                await self._create(job, wanted - len(active), active, done_indexes)
        new = self._suspended_condition(job, status)
        await self.write_status(job, new)
        if new.conditions != status.conditions:
            # upstream syncJob, when the Suspended condition changes
            if job.spec.suspend:
                await self.record(job, "Normal", "Suspended", "Job suspended")
            else:
                await self.record(job, "Normal", "Resumed", "Job resumed")

    def _past_deadline(self, job: Job, status: JobStatus) -> bool:
        """upstream pastActiveDeadline; when the deadline is still ahead, the Job is synced
        again when it passes."""
        deadline = job.spec.active_deadline_seconds
        now = self._now()
        if deadline is None or status.start_time is None or job.spec.suspend or now is None:
            return False
        remaining = deadline - (now - status.start_time).total_seconds()
        if remaining <= 0:
            return True
        self.enqueue_after(job, remaining)
        return False

    def _suspended_condition(self, job: Job, status: JobStatus) -> JobStatus:
        """upstream syncJob's ensureJobConditionStatus for JobSuspended: True while
        suspended; False once resumed (no condition when it never was suspended), and a
        resumed Job starts again (startTime reset, so its deadline counts from now)."""
        if job.spec.suspend:
            wanted = ("True", "JobSuspended", "Job suspended")
        else:
            wanted = ("False", "JobResumed", "Job resumed")
        current = next((c for c in status.conditions if c.type == "Suspended"), None)
        if current is None and not job.spec.suspend:
            return status
        if current is not None and (current.status, current.reason, current.message) == wanted:
            return status
        now = self._now()
        condition = JobCondition(
            type="Suspended",
            status=wanted[0],
            reason=wanted[1],
            message=wanted[2],
            last_transition_time=now,
        )
        if current is None:
            conditions = [*status.conditions, condition]
        else:  # replaced where it was, as upstream overwrites the condition
            conditions = [condition if c is current else c for c in status.conditions]
        update: dict[str, Any] = {"conditions": conditions}
        if not job.spec.suspend:
            update["start_time"] = now
        return status.model_copy(update=update)

    def _wanted(self, job: Job, succeeded: int, active: int) -> int:
        """upstream manageJob's wantActive."""
        parallelism = job.spec.parallelism or 0
        completions = job.spec.completions
        if completions is None:  # a work queue: no new pods once one succeeded
            return active if succeeded > 0 else parallelism
        return max(min(parallelism, completions - succeeded), 0)

    def _backing_off(self, job: Job, failed: int) -> bool:
        """Whether new pods must still wait after the last failure; schedules the resync."""
        if failed == 0:
            return False
        loop = asyncio.get_running_loop()
        uid = job.metadata.uid
        seen, at = self._failures.get(uid, (0, loop.time()))
        if failed > seen:
            seen, at = failed, loop.time()
            self._failures[uid] = (seen, at)
        remaining = at + backoff_delay(failed) - loop.time()
        if remaining <= 0:
            return False
        self.enqueue_after(job, remaining)
        return True

    async def _create(
        self, job: Job, count: int, active: list[Pod], done_indexes: set[int]
    ) -> None:
        meta = job.metadata
        labels = {
            CONTROLLER_UID: meta.uid,
            JOB_NAME: meta.name,
            LEGACY_CONTROLLER_UID: meta.uid,
            LEGACY_JOB_NAME: meta.name,
        }
        # the Job's own duration and result are its pods' defaults
        annotations: dict[str, str] = {
            k: meta.annotations[k]
            for k in (DURATION_ANNOTATION, RESULT_ANNOTATION)
            if k in meta.annotations and k not in job.template.metadata.annotations
        }
        if job.spec.completion_mode != "Indexed":
            for _ in range(count):
                pod = pod_from_template(
                    job.template,
                    job,
                    generate_name=f"{meta.name}-",
                    labels=labels,
                    annotations=annotations,
                )
                await self.create_pod(pod)
            return
        busy = {_index(p) for p in active} | done_indexes
        pending = [i for i in range(job.spec.completions or 0) if i not in busy]
        for index in pending[:count]:
            extra = {COMPLETION_INDEX: str(index)}
            pod = pod_from_template(
                job.template,
                job,
                generate_name=f"{meta.name}-{index}-",
                labels={**labels, **extra},
                annotations={**annotations, **extra},
            )
            await self.create_pod(pod)

    def _finish(self, status: JobStatus, type_: str, reason: str, message: str) -> JobStatus:
        now = self._now()
        conditions = [
            *status.conditions,
            JobCondition(type=type_, reason=reason, message=message, last_transition_time=now),
        ]
        return status.model_copy(update={"conditions": conditions})

    def _now(self) -> datetime | None:
        clock = getattr(self.cluster, "clock", None)
        return clock.wall_time() if clock is not None else None


def _index(pod: Pod) -> int:
    try:
        return int(pod.metadata.annotations.get(COMPLETION_INDEX, "-1"))
    except ValueError:
        return -1


def _complete(
    completions: int | None,
    succeeded: list[Pod],
    active: list[Pod],
    done_indexes: set[int],
    indexed: bool,
) -> bool:
    if completions is None:  # upstream: a success and no pod left running
        return bool(succeeded) and not active
    if indexed:
        return all(i in done_indexes for i in range(completions))
    return len(succeeded) >= completions
