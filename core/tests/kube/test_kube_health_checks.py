"""/healthz, /livez and /readyz as upstream serves them (named checks, `?verbose`,
`?exclude=`, `/readyz/<check>`, reasons withheld), and readiness that tells the truth during
an API server outage: kubesched's `informers` check."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")
pytest.importorskip("prometheus_client", reason="needs the kube extra (prometheus_client)")

import aiohttp
from kube_helpers import (
    FAST,
    add_ready_node,
    eventually,
    fake_server,
    plugin_classes,
    resolved_config,
    run,
)
from prometheus_client import CollectorRegistry

from kubesched.cluster.kube import KubeCluster, Transport
from kubesched.cluster.memory import default_kinds
from kubesched.run import Runner
from kubesched.run import _runner as runner_module
from kubesched.run._server import EndpointServer
from kubesched.runtime import make_plugin_manager
from kubesched.testing.apiserver import node_raw


async def fetch(port: int, path: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as r,
    ):
        return r.status, await r.text()


def test_named_checks_verbose_exclude_and_single_checks() -> None:
    problems: dict[str, str | None] = {"leaderElection": None, "sched-handler-sync": None}

    async def scenario() -> None:
        server = EndpointServer(
            CollectorRegistry(),
            port=0,
            health={"leaderElection": lambda: problems["leaderElection"]},
            ready={"sched-handler-sync": lambda: problems["sched-handler-sync"]},
        )
        port = await server.start()
        try:
            assert await fetch(port, "/healthz") == (200, "ok")
            assert await fetch(port, "/healthz?verbose") == (
                200,
                "[+]ping ok\n[+]log ok\n[+]leaderElection ok\nhealthz check passed\n",
            )
            assert await fetch(port, "/readyz?verbose") == (
                200,
                "[+]ping ok\n[+]log ok\n[+]leaderElection ok\n[+]sched-handler-sync ok\n"
                "readyz check passed\n",
            )
            problems["sched-handler-sync"] = "informers not synced"
            # always verbose on failure, the reason withheld
            assert await fetch(port, "/readyz") == (
                500,
                "[+]ping ok\n[+]log ok\n[+]leaderElection ok\n"
                "[-]sched-handler-sync failed: reason withheld\nreadyz check failed\n",
            )
            assert await fetch(port, "/livez") == (200, "ok")
            assert await fetch(port, "/readyz?exclude=sched-handler-sync&exclude=nope") == (
                200,
                "ok",
            )
            status, text = await fetch(
                port, "/readyz?verbose&exclude=sched-handler-sync&exclude=nope"
            )
            assert status == 200
            assert "[+]sched-handler-sync excluded: ok\n" in text
            assert 'warn: some health checks cannot be excluded: no matches for "nope"\n' in text
            # one check alone: the reason is given (upstream's adaptCheckToHandler)
            assert await fetch(port, "/readyz/sched-handler-sync") == (
                500,
                "internal server error: informers not synced\n",
            )
            assert await fetch(port, "/healthz/ping") == (200, "ok")
            assert (await fetch(port, "/healthz/nope"))[0] == 404
        finally:
            await server.stop()

    run(scenario)


def test_readyz_reports_an_api_server_outage_and_recovers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner_module, "INFORMER_OUTAGE_GRACE", 0.3)

    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            cluster = KubeCluster(
                Transport.for_host(server.url),
                default_kinds(),
                settings=FAST,
            )
            runner = Runner(
                cluster,
                resolved_config(),
                plugin_classes(),
                hooks=make_plugin_manager(load_entrypoints=False),
                port=0,
                shutdown_grace_period=1.0,
            )
            running = asyncio.get_running_loop().create_task(runner.run())
            assert runner.server is not None
            await eventually(
                lambda: runner.server is not None and runner.server.port != 0, "serving"
            )
            port = runner.server.port

            async def ready() -> tuple[int, str]:
                return await fetch(port, "/readyz?verbose")

            status = 0
            for _ in range(200):
                status, _text = await ready()
                if status == 200:
                    break
                await asyncio.sleep(0.02)
            assert status == 200
            # the API server goes away: every list and watch of pods and nodes fails
            for path in (
                "/api/v1/pods",
                "/api/v1/nodes",
                "/api/v1/namespaces",
                "/apis/scheduling.k8s.io/v1/priorityclasses",
            ):
                server.fail("GET", path, 503, "ServiceUnavailable", times=10_000)
            server.drop_watches(abort=True)
            text = ""
            for _ in range(300):
                status, text = await ready()
                if status == 500:
                    break
                await asyncio.sleep(0.02)
            assert status == 500 and "[-]informers failed: reason withheld\n" in text, text
            assert await fetch(port, "/healthz") == (200, "ok")  # liveness: no restart loop
            detail = await fetch(port, "/readyz/informers")
            assert detail[0] == 500 and "informer failing for" in detail[1]
            assert "failed to list" in detail[1] or "failed to watch" in detail[1]
            # it comes back
            server.faults.clear()
            for _ in range(300):
                status, text = await ready()
                if status == 200:
                    break
                await asyncio.sleep(0.02)
            assert status == 200 and "[+]informers ok\n" in text, (
                text + (await fetch(port, "/readyz/informers"))[1]
            )
            runner.request_shutdown()
            assert await running == 0

    run(scenario, timeout=60)
