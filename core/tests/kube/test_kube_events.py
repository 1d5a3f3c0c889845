"""Events against the fake API server, as kube-scheduler v1.34 writes them.

Found on a real kube-apiserver (500 nodes, 2000 pending pods): Scheduled events lagged far
behind bindings, queued ones were lost on exit and on any error, and a write after shutdown
raised out of its task. Events now have a client of their own, series, retries, and are
flushed within the shutdown grace period (client-go tools/events event_broadcaster.go).

Needs the `kube` extra (kubernetes_asyncio and its aiohttp): skipped without it.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import (
    add_ready_node,
    eventually,
    fake_server,
    kubeconfig,
    run,
    scheduling,
)

from kubesched.cluster import EventWriteError, KubeEvent
from kubesched.cluster.kube import KubeCluster, Transport
from kubesched.cluster.memory import default_kinds
from kubesched.run import RunOptions
from kubesched.run._runner import Runner, build_runner
from kubesched.scheduler import Scheduler
from kubesched.testing.apiserver import FakeApiServer, node_raw, pod_raw

EVENTS = "events.k8s.io/v1/events"
EVENTS_PATH = "/apis/events.k8s.io/v1/namespaces/default/events"
HOST = socket.gethostname()


def events_of(server: FakeApiServer, reason: str, name: str | None = None) -> list[Any]:
    return [
        e
        for e in server.objects.get(EVENTS, {}).values()
        if e["reason"] == reason and (name is None or e["regarding"]["name"] == name)
    ]


def pods_on_a_node(server: FakeApiServer, count: int) -> None:
    """A ready node with room for `count` pods of 100m, and the pods."""
    add_ready_node(server, node_raw("n1", cpu="64", pods="110"))
    for n in range(count):
        server.add("v1/pods", pod_raw(f"p{n}", cpu="100m"))


def write_config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + text,
        encoding="utf-8",
    )
    return str(path)


async def runner_for(server: FakeApiServer, tmp_path: Path, config: str, **opts: Any) -> Runner:
    options = RunOptions(
        config=write_config(tmp_path, config),
        kubeconfig=kubeconfig(tmp_path / "kubeconfig", server.url),
        port=None,
        **opts,
    )
    return await build_runner(options)


def test_events_keep_up_while_bindings_saturate_the_scheduling_client(tmp_path: Path) -> None:
    """Each Scheduled event lands soon after its binding, while 30 bindings wait in the
    scheduling client's limiter (10 per second): events have a client of their own."""
    count = 30

    async def scenario() -> None:
        async with fake_server() as server:
            pods_on_a_node(server, count)
            config = "clientConnection: {qps: 10, burst: 1}\nleaderElection: {leaderElect: false}\n"
            runner = await runner_for(server, tmp_path, config)
            running = asyncio.ensure_future(runner.run())
            try:
                await eventually(
                    lambda: len(events_of(server, "Scheduled")) == count, "all recorded", 30
                )
            finally:
                runner.request_shutdown()
                assert await running == 0
            bound = {r.path.split("/")[-2]: r.at for r in server.requests_to("POST", "/binding")}
            written = {
                r.body["regarding"]["name"]: r.at
                for r in server.requests_to("POST", EVENTS_PATH)
                if r.body["reason"] == "Scheduled"
            }
            assert max(bound.values()) - min(bound.values()) > 2.0, "bindings were not limited"
            lags = [written[name] - at for name, at in bound.items()]
            # behind the bindings in one limiter, the first event would wait about 3 s
            assert max(lags) < 1.0, sorted(lags)
            agents = {r.user_agent for r in server.requests_to("POST", EVENTS_PATH)}
            assert len(agents) == 1 and agents.pop().endswith(" events")

    run(scenario, timeout=60)


def test_an_event_write_that_fails_is_retried_until_it_lands(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            server.add("v1/pods", pod_raw("p", cpu="1"))
            server.fail("POST", EVENTS_PATH, cut=True, times=2)
            async with scheduling(server, retry_sleep=0.05):
                await eventually(lambda: events_of(server, "Scheduled", "p") != [], "recorded")
            assert len(server.requests_to("POST", EVENTS_PATH)) == 3

    run(scenario)
    assert caplog.text.count("Unable to write event (may retry after sleeping)") == 2


def test_a_connection_error_is_worth_a_retry() -> None:
    """An API server that cannot be reached (code 0) is what the events library retries."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}"  # nothing listens once closed

    async def scenario() -> None:
        async with fake_server() as server:
            events = Transport.for_host(dead)
            cluster = KubeCluster(
                Transport.for_host(server.url), default_kinds(), events_transport=events
            )
            event = KubeEvent(
                "default", "Pod", "p", "u", "Normal", "Scheduled", "Binding", "m",
                "default-scheduler", 0.0, reporting_instance="default-scheduler-h",
            )  # fmt: skip
            try:
                with pytest.raises(EventWriteError) as caught:
                    await cluster.record_event(event)
                assert caught.value.retry and "connection failed" in str(caught.value)
            finally:
                await cluster.close()
                await events.close()

    run(scenario)


def test_repeated_failed_scheduling_of_one_pod_forms_a_series() -> None:
    """The node changes but the pod still does not fit: the same FailedScheduling four
    times. Once the pod's resourceVersion stays the same (its condition no longer changes),
    a repeat is isomorphic and patched onto the Event as `series.count` 2."""

    def set_cpu(cpu: str) -> Any:
        def change(node: dict[str, Any]) -> None:
            node["status"]["allocatable"]["cpu"] = cpu

        return change

    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="1"))
            server.add("v1/pods", pod_raw("big", cpu="2"))
            async with scheduling(server, retry_sleep=0.05) as (cluster, sched):
                attempts = 1
                for cpu in ("1500m", "1", "1200m"):
                    await eventually(
                        lambda n=attempts: attempts_of(sched, cluster) == n, f"attempt {attempts}"
                    )
                    await eventually(lambda: not sched.recorder.busy, "events written")
                    server.modify("v1/nodes", "n1", set_cpu(cpu))
                    attempts += 1
                await eventually(lambda: attempts_of(sched, cluster) == attempts, "last attempt")
                await eventually(lambda: not sched.recorder.busy, "events written")
            assert attempts == 4
            failed = events_of(server, "FailedScheduling", "big")
            assert {e["note"] for e in failed} == {"0/1 nodes are available: 1 Insufficient cpu."}
            # attempt 1 regards the pod as created; its condition write moves the pod on, so
            # attempts 2-4 regard the same resourceVersion: a series, patched once at count
            # 2; attempts 3 and 4 only count until the series finishes or is refreshed
            first, repeated = failed
            assert first["regarding"]["resourceVersion"] != repeated["regarding"]["resourceVersion"]
            assert "series" not in first and repeated["series"]["count"] == 2
            (patch,) = server.requests_to("PATCH", f"{EVENTS_PATH}/")
            assert patch.path == f"{EVENTS_PATH}/{repeated['metadata']['name']}"
            assert patch.content_type == "application/strategic-merge-patch+json"
            assert patch.body == {"series": repeated["series"]}
            assert len([r for r in server.requests_to("POST", EVENTS_PATH)]) == 2

    run(scenario, timeout=60)


def attempts_of(sched: Scheduler, cluster: KubeCluster) -> int:
    pod = cluster.get("Pod", "big", "default")
    record = None if pod is None else sched.report.records.get(pod.metadata.uid)
    return 0 if record is None else record.attempts


def test_events_queued_at_sigterm_are_written_before_exit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    count = 12

    async def scenario() -> None:
        async with fake_server() as server:
            pods_on_a_node(server, count)
            # every event's first write fails: they wait to retry when the signal comes
            server.fail("POST", EVENTS_PATH, cut=True, times=count)
            config = "leaderElection: {leaderElect: false}\n"
            runner = await runner_for(server, tmp_path, config)
            runner.scheduler.recorder.sleep_duration = 2.0  # client-go's 10 s, shortened
            running = asyncio.ensure_future(runner.run())
            await eventually(
                lambda: len(server.requests_to("POST", EVENTS_PATH)) == count, "all tried", 20
            )
            pending = runner.scheduler.recorder.pending
            runner.request_shutdown()
            assert await running == 0
            assert pending == count, "the events were written before the signal"
            assert len(events_of(server, "Scheduled")) == count

    with caplog.at_level(logging.INFO):
        run(scenario, timeout=60)
    assert "Dropped" not in caplog.text
    assert caplog.text.count("Unable to write event (may retry after sleeping)") == count
    assert "Task exception was never retrieved" not in caplog.text


def test_events_left_after_the_grace_period_are_dropped_with_a_count_and_no_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            pods_on_a_node(server, 3)
            server.fail("POST", EVENTS_PATH, cut=True, times=1000)
            config = "leaderElection: {leaderElect: false}\n"
            runner = await runner_for(server, tmp_path, config, shutdown_grace_period=0.5)
            running = asyncio.ensure_future(runner.run())
            await eventually(
                lambda: len(server.requests_to("POST", "/binding")) == 3, "all bound", 20
            )
            await eventually(lambda: len(server.requests_to("POST", EVENTS_PATH)) >= 3, "tried")
            runner.request_shutdown()
            assert await running == 0
            # written after shutdown: dropped with a line, never raised out of a task
            recorder = runner.scheduler.recorder.for_profile("default-scheduler")
            recorder.event(runner.cluster.list("Pod")[0], "Normal", "Late", "Binding", "m")
            await asyncio.sleep(0.1)

    with caplog.at_level(logging.INFO):
        run(scenario, timeout=60)
    assert "Dropped 3 event(s) not written before shutdown" in caplog.text
    assert "the event broadcaster is shut down" in caplog.text
    assert "Task exception was never retrieved" not in caplog.text
    assert "Session is closed" not in caplog.text


def test_the_leader_records_leader_election_events_on_its_lease(tmp_path: Path) -> None:
    """resourcelock LeaseLock.RecordEvent: core/v1 Events on the Lease, reason
    LeaderElection, "<identity> became leader" and, on shutdown, "<identity> stopped
    leading", from the first profile's schedulerName (options.go)."""

    async def scenario() -> None:
        async with fake_server() as server:
            config = (
                "leaderElection: {leaderElect: true, leaseDuration: 3s, renewDeadline: 2s, "
                "retryPeriod: 500ms}\n"
                "profiles: [{schedulerName: alpha}, {schedulerName: beta}]\n"
            )
            runner = await runner_for(server, tmp_path, config, identity="me")
            running = asyncio.ensure_future(runner.run())
            await eventually(lambda: runner.leading, "leading", 20)
            # the Lease as this replica acquired it (created): renewals moved it on since
            lease = next(
                obj for _, res, _, obj in server.history if res == "coordination.k8s.io/v1/leases"
            )
            acquired_rv = lease["metadata"]["resourceVersion"]
            await eventually(lambda: len(server.objects.get("v1/events", {})) == 1, "recorded")
            runner.request_shutdown()
            assert await running == 0
            became, stopped = sorted(
                server.objects["v1/events"].values(), key=lambda e: e["message"]
            )
            assert (became["message"], stopped["message"]) == (
                "me became leader",
                "me stopped leading",
            )
            assert became["involvedObject"] == {
                "kind": "Lease",
                "namespace": "kube-system",
                "name": "kube-scheduler",
                "uid": lease["metadata"]["uid"],
                "apiVersion": "coordination.k8s.io/v1",
                "resourceVersion": acquired_rv,
            }
            assert became["metadata"]["namespace"] == "kube-system"
            assert became["metadata"]["name"].startswith("kube-scheduler.")
            assert (became["type"], became["reason"]) == ("Normal", "LeaderElection")
            assert became["source"] == {"component": "alpha"}
            assert became["reportingComponent"] == "alpha" and became["count"] == 1
            assert "reportingInstance" not in became or became["reportingInstance"] == ""

    run(scenario, timeout=60)


def test_scheduled_events_report_the_profile_and_this_host() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            pod = server.add("v1/pods", pod_raw("p", cpu="1"))
            async with scheduling(server, retry_sleep=0.05):
                await eventually(lambda: events_of(server, "Scheduled", "p") != [], "recorded")
            (event,) = events_of(server, "Scheduled", "p")
            assert event["reportingController"] == "default-scheduler"
            assert event["reportingInstance"] == f"default-scheduler-{HOST}"[:128]
            assert event["regarding"] == {
                "kind": "Pod",
                "namespace": "default",
                "name": "p",
                "uid": pod["metadata"]["uid"],
                "apiVersion": "v1",
                "resourceVersion": pod["metadata"]["resourceVersion"],
            }
            assert event["action"] == "Binding" and "related" not in event

    run(scenario)
