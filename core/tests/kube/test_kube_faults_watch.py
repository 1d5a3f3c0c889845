"""The scheduler's informers against the fake API server's faults on LIST and WATCH
(issue 18), as client-go's Reflector answers them: a list cut or throttled with
Retry-After is sent again by the client; a watch cut mid-stream is resumed from the last
resourceVersion seen, without listing again; a 410 on the watch lists again. The scheduler
keeps binding through all of them, and its cache ends equal to the cluster.

Needs the `kube` extra (kubernetes_asyncio and its aiohttp): skipped without it.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import add_ready_node, eventually, fake_server, run, scheduling
from test_kube_faults_binding import (
    bound_nodes,
    check_cache_is_the_cluster,
    cluster_sees_bound,
    idle,
)

from kubesched.testing.apiserver import Recorded, node_raw, pod_raw

PODS = "/api/v1/pods"


@pytest.mark.parametrize(
    "fault",
    [
        {"cut": True, "times": 2},  # aiohttp's replay, then client-go's retry after 1 s
        {"code": 429, "reason": "TooManyRequests", "retry_after": 1},
        {"code": 500, "reason": "InternalError", "times": 2},  # the informer's backoff
        {"code": 504, "reason": "Timeout", "delay": 1.5},  # timed out: the informer's too
    ],
    ids=["cut", "429-retry-after", "500", "timeout"],
)
def test_a_failed_pod_list_is_listed_again_and_the_pod_bound(fault: dict[str, Any]) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            server.add("v1/pods", pod_raw("a", cpu="1"))
            injected = server.fail("LIST", PODS, **fault)
            async with scheduling(server) as (cluster, sched):
                cluster.transport.request_timeout = 0.5
                await eventually(lambda: "a" in bound_nodes(server), "a bound", 15)
                await eventually(lambda: idle(sched), "nothing queued or assumed")
                check_cache_is_the_cluster(sched, server)
                informer = cluster.informers["Pod"]
                assert informer.lists == 1  # one list, its failed tries included
            lists = [r for r in server.requests_to("GET", PODS) if "watch" not in r.query]
            assert injected.times == 0 and len(lists) == injected.hits + 1

    run(scenario, timeout=30)


def test_a_watch_cut_mid_stream_resumes_from_the_last_resource_version() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            # the first pod watch streams for two seconds, then its connection is cut
            server.fail("WATCH", PODS, cut=True, commit=True, delay=2.0)
            async with scheduling(server) as (cluster, sched):
                server.add("v1/pods", pod_raw("a", cpu="1"))
                await eventually(lambda: "a" in bound_nodes(server), "a bound")
                informer = cluster.informers["Pod"]
                await eventually(lambda: cluster_sees_bound(cluster, "a"), "a's binding seen")
                last_seen = informer.resource_version

                def watches() -> list[Recorded]:
                    return [r for r in server.requests_to("GET", PODS) if "watch" in r.query]

                await eventually(lambda: len(watches()) >= 2, "watching again", 15)
                resumed = watches()[1]
                server.add("v1/pods", pod_raw("b", cpu="1"))
                await eventually(lambda: "b" in bound_nodes(server), "b bound")
                await eventually(lambda: idle(sched), "nothing queued or assumed")
                check_cache_is_the_cluster(sched, server)
                assert informer.lists == 1
            assert resumed.query["resourceVersion"] == last_seen

    run(scenario, timeout=30)


def test_a_410_on_the_pod_watch_lists_again_and_scheduling_goes_on() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="2"))
            server.add("v1/pods", pod_raw("a", cpu="1"))
            async with scheduling(server) as (cluster, sched):
                await eventually(lambda: "a" in bound_nodes(server), "a bound")
                informer = cluster.informers["Pod"]
                await eventually(lambda: informer.watches >= 1, "watching")
                # while the watch is gone, a pod comes and history is compacted past it
                server.gone_as_http = True
                server.drop_watches(abort=True)
                server.add("v1/pods", pod_raw("b", cpu="1"))
                server.compact()
                await eventually(lambda: informer.lists == 2, "listed again")
                await eventually(lambda: "b" in bound_nodes(server), "b bound")
                server.add("v1/pods", pod_raw("c", cpu="1"))  # no room left: pending
                await eventually(lambda: idle(sched) or len(sched.queue) == 1, "c tried")
                await eventually(lambda: not sched.busy, "c's attempt done")
                check_cache_is_the_cluster(sched, server)
            assert bound_nodes(server) == {"a": "n1", "b": "n1"}

    run(scenario, timeout=30)
