"""A Job's `suspend` and `activeDeadlineSeconds` (upstream pkg/controller/job/job_controller.go:
manageJob deletes a suspended Job's active pods, syncJob keeps its Suspended condition and
restarts its startTime on resume, pastActiveDeadline fails it with DeadlineExceeded)."""

from __future__ import annotations

import asyncio
from datetime import datetime

from workload_harness import bind_all, new_cluster, pods_of, run, settle

from kubesched.api import Pod
from kubesched.cluster.memory import MemoryCluster
from kubesched.workloads import Job
from kubesched.workloads._report import workloads_section

EPOCH = datetime.fromisoformat("2026-01-01T00:00:00+00:00")

JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: crunch}
spec:
  parallelism: 2
  completions: 4
  %s
  template:
    metadata: {annotations: {simulation.kubesched.io/duration: 30s}}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""


def job_of(cluster: MemoryCluster) -> Job:
    """The Job `crunch` as the cluster holds it now."""
    job = cluster.get("Job", "crunch", "default")
    assert isinstance(job, Job)
    return job


async def set_suspend(cluster: MemoryCluster, suspend: bool) -> None:
    job = job_of(cluster)
    await cluster.update(
        job.model_copy(update={"spec": job.spec.model_copy(update={"suspend": suspend})})
    )


def conditions(job: Job) -> list[tuple[str, str, str, str]]:
    return [(c.type, c.status, c.reason, c.message) for c in job.status.conditions]


def message_of(job: Job) -> str:
    """The Workloads report's message for `job` alone."""
    cluster, loop = new_cluster()
    loop.close()
    cluster.create_many([job])
    section = workloads_section(cluster)
    assert section is not None
    [entry] = section.payload
    message: str = entry["message"]
    return message


def events(cluster: MemoryCluster) -> list[tuple[str, str, str]]:
    """The Job's Events: (type, reason, message), in order."""
    return [(e.type, e.reason, e.message) for e in cluster.events() if e.involved_kind == "Job"]


def seconds(when: datetime | None) -> float:
    assert when is not None
    return (when - EPOCH).total_seconds()


def test_a_suspended_job_makes_no_pods_until_it_is_resumed() -> None:
    recorded: list[tuple[str, str, str]] = []

    async def work(cluster: MemoryCluster) -> tuple[Job, int, Job, int, float]:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(50)
        await settle(cluster)
        suspended = job_of(cluster)
        before = len(pods_of(cluster, "crunch-"))
        resumed_at = loop.time()
        await set_suspend(cluster, False)
        await settle(cluster, step=0.001, limit=0.01)
        recorded.extend(events(cluster))
        return suspended, before, job_of(cluster), len(pods_of(cluster, "crunch-")), resumed_at

    suspended, before, resumed, after, resumed_at = run(JOB % "suspend: true", work)
    assert recorded == [
        ("Normal", "Suspended", "Job suspended"),
        ("Normal", "Resumed", "Job resumed"),
    ]
    assert before == 0
    assert message_of(suspended) == "Suspended: Job suspended"
    assert suspended.status.start_time is None
    assert conditions(suspended) == [("Suspended", "True", "JobSuspended", "Job suspended")]
    assert after == 2
    assert conditions(resumed) == [("Suspended", "False", "JobResumed", "Job resumed")]
    # resuming starts the Job: its startTime is the resume's time
    assert seconds(resumed.status.start_time) == int(resumed_at)


def test_suspending_a_running_job_deletes_its_pods_without_counting_failures() -> None:
    async def work(cluster: MemoryCluster) -> tuple[Job, int, int, Job]:
        await bind_all(cluster, ["n1"])
        await asyncio.sleep(10)
        await set_suspend(cluster, True)
        await settle(cluster, limit=60)  # the bound pods' grace period runs out
        suspended = job_of(cluster)
        left = [p for p in pods_of(cluster, "crunch-") if not p.is_terminal]
        await set_suspend(cluster, False)
        await settle(cluster, step=0.001, limit=0.01)
        return suspended, len(left), len(pods_of(cluster, "crunch-")), job_of(cluster)

    suspended, left, after, resumed = run(JOB % "", work)
    assert left == 0
    assert suspended.status.failed == 0 and suspended.status.active == 0
    assert conditions(suspended) == [("Suspended", "True", "JobSuspended", "Job suspended")]
    # no failure, so no backoff: two new pods at once
    assert after == 2
    assert resumed.status.failed == 0


# pods bound as they are made (no scheduler here), so they run from their creation
BOUND = JOB.replace("restartPolicy: Never", "restartPolicy: Never\n      nodeName: n1")


def test_a_job_active_past_its_deadline_fails_and_loses_its_pods() -> None:
    recorded: list[tuple[str, str, str]] = []

    async def work(cluster: MemoryCluster) -> tuple[Job, list[Pod]]:
        await settle(cluster, limit=120)
        running = [p for p in pods_of(cluster, "crunch-") if not p.is_terminal]
        recorded.extend(events(cluster))
        return job_of(cluster), running

    # rounds of 30 s: two pods succeed at 30 s; the next two run when the deadline hits
    job, running = run(BOUND % "activeDeadlineSeconds: 45", work)
    assert conditions(job)[-1] == (
        "Failed",
        "True",
        "DeadlineExceeded",
        "Job was active longer than specified deadline",
    )
    assert seconds(job.status.conditions[-1].last_transition_time) == 45
    assert job.status.succeeded == 2 and job.status.active == 0
    assert running == []  # deleted (and gone once their grace period ran out)
    assert recorded == [
        ("Warning", "DeadlineExceeded", "Job was active longer than specified deadline")
    ]


def test_a_completed_job_records_it() -> None:
    async def work(cluster: MemoryCluster) -> tuple[Job, list[tuple[str, str, str]]]:
        await settle(cluster, limit=200)
        return job_of(cluster), events(cluster)

    job, recorded = run(BOUND % "", work)
    assert conditions(job)[-1][0] == "Complete"
    assert recorded == [("Normal", "Completed", "Job completed")]


def test_the_deadline_counts_from_the_resume_not_while_suspended() -> None:
    async def work(cluster: MemoryCluster) -> tuple[Job, Job, float]:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(100)  # suspended: a deadline of 60 s does not run out
        await settle(cluster)
        early = job_of(cluster)
        resumed_at = loop.time()
        await set_suspend(cluster, False)
        await settle(cluster, limit=200)
        return early, job_of(cluster), resumed_at

    early, job, resumed_at = run(BOUND % "suspend: true\n  activeDeadlineSeconds: 60", work)
    assert [c[0] for c in conditions(early)] == ["Suspended"]
    assert early.status.start_time is None
    failed = job.status.conditions[-1]
    assert (failed.type, failed.reason) == ("Failed", "DeadlineExceeded")
    # 60 s after the resume (not after the creation), once two pods had succeeded
    assert seconds(failed.last_transition_time) == resumed_at + 60
    assert job.status.succeeded == 2
