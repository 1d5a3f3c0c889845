"""The leader keeps its Lease while scheduling traffic saturates its client.

Found on a real kube-apiserver: with one client for everything, Lease renewals waited in the
same client-side rate limiter (qps/burst) as bindings, status patches and events, and the
leader lost its Lease under load. Leader election has a client of its own, as upstream's.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import fake_server, kubeconfig, run

from kubesched.run import RunOptions
from kubesched.run._runner import build_runner

CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {qps: 2, burst: 1}
leaderElection: {leaderElect: true, leaseDuration: 3s, renewDeadline: 2s, retryPeriod: 500ms}
"""


def test_the_lease_is_renewed_while_the_scheduling_client_is_saturated(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG, encoding="utf-8")

    async def scenario() -> None:
        async with fake_server() as server:
            options = RunOptions(
                config=str(config),
                kubeconfig=kubeconfig(tmp_path / "kubeconfig", server.url),
                port=None,
                identity="me",
            )
            runner = await build_runner(options)
            elector = runner.elector
            assert elector is not None
            scheduling = runner.cluster.transport
            await elector.acquire()
            # 30 requests at 2 per second keep the scheduling client's limiter busy for
            # 15 s: far past the 2 s renew deadline
            flood = [
                asyncio.ensure_future(scheduling.request("GET", "/api/v1/namespaces"))
                for _ in range(30)
            ]
            try:
                renewing = asyncio.ensure_future(elector.renew())
                await asyncio.sleep(4.0)  # two renew deadlines
                assert not renewing.done(), "the leader lost its Lease under load"
                assert elector.is_leader()
                assert sum(not f.done() for f in flood) >= 20, "the client was not saturated"
                renewals = server.requests_to("PUT", "/leases/kube-scheduler")
                assert len(renewals) >= 5  # every retryPeriod (500 ms)
                assert all(r.user_agent.endswith(" leader-election") for r in renewals)
                lease = server.get("coordination.k8s.io/v1/leases", "kube-system/kube-scheduler")
                assert lease is not None and lease["spec"]["holderIdentity"] == "me"
                # MicroTime, as upstream writes it
                assert len(lease["spec"]["renewTime"].split(".")[1]) == len("000000Z")
                renewing.cancel()
                await asyncio.gather(renewing, return_exceptions=True)
            finally:
                for f in flood:
                    f.cancel()
                await asyncio.gather(*flood, return_exceptions=True)
                await runner.cluster.close()
                for close in runner._closers:
                    await close()

    run(scenario, timeout=60)
