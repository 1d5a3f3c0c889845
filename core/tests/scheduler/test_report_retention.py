"""What a report keeps of a long run (issue 18): with `kubesched run`'s retention a
deleted pod's record goes with its delete and only the latest latencies stay, so the
report's size follows the pods alive, not the pods ever tried; simulate's report (the
default) still keeps every pod's record and every latency."""

from __future__ import annotations

import asyncio

from sched_harness import CpuFit, make_simulation

from kubesched.cluster import Cluster
from kubesched.framework import Status
from kubesched.hookspecs import hookimpl
from kubesched.scheduler import KEEP_ALL, RUN_RETENTION, Retention, SchedulingReport
from kubesched.testing import make_node, make_pod

PODS = 120
LIFETIME = 5
"""Each pod is deleted this many seconds (pods) after it was created."""


class _Churn:
    """Creates a pod a virtual second and deletes the one created LIFETIME seconds before,
    checking the bounded report's size after each step."""

    name = "test-churn"

    def __init__(self, report: SchedulingReport) -> None:
        self.report = report
        self.done = False
        self.largest = 0

    def start(self, cluster: Cluster) -> None:
        async def churn() -> None:
            for i in range(PODS + LIFETIME):
                if i < PODS:
                    pod = make_pod(f"p{i}", uid="").req(cpu="1")
                    await cluster.create(pod.spec(terminationGracePeriodSeconds=0).obj())
                if i >= LIFETIME:
                    await cluster.delete("Pod", f"p{i - LIFETIME}", "default")
                await asyncio.sleep(1)
                self.largest = max(self.largest, len(self.report.records))
            self.done = True

        self.task = asyncio.get_running_loop().create_task(churn())

    def busy(self) -> bool:
        return not self.done

    @hookimpl
    def kubesched_cluster_controllers(self, cluster: Cluster) -> list[_Churn]:
        return [self]


def test_run_retention_keeps_the_alive_pods_records_and_the_latest_latencies() -> None:
    sim = make_simulation([make_node("n0").alloc(cpu="100", pods=110).obj()], [CpuFit])
    bounded = SchedulingReport(sim.clock, Retention(deleted_pods=False, latencies=16))
    run_policy = SchedulingReport(sim.clock, RUN_RETENTION)
    churn = _Churn(bounded)
    sim.pm.register(churn)
    sim.observers = [bounded, run_policy]
    sim.run()
    assert sim.scheduler is not None
    everything = sim.scheduler.report
    # simulate's own report: one record per pod ever tried, one latency per attempt
    assert everything.retention == KEEP_ALL
    assert len(everything.records) == PODS
    assert {r.result for r in everything.records.values()} == {"scheduled"}
    assert len(everything.stats.attempt_latencies) == PODS
    # run's: every pod is deleted by the end, and at most the pods alive had a record
    assert churn.largest <= LIFETIME + 1
    assert bounded.records == {} and run_policy.records == {}
    assert 16 <= len(bounded.stats.attempt_latencies) < 32
    # the counters are not trimmed
    assert bounded.stats.attempts == everything.stats.attempts == run_policy.stats.attempts
    assert bounded.stats.attempts["scheduled"] == PODS


def test_a_pod_deleted_mid_attempt_gets_no_new_record_under_run_retention() -> None:
    # the delete can be seen while the pod's attempt is still running (its binding cycle,
    # say): the failure that follows must not bring its record back
    sim = make_simulation([make_node("n0").alloc(cpu="1", pods=10).obj()], [CpuFit])
    sim.run()
    assert sim.scheduler is not None
    fwk = sim.scheduler.profiles["default-scheduler"]
    pod = make_pod("gone").obj()
    failure = Status.as_error("bind failed")
    kept, run_report = SchedulingReport(sim.clock), SchedulingReport(sim.clock, RUN_RETENTION)
    for report in (kept, run_report):
        report.pod_deleted(pod)
        report.binding_started(pod, fwk, waiting=False)
        report.attempt_failed(pod, fwk, failure, None)
    assert run_report.records == {}
    assert run_report.stats.attempts["error"] == 1
    # simulate's report keeps what it is told, as before
    assert kept.records[pod.metadata.uid].result == "error"
