"""`kubesched run` against the fake API server: endpoints and metrics, leader failover
between two replicas, a lost Lease, graceful shutdown (SIGTERM included), and the command.

Needs the `kube` extra (kubernetes_asyncio, prometheus_client): skipped without it.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")
pytest.importorskip("prometheus_client", reason="needs the kube extra (prometheus_client)")

import aiohttp
from click.testing import CliRunner
from kube_helpers import (
    Recorder,
    add_ready_node,
    eventually,
    fake_server,
    replica,
    run,
)

from kubesched._install import extra_hint
from kubesched.cli import cli
from kubesched.run import Runner
from kubesched.scheduler import RUN_RETENTION
from kubesched.testing.apiserver import FakeApiServer, node_raw, pod_raw

LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubesched"


def make_runner(server: FakeApiServer, identity: str, *, port: int | None = None) -> Runner:
    """A replica with short leader-election times (lease 1 s, renew 0.5 s, retry 0.2 s)."""
    return replica(server, identity, port=port)


def bound_to(server: FakeApiServer, name: str) -> str:
    pod = server.get("v1/pods", f"default/{name}")
    return "" if pod is None else str(pod.get("spec", {}).get("nodeName") or "")


def holder(server: FakeApiServer) -> str:
    lease = server.get("coordination.k8s.io/v1/leases", "kube-system/kubesched")
    return "" if lease is None else str(lease["spec"].get("holderIdentity") or "")


async def fetch(port: int, path: str) -> tuple[int, str]:
    url = f"http://127.0.0.1:{port}{path}"
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


def test_endpoints_serve_health_readiness_and_upstream_metrics(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # one unschedulable attempt: with SchedulerPopFromBackoffQ a move to backoff (below)
    # would retry too-big at once, a second attempt whose timing the wall clock decides
    monkeypatch.setenv("KUBESCHED_FEATURE_GATES", "SchedulerPopFromBackoffQ=false")

    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="2"))
            server.add("v1/pods", pod_raw("fits", cpu="1"))
            server.add("v1/pods", pod_raw("too-big", cpu="4"))
            runner = make_runner(server, "a", port=0)
            running = asyncio.get_running_loop().create_task(runner.run())
            await eventually(lambda: bound_to(server, "fits") == "n1", "fits bound")
            await eventually(
                lambda: bool(server.requests_to("PATCH", "/pods/too-big/status")), "too-big tried"
            )
            assert runner.server is not None
            port = runner.server.port
            assert await fetch(port, "/healthz") == (200, "ok")
            assert await fetch(port, "/readyz") == (200, "ok")
            status, text = await fetch(port, "/metrics")
            assert status == 200
            lines = text.splitlines()
            # integers as client_golang writes them
            assert (
                'scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"}'
                " 1" in lines
            )
            assert (
                'scheduler_schedule_attempts_total{profile="default-scheduler",'
                'result="unschedulable"} 1' in lines
            )
            assert any(
                line.startswith("scheduler_scheduling_attempt_duration_seconds_count{")
                and 'result="scheduled"' in line
                and line.endswith(" 1")
                for line in lines
            )
            assert any(
                line.startswith("scheduler_framework_extension_point_duration_seconds_count{")
                and 'extension_point="Bind"' in line
                and 'status="Success"' in line
                for line in lines
            )
            pending = {
                line.split('"')[1]: float(line.rsplit(" ", 1)[1])
                for line in lines
                if line.startswith("scheduler_pending_pods{")
            }
            # too-big failed, then the binding of `fits` (an assigned-pod event) may have
            # moved it from the unschedulable pool to backoff
            assert pending["active"] == 0 and pending["gated"] == 0
            assert pending["unschedulable"] + pending["backoff"] == 1
            runner.request_shutdown()
            assert await running == 0

    run(scenario)


def test_second_replica_is_passive_until_the_leader_shuts_down_then_takes_over() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="8"))
            loop = asyncio.get_running_loop()
            a = make_runner(server, "a")
            running_a = loop.create_task(a.run())
            await eventually(lambda: a.leading, "a leads")
            b = make_runner(server, "b")
            running_b = loop.create_task(b.run())
            server.add("v1/pods", pod_raw("first", cpu="1"))
            await eventually(lambda: bound_to(server, "first") == "n1", "first bound")
            await eventually(lambda: b.cluster.synced, "b's informers synced while passive")
            await asyncio.sleep(0.5)  # several of b's retries
            assert not b.leading and holder(server) == "a"
            agents = {r.user_agent for r in server.requests_to("POST", "/binding")}
            assert agents == {"kubesched-test/a"}

            a.request_shutdown()
            assert await running_a == 0
            await eventually(lambda: b.leading, "b takes over")
            assert holder(server) == "b"
            server.add("v1/pods", pod_raw("second", cpu="1"))
            await eventually(lambda: bound_to(server, "second") == "n1", "second bound by b")
            (last,) = [r for r in server.requests_to("POST", "/binding") if "/second/" in r.path]
            assert last.user_agent == "kubesched-test/b"
            b.request_shutdown()
            assert await running_b == 0

    run(scenario)


def test_losing_the_lease_stops_scheduling_at_once_and_exits_1() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="8"))
            loop = asyncio.get_running_loop()
            a = make_runner(server, "a")
            running_a = loop.create_task(a.run())
            await eventually(lambda: a.leading, "a leads")
            server.fail("PUT", LEASE, 500, "InternalError", "etcd is down", times=10_000)
            assert await asyncio.wait_for(running_a, 10) == 1
            assert not a.leading
            server.faults.clear()
            server.add("v1/pods", pod_raw("after", cpu="1"))
            await asyncio.sleep(0.3)
            assert bound_to(server, "after") == ""
            assert server.requests_to("POST", "/binding") == []

    run(scenario)


def test_shutdown_rolls_back_pods_waiting_at_permit_and_releases_the_lease() -> None:
    async def scenario() -> None:
        Recorder.calls = []
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            held = pod_raw("held", cpu="1")
            held["metadata"]["labels"] = {"hold": "yes"}
            server.add("v1/pods", held)
            a = make_runner(server, "a")
            running = asyncio.get_running_loop().create_task(a.run())
            await eventually(lambda: ("reserve", "held", "n1") in Recorder.calls, "held reserved")
            a.request_shutdown()
            assert await running == 0
            assert ("unreserve", "held", "n1") in Recorder.calls
            assert server.requests_to("POST", "/binding") == []
            # the failure's status write finished before the process let go
            (patch,) = server.requests_to("PATCH", "/pods/held/status")
            assert "scheduler is shutting down" in patch.body["status"]["conditions"][0]["message"]
            assert holder(server) == ""

    run(scenario)


def test_a_deleted_pods_record_leaves_the_report() -> None:
    """Issue 18: `kubesched run` keeps the records of the pods alive, not of every pod it
    ever tried, so a long run's memory stays flat."""

    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            server.add("v1/pods", pod_raw("p", cpu="1"))
            a = make_runner(server, "a")
            report = a.scheduler.report
            assert report.retention == RUN_RETENTION
            running = asyncio.get_running_loop().create_task(a.run())
            await eventually(lambda: bound_to(server, "p") == "n1", "p bound")
            await eventually(lambda: len(report.records) == 1, "p's record")
            server.remove("v1/pods", "default/p")
            await eventually(lambda: not report.records, "p's record dropped")
            assert report.stats.attempts["scheduled"] == 1
            a.request_shutdown()
            assert await running == 0

    run(scenario)


def test_sigterm_shuts_down_gracefully() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            server.add("v1/pods", pod_raw("p", cpu="1"))
            a = make_runner(server, "a")
            running = asyncio.get_running_loop().create_task(a.run())
            await eventually(lambda: bound_to(server, "p") == "n1", "p bound")
            os.kill(os.getpid(), signal.SIGTERM)  # the runner's handler is installed by now
            assert await running == 0
            assert holder(server) == ""

    run(scenario)


def test_run_help_documents_every_option() -> None:
    result = CliRunner().invoke(cli, ["run", "--help"])
    assert result.exit_code == 0
    for option in (
        "--config",
        "--kubeconfig",
        "--in-cluster",
        "--context",
        "--bind-address",
        "--port",
        "--leader-elect / --no-leader-elect",
        "--leader-elect-resource-name",
        "--leader-elect-resource-namespace",
        "--identity",
        "--shutdown-grace-period",
        "--log-level",
    ):
        assert option in result.output, option
    documented = {o for p in cli.commands["run"].params for o in p.opts}
    assert all(o in result.output for o in documented)


def test_run_without_the_kube_extra_says_what_to_install() -> None:
    code = textwrap.dedent(
        """
        import sys
        sys.modules["kubernetes_asyncio"] = None  # as if the extra were not installed
        from kubesched.cli._main import main
        sys.exit(main(["run"]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2
    # the extra's own requirements, which any package index holds
    needs = "kubesched run needs the kube extra (kubernetes_asyncio is not installed): "
    assert needs + extra_hint("kube") in done.stderr
    assert "'kubernetes-asyncio<40,>=30'" in done.stderr


def test_the_command_runs_against_a_kubeconfig_and_stops_on_sigterm(tmp_path: Path) -> None:
    pytest.importorskip("kubesched_builtin", reason="the default profile needs kubesched-builtin")
    ready = threading.Event()
    stop = threading.Event()
    holder_box: dict[str, FakeApiServer] = {}

    def serve() -> None:
        async def main() -> None:
            server = FakeApiServer()
            await server.start()
            add_ready_node(server, node_raw("n1"))
            server.add("v1/pods", pod_raw("p", cpu="1"))

            def bound_then_term(namespace: str, name: str, node: str) -> None:
                asyncio.get_running_loop().call_later(0.2, os.kill, os.getpid(), signal.SIGTERM)

            server.before_bind = bound_then_term
            holder_box["server"] = server
            ready.set()
            while not stop.is_set():
                await asyncio.sleep(0.02)
            await server.stop()

        asyncio.run(main())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(30)
    server = holder_box["server"]
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        textwrap.dedent(
            f"""
            apiVersion: v1
            kind: Config
            clusters: [{{name: fake, cluster: {{server: "{server.url}"}}}}]
            users: [{{name: u, user: {{token: secret-token}}}}]
            contexts: [{{name: c, context: {{cluster: fake, user: u}}}}]
            current-context: c
            """
        )
    )
    try:
        result = CliRunner().invoke(
            cli,
            ["run", "--kubeconfig", str(kubeconfig), "--port", "0", "--identity", "me"],
            catch_exceptions=False,
        )
    finally:
        stop.set()
        thread.join(10)
    assert result.exit_code == 0, result.output
    assert bound_to(server, "p") == "n1"
    lease = server.get("coordination.k8s.io/v1/leases", "kube-system/kube-scheduler")
    assert lease is not None and lease["spec"]["holderIdentity"] == ""  # released on SIGTERM
    (binding,) = server.requests_to("POST", "/binding")
    assert binding.user_agent.startswith("kubesched/")
    events = server.objects.get("events.k8s.io/v1/events", {})
    assert [e["reason"] for e in events.values()] == ["Scheduled"]


def test_metric_names_labels_and_buckets_are_upstreams() -> None:
    from kubesched.framework import PodInfo, QueuedPodInfo
    from kubesched.run import SchedulerMetrics, exponential_buckets, exposition
    from kubesched.testing import make_pod

    metrics = SchedulerMetrics()
    pod = make_pod("p").obj()
    metrics.kubesched_attempt_failed(pod=pod, profile="prof", code="Error", message="boom")
    metrics.kubesched_attempt_failed(
        pod=pod, profile="prof", code="UnschedulableAndUnresolvable", message="no"
    )
    metrics.attempt_started(QueuedPodInfo(PodInfo(pod), attempts=3))
    metrics.kubesched_pod_scheduled(pod=pod, node_name="n1", profile="prof")
    text = exposition(metrics.registry).decode()
    for result in ("error", "unschedulable", "scheduled"):
        assert f'scheduler_schedule_attempts_total{{profile="prof",result="{result}"}} 1\n' in text
    # only the attempt whose start was seen is timed
    assert (
        'scheduler_scheduling_attempt_duration_seconds_count{profile="prof",result="scheduled"} 1\n'
        in text
    )
    assert 'attempt_duration_seconds_count{profile="prof",result="error"}' not in text
    # a bound pod's attempts (schedule_one.go: PodSchedulingAttempts.Observe(Attempts))
    assert "scheduler_pod_scheduling_attempts_sum 3\n" in text
    # metrics.go's buckets; component-base restclient's latency buckets
    buckets = {
        metrics.attempt_duration: exponential_buckets(0.001, 2, 15),
        metrics.algorithm_duration: exponential_buckets(0.001, 2, 15),
        metrics.extension_point_duration: exponential_buckets(0.0001, 2, 12),
        metrics.pod_scheduling_attempts: exponential_buckets(1, 2, 5),
        metrics.pod_scheduling_sli_duration: exponential_buckets(0.01, 2, 20),
        metrics.permit_wait_duration: exponential_buckets(0.001, 2, 15),
        metrics.queueing_hint_duration: exponential_buckets(0.00001, 1.5, 20),
        metrics.event_handling_duration: exponential_buckets(0.0001, 2, 12),
        metrics.plugins.duration: exponential_buckets(0.00001, 1.5, 20),
        metrics.plugins.preemption_victims: exponential_buckets(1, 2, 7),
        metrics.rest.request_duration: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
        metrics.rest.rate_limiter_duration: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
    }
    for histogram, bounds in buckets.items():
        assert histogram._upper_bounds[:-1] == bounds, histogram._name
    assert exponential_buckets(0.001, 2, 15)[-1] == pytest.approx(16.384)
    assert exponential_buckets(0.0001, 2, 12)[-1] == pytest.approx(0.2048)
    assert exponential_buckets(1, 2, 7) == [1, 2, 4, 8, 16, 32, 64]
