"""SIGTERM drains `kubesched run` within a bounded time (issue 18: "Drain on SIGTERM must
flush or retry what is queued before exiting, within a bounded time").

Covered elsewhere: pods waiting at Permit are rejected and their status written
(test_kube_runner), Events queued for a retry are written and those left at the end of the
grace period dropped with a count (test_kube_events). Here, the binding cycles in flight
when the signal comes (a binding the API server has not answered yet): they land, with
their Scheduled Events; one that fails is reported (status and Event) as any failure; one
stuck longer than the grace period is cancelled, and the process exits 0 all the same. No
new cycle starts after the signal, and the Lease is given up last.

Needs the `kube` extra (kubernetes_asyncio, prometheus_client): skipped without it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from typing import Any

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")
pytest.importorskip("prometheus_client", reason="needs the kube extra (prometheus_client)")

from kube_helpers import Recorder, add_ready_node, eventually, fake_server, replica, run

from kubesched.run import Runner
from kubesched.testing.apiserver import ApiStatusError, FakeApiServer, node_raw, pod_raw

EVENTS = "events.k8s.io/v1/events"
LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubesched"
IN_FLIGHT = [f"p{n}" for n in range(6)]


def node_of(server: FakeApiServer, name: str) -> str:
    pod = server.get("v1/pods", f"default/{name}")
    return "" if pod is None else str(pod["spec"].get("nodeName") or "")


def events_for(server: FakeApiServer, reason: str) -> list[str]:
    return sorted(
        e["regarding"]["name"]
        for e in server.objects.get(EVENTS, {}).values()
        if e["reason"] == reason
    )


def holder(server: FakeApiServer) -> str:
    lease = server.get("coordination.k8s.io/v1/leases", "kube-system/kubesched")
    return "" if lease is None else str(lease["spec"].get("holderIdentity") or "")


async def start_with_bindings_held(
    server: FakeApiServer, gate: asyncio.Event, *, failing: str = "", **options: Any
) -> tuple[Runner, asyncio.Task[int]]:
    """A leading replica whose bindings of IN_FLIGHT all reached the server, which holds
    its answers until `gate` is set (then answers the binding of `failing` with a 500)."""

    async def held(namespace: str, name: str, node: str) -> None:
        await gate.wait()
        if name == failing:
            raise ApiStatusError(500, "InternalError", "etcdserver: request timed out")

    server.before_bind = held
    add_ready_node(server, node_raw("n1", cpu="16"))
    for name in IN_FLIGHT:
        server.add("v1/pods", pod_raw(name, cpu="1"))
    runner = replica(server, "a", **options)
    running = asyncio.get_running_loop().create_task(runner.run())
    await eventually(
        lambda: len(server.requests_to("POST", "/binding")) == len(IN_FLIGHT), "all sent", 20
    )
    return runner, running


async def sigterm(runner: Runner, server: FakeApiServer) -> float:
    """Send this process SIGTERM (the runner's handler is installed); the server's time."""
    sent = asyncio.get_running_loop().time()
    os.kill(os.getpid(), signal.SIGTERM)
    await eventually(lambda: runner.shutting_down, "the signal handled")
    # a pod created after the signal is not taken
    server.add("v1/pods", pod_raw("late", cpu="1"))
    return sent


def test_bindings_in_flight_at_sigterm_land_with_their_events_before_the_lease_goes() -> None:
    async def scenario() -> None:
        gate = asyncio.Event()
        async with fake_server() as server:
            runner, running = await start_with_bindings_held(server, gate)
            signalled = await sigterm(runner, server)
            await asyncio.sleep(0.3)  # the drain waits for the answers
            assert not running.done() and holder(server) == "a"
            gate.set()
            assert await asyncio.wait_for(running, 10) == 0
            assert all(node_of(server, n) == "n1" for n in IN_FLIGHT)
            assert events_for(server, "Scheduled") == sorted(IN_FLIGHT)
            # no new binding cycle after the signal
            assert node_of(server, "late") == ""
            assert all(r.at < signalled for r in server.requests_to("POST", "/binding"))
            # the Lease given up after the last answer, not before
            (release,) = [
                r
                for r in server.requests_to("PUT", LEASE_PATH)
                if r.body["spec"]["holderIdentity"] == ""
            ]
            assert release.at > max(r.at for r in server.requests_to("POST", "/events"))
            assert holder(server) == ""

    run(scenario)


def test_a_binding_that_fails_during_the_drain_is_reported_before_exit() -> None:
    async def scenario() -> None:
        gate = asyncio.Event()
        async with fake_server() as server:
            runner, running = await start_with_bindings_held(server, gate, failing="p0")
            await sigterm(runner, server)
            gate.set()
            assert await asyncio.wait_for(running, 10) == 0
            assert node_of(server, "p0") == ""
            assert all(node_of(server, n) == "n1" for n in IN_FLIGHT[1:])
            # the failure is handled as any: Unreserve, the condition, the Event
            assert ("unreserve", "p0", "n1") in Recorder.calls
            (patch,) = server.requests_to("PATCH", "/pods/p0/status")
            (condition,) = patch.body["status"]["conditions"]
            assert condition["reason"] == "SchedulerError"
            assert condition["message"].startswith('running Bind plugin "KubeTestBinder": ')
            assert "etcdserver: request timed out" in condition["message"]
            assert events_for(server, "FailedScheduling") == ["p0"]
            assert events_for(server, "Scheduled") == sorted(IN_FLIGHT[1:])
            assert holder(server) == ""

    Recorder.calls = []
    run(scenario)


def test_a_binding_stuck_past_the_grace_period_is_cancelled_and_the_process_exits_0(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        never = asyncio.Event()
        async with fake_server() as server:
            runner, running = await start_with_bindings_held(
                server, never, shutdown_grace_period=1.0
            )
            await sigterm(runner, server)
            # bounded: the grace period, not the bindings' answers (never sent)
            assert await asyncio.wait_for(running, 10) == 0
            assert not runner.scheduler.cycles_in_flight
            assert events_for(server, "Scheduled") == []
            assert holder(server) == ""

    with caplog.at_level(logging.INFO, logger="kubesched.run"):
        run(scenario)
    assert "Shutdown did not wait for every binding cycle to finish" in caplog.text
