"""The scheduler against the fake API server when `pods/binding` times out or its
connection is cut, before or after the binding took effect (issue 18), and when the server
asks it to retry later.

Upstream's answer to a failed Bind (schedule_one.go handleBindingCycleError): Unreserve,
Forget, and the pod back to the queue. When the binding was stored but the answer lost,
the pod is still bound once: the retry gets 409 `pod a is already assigned to node "n1"`
(pkg/registry/core/pod/storage), or the informer's update arrives first and the pod, now
assigned, leaves the queue (handleSchedulingFailure "Pod has been assigned to node. Abort
adding it back to queue."). Either way the cache ends equal to the cluster and no node is
over-committed.

Needs the `kube` extra (kubernetes_asyncio and its aiohttp): skipped without it.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import Recorder, add_ready_node, eventually, fake_server, run, scheduling

from kubesched.cluster.kube import KubeCluster
from kubesched.scheduler import Scheduler
from kubesched.testing.apiserver import FakeApiServer, node_raw, pod_raw

TIMEOUT = 1.0
"""The client's request timeout in these tests (kubesched's default is 30 s)."""

BINDING = "/api/v1/namespaces/default/pods/a/binding"

FAULTS: dict[str, dict[str, Any]] = {
    "cut-before": {"cut": True},
    "cut-after-commit": {"cut": True, "commit": True},
    "timeout-never-applied": {"code": 504, "reason": "Timeout", "delay": 2.5},
    "timeout-after-commit": {"commit": True, "delay": 2.5},
}


def bound_nodes(server: FakeApiServer) -> dict[str, str]:
    """Pod name to node name, for the bound pods the server has."""
    pods = server.objects.get("v1/pods", {}).values()
    return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in pods if p["spec"].get("nodeName")}


def check_cache_is_the_cluster(sched: Scheduler, server: FakeApiServer) -> None:
    """The cache holds the bound pods of the server, on their nodes, nothing assumed, and
    no node holds more cpu than it has."""
    dump = sched.cache.dump()
    cached = {pi.pod.metadata.name: name for name, info in dump.items() for pi in info.pods}
    assert cached == bound_nodes(server)
    assert sched.cache.assumed_pod_count() == 0
    for name, info in dump.items():
        assert info.requested.milli_cpu <= info.allocatable.milli_cpu, name


def idle(sched: Scheduler) -> bool:
    return not sched.busy and len(sched.queue) == 0 and sched.cache.assumed_pod_count() == 0


@pytest.mark.parametrize("fault", list(FAULTS), ids=list(FAULTS))
def test_a_binding_cut_or_timed_out_is_undone_retried_and_bound_once(fault: str) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            for node in ("n1", "n2"):
                add_ready_node(server, node_raw(node, cpu="1"))
            server.add("v1/pods", pod_raw("a", cpu="1"))
            injected = server.fail("POST", BINDING, **FAULTS[fault])
            async with scheduling(server) as (cluster, sched):
                cluster.transport.request_timeout = TIMEOUT
                await eventually(lambda: "a" in bound_nodes(server), "a bound", 15)
                await eventually(lambda: cluster_sees_bound(cluster, "a"), "the informer saw it")
                await eventually(lambda: idle(sched), "nothing queued or assumed")
                first = bound_nodes(server)["a"]
                # a pod that fits only where a is not: a's node is full in the cache
                server.add("v1/pods", pod_raw("b", cpu="1"))
                await eventually(lambda: "b" in bound_nodes(server), "b bound", 15)
                await eventually(lambda: idle(sched), "b's cycle over")
                check_cache_is_the_cluster(sched, server)
                nodes = bound_nodes(server)
            assert injected.hits == 1
            assert nodes["a"] == first and nodes["b"] != first
            mine = [kind for kind, pod, _ in Recorder.calls if pod == "a"]
            # the failed binding was undone (Unreserve) before any retry
            assert mine[:2] == ["reserve", "unreserve"], mine
            posts = server.requests_to("POST", "/pods/a/binding")
            if not FAULTS[fault].get("commit"):
                # the binding never took effect: the retry bound the pod
                assert len(posts) == 2 and mine == ["reserve", "unreserve", "reserve"]
            else:
                # it did: a retry, if the informer's update did not come first, got 409
                assert len(posts) <= 2, len(posts)

    run(scenario, timeout=40)


def cluster_sees_bound(cluster: KubeCluster, name: str) -> bool:
    """The scheduler's informer has the pod bound."""
    pod = cluster.get("Pod", name, "default")
    return pod is not None and bool(pod.spec.node_name)


def test_a_retry_after_a_committed_binding_gets_409_already_assigned() -> None:
    """The informer's update is held back (the pod watch after the list opens 5 s late)
    so that the retry comes first: the API server refuses it with upstream's message,
    which is the attempt's error; then the update arrives and the pod, assigned, leaves
    the queue."""

    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="2"))
            server.add("v1/pods", pod_raw("a", cpu="1"))
            server.fail("POST", BINDING, cut=True, commit=True)
            server.fail("WATCH", "/api/v1/pods", delay=5.0)
            async with scheduling(server) as (cluster, sched):
                await eventually(
                    lambda: len(server.requests_to("POST", "/pods/a/binding")) >= 2,
                    "the retry was sent",
                    15,
                )
                await eventually(lambda: cluster_sees_bound(cluster, "a"), "the update came", 15)
                await eventually(lambda: idle(sched), "nothing queued or assumed")
                check_cache_is_the_cluster(sched, server)
            assert bound_nodes(server) == {"a": "n1"}
            assert len(server.requests_to("POST", "/pods/a/binding")) >= 2
            # each failed attempt's PodScheduled=False condition carries its error
            messages = [
                c.get("message", "")
                for r in server.requests_to("PATCH", "/pods/a/status")
                for c in r.body.get("status", {}).get("conditions", [])
            ]
            conflict = (
                'running Bind plugin "KubeTestBinder": Operation cannot be fulfilled on '
                'pods/binding "a": pod a is already assigned to node "n1"'
            )
            assert conflict in messages, messages

    run(scenario, timeout=40)


def test_a_429_with_retry_after_is_retried_by_the_client_in_one_attempt() -> None:
    """client-go retries a 429 with Retry-After itself (rest/with_retry.go checkWait): the
    scheduler sees one Bind that took a second longer, no failure, no Unreserve."""

    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="2"))
            server.add("v1/pods", pod_raw("a", cpu="1"))
            server.fail(
                "POST", "/api/v1/namespaces/*/pods/*/binding", 429, "TooManyRequests",
                "too many requests, please try again later", retry_after=1,
            )  # fmt: skip
            async with scheduling(server) as (_, sched):
                await eventually(lambda: "a" in bound_nodes(server), "a bound", 15)
                await eventually(lambda: idle(sched), "nothing queued or assumed")
                check_cache_is_the_cluster(sched, server)
            first, second = (r.at for r in server.requests_to("POST", "/pods/a/binding"))
            assert second - first >= 0.95
            assert [kind for kind, pod, _ in Recorder.calls if pod == "a"] == ["reserve"]

    run(scenario, timeout=30)


def test_a_storm_of_faults_leaves_every_pod_bound_once_and_no_node_over_committed() -> None:
    """Thirty pods that fill three nodes exactly, while bindings are cut after and before
    they take effect, time out after taking effect, fail with 500 and 429, status patches
    and Events fail, and the pod watch is cut mid-stream. An accounting error anywhere
    (a committed binding forgotten, a pod counted twice) would leave a pod pending or put
    one on a full node: the API server does not check capacity."""

    async def scenario() -> None:
        async with fake_server() as server:
            for node in ("n1", "n2", "n3"):
                add_ready_node(server, node_raw(node, cpu="1"))
            for n in range(30):
                server.add("v1/pods", pod_raw(f"p{n}", cpu="100m"))
            bindings = "/api/v1/namespaces/*/pods/*/binding"
            faults = [
                server.fail("POST", bindings, cut=True, commit=True, times=4),
                server.fail("POST", bindings, 500, "InternalError", times=3),
                server.fail("POST", bindings, commit=True, delay=1.5, times=2),
                server.fail("POST", bindings, cut=True, times=3),
                server.fail("POST", bindings, 429, "TooManyRequests", retry_after=0, times=3),
                server.fail("POST", bindings, 409, "Conflict", times=2),
                server.fail("PATCH", "*/pods/*/status", 503, "ServiceUnavailable", times=3),
                server.fail("POST", "/apis/events.k8s.io/*", 500, "InternalError", times=5),
                server.fail("WATCH", "/api/v1/pods", cut=True, commit=True, delay=1.0),
            ]
            async with scheduling(server) as (cluster, sched):
                cluster.transport.request_timeout = TIMEOUT
                await eventually(lambda: len(bound_nodes(server)) == 30, "all bound", 30)
                await eventually(
                    lambda: all(cluster_sees_bound(cluster, f"p{n}") for n in range(30)),
                    "the informer saw every binding",
                    15,
                )
                await eventually(lambda: idle(sched), "nothing queued or assumed")
                check_cache_is_the_cluster(sched, server)
            assert [f.times for f in faults[:6]] == [0] * 6, "every binding fault fired"
            per_node: dict[str, int] = {}
            for node in bound_nodes(server).values():
                per_node[node] = per_node.get(node, 0) + 1
            assert per_node == {"n1": 10, "n2": 10, "n3": 10}
            # bound once: a pod's node never changed in the server's history
            nodes_of: dict[str, set[str]] = {}
            for _, resource, _, obj in server.history:
                if resource == "v1/pods" and obj["spec"].get("nodeName"):
                    nodes_of.setdefault(obj["metadata"]["name"], set()).add(obj["spec"]["nodeName"])
            assert all(len(nodes) == 1 for nodes in nodes_of.values()), nodes_of

    run(scenario, timeout=60)
