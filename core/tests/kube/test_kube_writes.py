"""Writes of the `kube` backend against the fake API server: binding, the PodScheduled
status patch, Events, create/update/delete and the Lease lock.

Needs the `kube` extra (kubernetes_asyncio and its aiohttp): skipped without it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import cluster_on, eventually, fake_server, run

from kubesched import AlreadyExistsError, ConflictError, NotFoundError
from kubesched.api import Pod, PodCondition
from kubesched.cluster import EventSeries, EventWriteError, KubeEvent
from kubesched.cluster.kube import (
    ApiError,
    KubeCluster,
    KubeLeaseLock,
    LeaderElectionRecord,
    Transport,
)
from kubesched.testing.apiserver import node_raw, pod_raw

UNSCHEDULABLE = PodCondition(
    type="PodScheduled",
    status="False",
    reason="Unschedulable",
    message="0/1 nodes are available: 1 Insufficient cpu.",
)


async def synced_pod(cluster: KubeCluster, name: str) -> Pod:
    cluster.watch("Pod", lambda ev: None)
    await cluster.wait_for_sync()
    pod = cluster.get("Pod", name, "default")
    assert pod is not None
    return pod


def test_bind_posts_a_binding_and_the_pod_becomes_bound() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/pods", pod_raw("p"))
            async with cluster_on(server) as cluster:
                pod = await synced_pod(cluster, "p")
                await cluster.bind(pod, "n1")
                (request,) = server.requests_to("POST", "/binding")
                assert request.path == "/api/v1/namespaces/default/pods/p/binding"
                assert request.body["target"] == {"apiVersion": "v1", "kind": "Node", "name": "n1"}
                assert request.body["metadata"]["uid"] == pod.metadata.uid
                await eventually(
                    lambda: cluster.get("Pod", "p", "default").spec.node_name == "n1",
                    "the binding is watched back",
                )

    run(scenario)


def test_binding_an_already_bound_pod_is_a_conflict() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/pods", pod_raw("p"))
            async with cluster_on(server) as cluster:
                pod = await synced_pod(cluster, "p")
                await cluster.bind(pod, "n1")
                with pytest.raises(ConflictError) as info:
                    await cluster.bind(pod, "n2")
                assert str(info.value) == (
                    'Operation cannot be fulfilled on pods/binding "p": '
                    'pod p is already assigned to node "n1"'
                )

    run(scenario)


def test_binding_a_recreated_pod_is_a_conflict_on_its_uid() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/pods", pod_raw("p"))
            async with cluster_on(server) as cluster:
                pod = await synced_pod(cluster, "p")
                server.remove("v1/pods", "default/p")
                server.add("v1/pods", pod_raw("p"))  # same name, new uid
                with pytest.raises(ConflictError, match="Precondition failed: UID"):
                    await cluster.bind(pod, "n1")

    run(scenario)


def test_binding_a_deleted_pod_is_not_found() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/pods", pod_raw("p"))
            async with cluster_on(server) as cluster:
                pod = await synced_pod(cluster, "p")
                server.remove("v1/pods", "default/p")
                with pytest.raises(NotFoundError, match='pods "p" not found'):
                    await cluster.bind(pod, "n1")

    run(scenario)


def test_other_binding_failures_are_api_errors() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/pods", pod_raw("p"))
            path = "/api/v1/namespaces/default/pods/p/binding"
            server.fail("POST", path, 500, "InternalError", "etcdserver: request timed out")
            async with cluster_on(server) as cluster:
                pod = await synced_pod(cluster, "p")
                with pytest.raises(ApiError) as info:
                    await cluster.bind(pod, "n1")
                assert info.value.code == 500
                assert "etcdserver: request timed out" in str(info.value)

    run(scenario)


def test_update_pod_condition_patches_pods_status_strategically() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/pods", pod_raw("p"))
            async with cluster_on(server) as cluster:
                pod = await synced_pod(cluster, "p")
                await cluster.update_pod_condition(pod, UNSCHEDULABLE, "n2")
                (request,) = server.requests_to("PATCH", "/status")
                assert request.path == "/api/v1/namespaces/default/pods/p/status"
                assert request.content_type == "application/strategic-merge-patch+json"
                status = request.body["status"]
                assert status["nominatedNodeName"] == "n2"
                (cond,) = status["conditions"]
                assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == (
                    "PodScheduled",
                    "False",
                    "Unschedulable",
                    "0/1 nodes are available: 1 Insufficient cpu.",
                )
                assert cond["lastTransitionTime"].endswith("Z")
                await eventually(
                    lambda: cluster.get("Pod", "p", "default").status.nominated_node_name == "n2",
                    "the patch is watched back",
                )
                # the same condition again changes nothing: no request (upstream updatePod)
                await cluster.update_pod_condition(
                    cluster.get("Pod", "p", "default"), UNSCHEDULABLE, None
                )
                assert len(server.requests_to("PATCH", "/status")) == 1
                stored = server.get("v1/pods", "default/p")
                assert stored is not None
                assert stored["status"]["phase"] == "Pending"  # the rest of the status is kept

    run(scenario)


def test_update_pod_condition_ignores_a_pod_that_is_gone() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/pods", pod_raw("p"))
            async with cluster_on(server) as cluster:
                pod = await synced_pod(cluster, "p")
                server.remove("v1/pods", "default/p")
                await eventually(lambda: cluster.get("Pod", "p", "default") is None, "deleted")
                await cluster.update_pod_condition(pod, UNSCHEDULABLE, None)
                (request,) = server.requests_to("PATCH", "/status")  # sent, answered 404
                assert request.path.endswith("/pods/p/status")

    run(scenario)


def _event(**fields: Any) -> KubeEvent:
    base: dict[str, Any] = {
        "namespace": "default",
        "involved_kind": "Pod",
        "involved_name": "p",
        "involved_uid": "uid-1",
        "type": "Normal",
        "reason": "Scheduled",
        "action": "Binding",
        "message": "Successfully assigned default/p to n1",
        "reporting_controller": "default-scheduler",
        "timestamp": 0.0,
        "reporting_instance": "default-scheduler-host1",
        "name": "p.1",
    }
    return KubeEvent(**(base | fields))


def test_record_event_creates_a_valid_events_k8s_io_v1_event() -> None:
    async def scenario() -> None:
        async with fake_server() as server, cluster_on(server) as cluster:
            await cluster.record_event(_event())
            (event,) = server.objects["events.k8s.io/v1/events"].values()
            assert event["metadata"]["name"] == "p.1"
            assert event["note"] == "Successfully assigned default/p to n1"
            assert event["reportingController"] == "default-scheduler"
            assert event["reportingInstance"] == "default-scheduler-host1"
            assert event["regarding"]["uid"] == "uid-1"

    run(scenario)


def test_a_series_is_patched_onto_the_event_and_created_when_it_is_gone() -> None:
    """recordEvent: a series is a strategic merge patch of `series` alone; a PATCH that
    finds no Event falls back to creating it, series included."""
    second = datetime(2026, 3, 1, 12, 0, 5, 250000, tzinfo=UTC)

    async def scenario() -> None:
        async with fake_server() as server, cluster_on(server) as cluster:
            path = "/apis/events.k8s.io/v1/namespaces/default/events"
            await cluster.record_event(_event())
            await cluster.record_event(_event(series=EventSeries(2, second, 5.0)))
            (patch,) = server.requests_to("PATCH", f"{path}/p.1")
            assert patch.content_type == "application/strategic-merge-patch+json"
            assert patch.body == {
                "series": {"count": 2, "lastObservedTime": "2026-03-01T12:00:05.250000Z"}
            }
            stored = server.objects["events.k8s.io/v1/events"]["default/p.1"]
            assert stored["series"]["count"] == 2
            assert stored["note"] == "Successfully assigned default/p to n1"

            await cluster.record_event(_event(name="p.2", series=EventSeries(3, second, 5.0)))
            created = server.objects["events.k8s.io/v1/events"]["default/p.2"]
            assert created["series"] == {
                "count": 3,
                "lastObservedTime": "2026-03-01T12:00:05.250000Z",
            }
            assert [r.method for r in server.requests if r.path.startswith(path)] == [
                "POST",
                "PATCH",
                "PATCH",
                "POST",
            ]

    run(scenario)


@pytest.mark.parametrize(
    ("code", "reason", "retry", "exists"),
    [
        (403, "Forbidden", False, False),
        (422, "Invalid", False, False),
        (409, "AlreadyExists", False, True),
        # client-go events recordToSink: any answer is a StatusError, not retried (the
        # client itself retried one with Retry-After); only no answer is (test_kube_faults)
        (429, "TooManyRequests", False, False),
        (500, "InternalError", False, False),
        (503, "ServiceUnavailable", False, False),
    ],
)
def test_record_event_failures_say_whether_a_retry_may_help(
    code: int, reason: str, retry: bool, exists: bool
) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.fail("POST", "/apis/events.k8s.io/v1/namespaces/default/events", code, reason)
            async with cluster_on(server) as cluster:
                with pytest.raises(EventWriteError) as caught:
                    await cluster.record_event(_event(type="Warning"))
                assert (caught.value.retry, caught.value.already_exists) == (retry, exists)
                assert f"{code} {reason}" in str(caught.value)
                assert "events.k8s.io/v1/events" not in server.objects

    run(scenario)


def test_record_event_on_a_closed_cluster_is_an_error_not_retried() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            async with cluster_on(server) as cluster:
                pass
            with pytest.raises(EventWriteError) as caught:
                await cluster.record_event(_event())
            assert not caught.value.retry
            assert "closed" in str(caught.value)

    run(scenario)


def test_create_update_and_delete() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            async with cluster_on(server) as cluster:
                pod = Pod.model_validate(pod_raw("new"))
                created = await cluster.create(pod)
                assert created.metadata.uid and created.metadata.resource_version
                with pytest.raises(AlreadyExistsError) as exists:
                    await cluster.create(pod)
                # the API server's NewAlreadyExists text, a 409 like any conflict
                assert str(exists.value) == 'pods "new" already exists'
                assert isinstance(exists.value, ConflictError)

                cluster.watch("Node", lambda ev: None)
                await cluster.wait_for_sync()
                node = cluster.get("Node", "n1")
                labelled = node.model_copy(deep=True)
                labelled.metadata.labels["zone"] = "z1"
                updated = await cluster.update(labelled)
                assert updated.metadata.labels["zone"] == "z1"
                (patch,) = server.requests_to("PATCH", "/api/v1/nodes/n1")
                assert patch.content_type == "application/merge-patch+json"
                assert patch.body == {
                    "metadata": {
                        "labels": {"zone": "z1"},
                        "resourceVersion": node.metadata.resource_version,
                    }
                }
                stored = server.get("v1/nodes", "n1")
                assert stored is not None and stored["status"]["capacity"]["cpu"] == "4"

                # another change from the stale version: a conflict, as a full update would be
                stale = node.model_copy(deep=True)
                stale.metadata.labels["rack"] = "r1"
                with pytest.raises(ConflictError, match="has been modified"):
                    await cluster.update(stale)
                await cluster.delete("Pod", "new", "default")
                with pytest.raises(NotFoundError):
                    await cluster.delete("Pod", "new", "default")

    run(scenario)


def test_update_sends_status_changes_to_the_status_subresource() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1", cpu="2"))
            async with cluster_on(server) as cluster:
                cluster.watch("Node", lambda ev: None)
                await cluster.wait_for_sync()
                node = cluster.get("Node", "n1").model_copy(deep=True)
                node.metadata.labels["a"] = "b"
                node.spec.unschedulable = True
                node.status.allocatable["cpu"] = 3  # type: ignore[assignment]
                updated = await cluster.update(node)
                assert updated.status.allocatable["cpu"] == 3
                assert updated.spec.unschedulable
                main, status = server.requests_to("PATCH", "/api/v1/nodes/n1")
                assert "status" not in main.body
                assert status.path.endswith("/status")
                assert status.body["status"] == {"allocatable": {"cpu": "3"}}
                # the second patch carries the version the first one produced
                assert (
                    status.body["metadata"]["resourceVersion"]
                    != (main.body["metadata"]["resourceVersion"])
                )

    run(scenario)


def test_lease_lock_creates_reads_and_updates_with_optimistic_concurrency() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            a = KubeLeaseLock(Transport.for_host(server.url), "kube-system", "kubesched", "a")
            b = KubeLeaseLock(Transport.for_host(server.url), "kube-system", "kubesched", "b")
            try:
                assert await a.get() is None
                record = LeaderElectionRecord("a", 15, None, None, 0)
                await a.create(record)
                with pytest.raises(ConflictError):
                    await b.create(LeaderElectionRecord("b", 15))
                seen = await b.get()
                assert seen is not None and seen.holder_identity == "a"
                # a renewal (a write that changes nothing would keep the resourceVersion)
                renewed = LeaderElectionRecord("a", 15, renew_time=datetime.now(UTC))
                await a.update(renewed)
                with pytest.raises(ConflictError):  # b read the Lease before a's update
                    await b.update(LeaderElectionRecord("b", 15, leader_transitions=1))
                lease = server.get("coordination.k8s.io/v1/leases", "kube-system/kubesched")
                assert lease is not None
                assert lease["spec"]["holderIdentity"] == "a"
                assert lease["spec"]["leaseDurationSeconds"] == 15
            finally:
                for lock in (a, b):
                    await lock._transport.close()

    run(scenario)
