"""The real Scheduler on the `kube` backend, against the fake API server: bindings,
PodScheduled conditions, events, and binding conflicts handled as upstream.

Needs the `kube` extra: skipped without it.
"""

from __future__ import annotations

import asyncio
import socket

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import (
    Recorder,
    add_ready_node,
    eventually,
    fake_server,
    run,
    scheduling,
)

from kubesched.testing.apiserver import FakeApiServer, make_node_ready, node_raw, pod_raw


def bound_to(server: FakeApiServer, name: str) -> str:
    pod = server.get("v1/pods", f"default/{name}")
    return "" if pod is None else str(pod.get("spec", {}).get("nodeName") or "")


def events_for(server: FakeApiServer, name: str) -> list[dict[str, object]]:
    return [
        e
        for e in server.objects.get("events.k8s.io/v1/events", {}).values()
        if e["regarding"]["name"] == name
    ]


def test_pods_of_our_profiles_are_bound_and_recorded() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="4"))
            server.add("v1/pods", pod_raw("running", cpu="1", node="n1"))
            mine = server.add("v1/pods", pod_raw("mine", cpu="2"))
            server.add("v1/pods", pod_raw("theirs", cpu="1", scheduler="other-scheduler"))
            async with scheduling(server) as (cluster, sched):
                await eventually(lambda: bound_to(server, "mine") == "n1", "mine bound")
                await eventually(lambda: events_for(server, "mine") != [], "event recorded")
                (event,) = events_for(server, "mine")
                assert (event["type"], event["reason"], event["action"]) == (
                    "Normal",
                    "Scheduled",
                    "Binding",
                )
                assert event["note"] == "Successfully assigned default/mine to n1"
                # profile.go: each profile's recorder reports as its schedulerName
                assert event["reportingController"] == "default-scheduler"
                assert event["reportingInstance"] == f"default-scheduler-{socket.gethostname()}"
                # reference.GetReference: the resourceVersion of the pod as scheduled
                assert event["regarding"]["resourceVersion"] == mine["metadata"]["resourceVersion"]

                # a pod created later arrives through the watch
                server.add("v1/pods", pod_raw("later", cpu="1"))
                await eventually(lambda: bound_to(server, "later") == "n1", "later bound")

                assert bound_to(server, "theirs") == ""
                assert [p.metadata.name for p in sched.unknown_profile_pods()] == ["theirs"]
                bindings = {r.path.split("/")[-2] for r in server.requests_to("POST", "/binding")}
                assert bindings == {"mine", "later"}
                # the binding was watched back: the cache confirms the pod on n1
                await eventually(
                    lambda: not sched.cache.is_assumed_pod(cluster.get("Pod", "later", "default")),
                    "binding confirmed by the informer",
                )

    run(scenario)


def test_an_unschedulable_pod_gets_its_condition_and_a_failed_scheduling_event() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="1"))
            server.add("v1/pods", pod_raw("big", cpu="2"))
            async with scheduling(server):
                await eventually(
                    lambda: bool(server.requests_to("PATCH", "/pods/big/status")), "status patched"
                )
                pod = server.get("v1/pods", "default/big")
                assert pod is not None
                (cond,) = pod["status"]["conditions"]
                assert (cond["type"], cond["status"], cond["reason"]) == (
                    "PodScheduled",
                    "False",
                    "Unschedulable",
                )
                assert cond["message"] == "0/1 nodes are available: 1 Insufficient cpu."
                await eventually(lambda: events_for(server, "big") != [], "event recorded")
                (event,) = events_for(server, "big")
                assert (event["type"], event["reason"], event["action"]) == (
                    "Warning",
                    "FailedScheduling",
                    "Scheduling",
                )
                assert event["note"] == "0/1 nodes are available: 1 Insufficient cpu."

                # a bigger node arriving through the watch moves it back and it is bound
                add_ready_node(server, node_raw("n2", cpu="8"))
                await eventually(lambda: bound_to(server, "big") == "n2", "bound on the new node")

    run(scenario)


def test_a_pod_bound_by_someone_else_meanwhile_is_unreserved_and_not_retried() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            add_ready_node(server, node_raw("n2"))
            server.add("v1/pods", pod_raw("p", cpu="1"))

            def other_scheduler_wins(namespace: str, name: str, node: str) -> None:
                def assign(o: dict[str, object]) -> None:
                    o["spec"]["nodeName"] = "elsewhere"  # type: ignore[index]

                server.before_bind = None
                server.modify("v1/pods", f"{namespace}/{name}", assign)

            server.before_bind = other_scheduler_wins
            async with scheduling(server) as (cluster, sched):
                await eventually(
                    lambda: ("unreserve", "p") in [(c[0], c[1]) for c in Recorder.calls],
                    "unreserved after the conflict",
                )
                await eventually(
                    lambda: cluster.get("Pod", "p", "default").spec.node_name == "elsewhere",
                    "the other binding watched",
                )
                await asyncio.sleep(0.2)
                assert len(server.requests_to("POST", "/binding")) == 1
                assert bound_to(server, "p") == "elsewhere"
                pod = cluster.get("Pod", "p", "default")
                assert not sched.cache.is_assumed_pod(pod)
                assert sched.queue.pending_pods()["active"] == []
                assert all(
                    p.pod.metadata.name != "p" for p in sched.queue.pending_pods()["backoff"]
                )
                assert all(
                    p.pod.metadata.name != "p" for p in sched.queue.pending_pods()["unschedulable"]
                )

    run(scenario)


def test_a_pod_deleted_before_its_binding_is_unreserved_and_not_retried() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            server.add("v1/pods", pod_raw("gone", cpu="1"))

            def delete_first(namespace: str, name: str, node: str) -> None:
                server.remove("v1/pods", f"{namespace}/{name}")

            server.before_bind = delete_first
            async with scheduling(server) as (cluster, sched):
                await eventually(
                    lambda: ("unreserve", "gone", "n1") in Recorder.calls, "unreserved"
                )
                await eventually(lambda: cluster.get("Pod", "gone", "default") is None, "deleted")
                await asyncio.sleep(0.2)
                assert len(server.requests_to("POST", "/binding")) == 1
                assert len(sched.queue) == 0
                assert sched.cache.dump()["n1"].pods == []

    run(scenario)


def test_a_pod_waits_for_a_new_node_to_be_made_ready() -> None:
    # every real API server taints a new Node not-ready (TaintNodesByCondition); only once
    # its kubelet reports Ready and the node lifecycle controller lifts the taint does the
    # pod fit (TaintToleration's Filter; the pod's default not-ready toleration is NoExecute)
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            server.add("v1/pods", pod_raw("p", cpu="1"))
            async with scheduling(server):
                await eventually(
                    lambda: bool(server.requests_to("PATCH", "/pods/p/status")), "p tried"
                )
                pod = server.get("v1/pods", "default/p")
                assert pod is not None and not pod["spec"].get("nodeName")
                (cond,) = pod["status"]["conditions"]
                assert cond["message"] == (
                    "0/1 nodes are available: 1 node(s) had untolerated taint(s)."
                )
                assert server.requests_to("POST", "/binding") == []

                make_node_ready(server.patch_path, "n1")
                await eventually(lambda: bound_to(server, "p") == "n1", "bound once ready")

    run(scenario)
