"""A leader that loses its Lease while binding cycles are in flight sends no binding after
the loss (issue 18).

Upstream: client-go leaderelection.go Run cancels the leading context as soon as renew
gives up (before OnStoppedLeading), which cancels the binding cycles' requests; then
kube-scheduler's OnStoppedLeading logs "Leaderelection lost" and exits 1 (cmd/kube-scheduler
app/server.go). Here binding cycles are held in PreBind and let go at the very moment the
leader gives up (from the "Failed to renew lease" log line): a binding cycle still running
after the loss would POST its binding, to a Lease another replica takes next. The next
leader binds the held pods, each once. And the command itself, as a process of its own,
exits 1 with upstream's line.

Needs the `kube` extra (kubernetes_asyncio, prometheus_client): skipped without it; the
command's test also needs kubesched-builtin (the default profile).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")
pytest.importorskip("prometheus_client", reason="needs the kube extra (prometheus_client)")

from kube_helpers import (
    PLUGINS,
    RunProcesses,
    ServerThread,
    add_ready_node,
    eventually,
    fake_server,
    replica,
    resolved_config,
    run,
)

from kubesched.api import Pod
from kubesched.framework import CycleState, Plugin, PreBindPlugin, Status
from kubesched.testing.apiserver import FakeApiServer, node_raw, pod_raw

LEASE = "coordination.k8s.io/v1/leases"
LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubesched"
HELD = [f"held-{n}" for n in range(8)]
FREE = [f"free-{n}" for n in range(4)]


class HoldAtPreBind(PreBindPlugin):
    """Pods labelled prebind=hold wait in PreBind until `release` is set (class-level,
    reset per test): binding cycles in flight, past Permit, one step before Bind."""

    name = "KubeTestHoldAtPreBind"
    release: ClassVar[asyncio.Event]
    entered: ClassVar[set[str]] = set()

    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if pod.metadata.labels.get("prebind") == "hold":
            HoldAtPreBind.entered.add(pod.metadata.name)
            await HoldAtPreBind.release.wait()
        return None


TEST_PLUGINS: list[type[Plugin]] = [*PLUGINS, HoldAtPreBind]


class _LossClock(logging.Handler):
    """Notes the event loop's time of the leader's "Failed to renew lease" line (the
    moment it gives up, before anything else runs on the loop) and lets the held binding
    cycles go on in that same instant; and whether a SIGTERM drain has begun."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lost_at: float | None = None
        self.draining = False

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("Requested to terminate, draining"):
            self.draining = True
        if self.lost_at is None and message.startswith("Failed to renew lease"):
            self.lost_at = asyncio.get_running_loop().time()
            HoldAtPreBind.release.set()


@contextmanager
def loss_clock() -> Iterator[_LossClock]:
    handler = _LossClock()
    logger = logging.getLogger("kubesched.run")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.setLevel(level)
        logger.removeHandler(handler)


def renewals_fail(server: FakeApiServer) -> None:
    server.fail("PUT", LEASE_PATH, 500, "InternalError", "etcdserver: request timed out", 10_000)


def another_holder_takes_it(server: FakeApiServer) -> None:
    def take(lease: dict[str, object]) -> None:
        spec = lease["spec"]
        assert isinstance(spec, dict)
        spec["holderIdentity"] = "intruder"

    server.modify(LEASE, "kube-system/kubesched", take)


def holder(server: FakeApiServer) -> str:
    lease = server.get(LEASE, "kube-system/kubesched")
    return "" if lease is None else str(lease["spec"].get("holderIdentity") or "")


def node_of(server: FakeApiServer, name: str) -> str:
    pod = server.get("v1/pods", f"default/{name}")
    return "" if pod is None else str(pod["spec"].get("nodeName") or "")


@pytest.mark.parametrize("lose", [renewals_fail, another_holder_takes_it])
def test_no_binding_is_sent_after_the_lease_is_lost(
    lose: Callable[[FakeApiServer], None], caplog: pytest.LogCaptureFixture
) -> None:
    HoldAtPreBind.entered = set()
    config = resolved_config(with_plugins=TEST_PLUGINS)
    plugins = {p.name: p for p in TEST_PLUGINS}

    async def scenario() -> None:
        HoldAtPreBind.release = asyncio.Event()
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="32"))
            loop = asyncio.get_running_loop()
            a = replica(server, "a", config=config, plugins=plugins)
            running_a = loop.create_task(a.run())
            await eventually(lambda: a.leading, "a leads")
            b = replica(server, "b", config=config, plugins=plugins)
            running_b = loop.create_task(b.run())
            for name in FREE:
                server.add("v1/pods", pod_raw(name, cpu="1"))
            for name in HELD:
                raw = pod_raw(name, cpu="1")
                raw["metadata"]["labels"] = {"prebind": "hold"}
                server.add("v1/pods", raw)
            await eventually(lambda: all(node_of(server, n) for n in FREE), "free pods bound")
            await eventually(lambda: HoldAtPreBind.entered == set(HELD), "held in PreBind", 20)
            assert not b.leading and holder(server) == "a"

            with loss_clock() as clock:
                lose(server)
                assert await asyncio.wait_for(running_a, 15) == 1
            lost_at = clock.lost_at
            assert lost_at is not None
            server.faults.clear()

            posts = server.requests_to("POST", "/binding")
            from_a = [r for r in posts if r.user_agent == "kubesched-test/a"]
            # a bound the free pods before, and nothing after the loss: no held pod
            assert sorted(r.path.split("/")[-2] for r in from_a) == sorted(FREE)
            assert all(r.at < lost_at for r in from_a)
            assert not any(node_of(server, n) for n in HELD), "a held pod was bound by a"

            # the next leader binds each held pod once, after a's Lease expired
            await eventually(lambda: b.leading, "b takes over", 15)
            await eventually(lambda: all(node_of(server, n) for n in HELD), "held pods bound", 15)
            posts = server.requests_to("POST", "/binding")
            per_pod = {n: [r.user_agent for r in posts if f"/{n}/" in r.path] for n in HELD + FREE}
            assert per_pod == {
                **{n: ["kubesched-test/b"] for n in HELD},
                **{n: ["kubesched-test/a"] for n in FREE},
            }
            b.request_shutdown()
            assert await running_b == 0

    with caplog.at_level(logging.INFO, logger="kubesched.run"):
        run(scenario, timeout=60)
    # cmd/kube-scheduler/app/server.go OnStoppedLeading
    lost = [r for r in caplog.records if r.getMessage() == "Leaderelection lost"]
    assert [r.levelno for r in lost] == [logging.ERROR]


def test_a_lease_lost_during_the_sigterm_drain_stops_the_cycles_it_waits_for() -> None:
    """The drain waits for binding cycles (grace period 30 s); the Lease lost meanwhile
    stops them at once all the same, and the replica exits 0, as a terminating
    kube-scheduler does (server.go OnStoppedLeading: "Requested to terminate, exiting")."""
    HoldAtPreBind.entered = set()
    config = resolved_config(with_plugins=TEST_PLUGINS)
    plugins = {p.name: p for p in TEST_PLUGINS}

    async def scenario() -> None:
        HoldAtPreBind.release = asyncio.Event()
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="32"))
            a = replica(server, "a", config=config, plugins=plugins, shutdown_grace_period=30.0)
            running = asyncio.get_running_loop().create_task(a.run())
            await eventually(lambda: a.leading, "a leads")
            for name in HELD:
                raw = pod_raw(name, cpu="1")
                raw["metadata"]["labels"] = {"prebind": "hold"}
                server.add("v1/pods", raw)
            await eventually(lambda: HoldAtPreBind.entered == set(HELD), "held in PreBind", 20)
            with loss_clock() as clock:
                a.request_shutdown()  # what SIGTERM does
                await eventually(lambda: clock.draining, "draining")
                renewals_fail(server)
                assert await asyncio.wait_for(running, 15) == 0
            assert clock.lost_at is not None
            assert server.requests_to("POST", "/binding") == []
            assert not any(node_of(server, n) for n in HELD)

    run(scenario, timeout=60)


COMMAND_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: true, leaseDuration: 2s, renewDeadline: 1s, retryPeriod: 250ms}
"""


def test_the_command_exits_1_with_upstreams_message_when_its_lease_is_lost(
    tmp_path: Path,
) -> None:
    pytest.importorskip("kubesched_builtin", reason="the default profile needs kubesched-builtin")
    path = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler"

    def leader(server: FakeApiServer) -> str:
        lease = server.get(LEASE, "kube-system/kube-scheduler")
        return "" if lease is None else str(lease["spec"].get("holderIdentity") or "")

    with ServerThread() as threaded, RunProcesses(tmp_path, threaded.url, COMMAND_CONFIG) as procs:
        proc = procs.start("a")
        procs.until(lambda: threaded.call(leader) == "a", "a leads", 60)
        threaded.call(lambda s: s.fail("PUT", path, 500, "InternalError", times=10_000))
        assert proc.wait(30) == 1, procs.logs()
    log = procs.log("a")
    assert "E kubesched.run] Failed to renew lease kube-system/kube-scheduler: timed out" in log
    assert "E kubesched.run] Leaderelection lost" in log
