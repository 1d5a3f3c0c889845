"""Informers against the fake API server: list, watch, resume, relist on 410, backoff.

Needs the `kube` extra (kubernetes_asyncio and its aiohttp): skipped without it.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import add_ready_node, cluster_on, eventually, fake_server, run

from kubesched.api import KindInfo, KindRegistry, Namespace, core_kinds
from kubesched.cluster import WatchEvent
from kubesched.cluster.kube import POD_FIELD_SELECTOR, InformerSettings
from kubesched.testing.apiserver import FakeApiServer, node_raw, pod_raw

Seen = list[tuple[str, str, str]]


def recorder(seen: Seen) -> Any:
    def handler(ev: WatchEvent) -> None:
        seen.append((ev.type, ev.kind, ev.obj.metadata.name))

    return handler


def watch_requests(server: FakeApiServer, path: str) -> list[dict[str, str]]:
    return [r.query for r in server.requests_to("GET", path) if r.query.get("watch") == "true"]


def test_list_then_watch_delivers_existing_objects_then_changes() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            server.add("v1/pods", pod_raw("a"))
            listed_at = str(server.rv)
            async with cluster_on(server) as cluster:
                seen: Seen = []
                cluster.watch("Pod", recorder(seen))
                assert seen == []  # never inside watch()
                await cluster.wait_for_sync()
                assert seen == [("ADDED", "Pod", "a")]
                assert cluster.get("Pod", "a", "default") is not None
                assert cluster.get("Node", "n1") is None  # Node is not watched

                server.add("v1/pods", pod_raw("b"))
                server.modify(
                    "v1/pods", "default/a", lambda o: o["metadata"].update(labels={"x": "1"})
                )
                server.remove("v1/pods", "default/b")
                await eventually(lambda: len(seen) == 4, "three changes delivered")
                assert seen[1:] == [
                    ("ADDED", "Pod", "b"),
                    ("MODIFIED", "Pod", "a"),
                    ("DELETED", "Pod", "b"),
                ]
                pod = cluster.get("Pod", "a", "default")
                assert pod.metadata.labels == {"x": "1"}
                assert [p.metadata.name for p in cluster.list("Pod")] == ["a"]

                # the watch started from the list's resourceVersion, with bookmarks
                (first, *_) = watch_requests(server, "/api/v1/pods")
                assert first["resourceVersion"] == listed_at
                assert first["allowWatchBookmarks"] == "true"
                assert 300 <= int(first["timeoutSeconds"]) < 600

    run(scenario)


def test_modified_events_carry_the_previous_version() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1", cpu="2"))
            async with cluster_on(server) as cluster:
                events: list[WatchEvent] = []
                cluster.watch("Node", events.append)
                await cluster.wait_for_sync()

                def grow(o: dict[str, Any]) -> None:
                    o["status"]["allocatable"]["cpu"] = "8"

                server.modify("v1/nodes", "n1", grow)
                await eventually(lambda: len(events) == 2, "MODIFIED delivered")
                ev = events[1]
                assert ev.type == "MODIFIED"
                assert ev.old.status.allocatable["cpu"] == 2
                assert ev.obj.status.allocatable["cpu"] == 8

    run(scenario)


def test_pods_are_listed_and_watched_without_terminal_pods() -> None:
    # kube-scheduler's pod informer field selector; the scheduler's own filters (schedulerName,
    # nodeName) are applied by its handlers, not by the informer
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/pods", pod_raw("done"))
            # a kubelet reports the end of its pod
            server.patch_path(
                "/api/v1/namespaces/default/pods/done/status", {"status": {"phase": "Succeeded"}}
            )
            server.add("v1/pods", pod_raw("other", scheduler="someone-else"))
            server.add("v1/pods", pod_raw("bound", node="n1"))
            async with cluster_on(server) as cluster:
                seen: Seen = []
                cluster.watch("Pod", recorder(seen))
                await cluster.wait_for_sync()
                assert sorted(name for _, _, name in seen) == ["bound", "other"]
                lists = [
                    r.query for r in server.requests_to("GET", "/api/v1/pods") if "limit" in r.query
                ]
                assert lists[0]["fieldSelector"] == POD_FIELD_SELECTOR
                await eventually(lambda: server.watcher_count == 1, "watch open")
                assert watch_requests(server, "/api/v1/pods")[0]["fieldSelector"] == (
                    POD_FIELD_SELECTOR
                )

    run(scenario)


def test_lists_in_pages() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            for i in range(7):
                server.add("v1/nodes", node_raw(f"n{i}"))
            settings = InformerSettings(page_size=3, backoff_initial=0.01, backoff_max=0.05)
            async with cluster_on(server, settings=settings) as cluster:
                seen: Seen = []
                cluster.watch("Node", recorder(seen))
                await cluster.wait_for_sync()
                assert sorted(name for _, _, name in seen) == [f"n{i}" for i in range(7)]
                pages = [
                    r.query
                    for r in server.requests_to("GET", "/api/v1/nodes")
                    if "limit" in r.query
                ]
                assert [p.get("continue", "") != "" for p in pages] == [False, True, True]
                assert {p["limit"] for p in pages} == {"3"}

    run(scenario)


def test_a_watch_that_ends_resumes_from_the_last_resource_version_without_listing() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            async with cluster_on(server) as cluster:
                seen: Seen = []
                cluster.watch("Node", recorder(seen))
                await cluster.wait_for_sync()
                server.add("v1/nodes", node_raw("n2"))
                await eventually(lambda: len(seen) == 2, "n2 delivered")
                informer = cluster.informers["Node"]
                last_seen = str(server.rv)
                assert informer.resource_version == last_seen

                server.drop_watches()
                await eventually(lambda: informer.watches == 2, "watching again")
                server.add("v1/nodes", node_raw("n3"))
                await eventually(lambda: len(seen) == 3, "n3 delivered")
                assert informer.lists == 1
                assert watch_requests(server, "/api/v1/nodes")[1]["resourceVersion"] == last_seen

    run(scenario)


def test_a_broken_connection_resumes_and_loses_no_event() -> None:
    # the fake-server twin of test_kube_envtest's watch test: a node made ready while nobody
    # watches arrives as its ADDED (tainted) and one MODIFIED per write, in order
    async def scenario() -> None:
        async with fake_server() as server, cluster_on(server) as cluster:
            events: list[WatchEvent] = []
            cluster.watch("Node", events.append)
            await cluster.wait_for_sync()
            add_ready_node(server, node_raw("n1"))
            await eventually(lambda: len(events) == 3, "n1 and its two writes delivered")
            # cut the connection, and change things while nobody watches
            server.drop_watches(abort=True)
            written = add_ready_node(server, node_raw("n2"))
            gone = server.remove("v1/nodes", "n1")
            await eventually(lambda: len(events) == 7, "missed events replayed")
            missed = [
                (e.type, e.obj.metadata.name, e.obj.metadata.resource_version) for e in events[3:]
            ]
            assert missed == [
                ("ADDED", "n2", written[0]["metadata"]["resourceVersion"]),
                ("MODIFIED", "n2", written[1]["metadata"]["resourceVersion"]),
                ("MODIFIED", "n2", written[2]["metadata"]["resourceVersion"]),
                ("DELETED", "n1", gone["metadata"]["resourceVersion"]),
            ]
            versions = [int(v) for _, _, v in missed]
            assert versions == sorted(versions) and len(set(versions)) == 4
            assert [t.key for t in events[3].obj.spec.taints] == ["node.kubernetes.io/not-ready"]
            assert events[5].obj.spec.taints == []
            assert cluster.informers["Node"].lists == 1

    run(scenario)


def test_bookmarks_move_the_resource_version_without_events() -> None:
    async def scenario() -> None:
        async with fake_server() as server, cluster_on(server) as cluster:
            seen: Seen = []
            cluster.watch("Node", recorder(seen))
            await cluster.wait_for_sync()
            await eventually(lambda: server.watcher_count == 1, "watch open")
            server.add("v1/pods", pod_raw("elsewhere"))  # moves the global resourceVersion
            server.bookmark()
            informer = cluster.informers["Node"]
            await eventually(lambda: informer.resource_version == str(server.rv), "bookmark seen")
            assert seen == []

    run(scenario)


@pytest.mark.parametrize("as_http", [False, True], ids=["error-event", "http-410"])
def test_410_gone_relists_and_reports_only_the_difference(as_http: bool) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.gone_as_http = as_http
            server.add("v1/nodes", node_raw("keep"))
            server.add("v1/nodes", node_raw("change"))
            server.add("v1/nodes", node_raw("drop"))
            async with cluster_on(server) as cluster:
                seen: Seen = []
                cluster.watch("Node", recorder(seen))
                await cluster.wait_for_sync()
                await eventually(lambda: server.watcher_count == 1, "watch open")
                informer = cluster.informers["Node"]
                # while disconnected: changes, then history is compacted past our version
                server.drop_watches(abort=True)
                server.add("v1/nodes", node_raw("new"))
                server.modify(
                    "v1/nodes", "change", lambda o: o["metadata"].update(labels={"a": "b"})
                )
                server.remove("v1/nodes", "drop")
                server.compact()
                await eventually(lambda: informer.lists == 2, "listed again")
                await eventually(lambda: len(seen) == 6, "differences delivered")
                assert sorted(seen[3:]) == [
                    ("ADDED", "Node", "new"),
                    ("DELETED", "Node", "drop"),
                    ("MODIFIED", "Node", "change"),
                ]
                assert sorted(n.metadata.name for n in cluster.list("Node")) == [
                    "change",
                    "keep",
                    "new",
                ]

    run(scenario)


def test_410_while_watching_relists() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            async with cluster_on(server) as cluster:
                seen: Seen = []
                cluster.watch("Node", recorder(seen))
                await cluster.wait_for_sync()
                await eventually(lambda: server.watcher_count == 1, "watch open")
                server.expire_watches()
                informer = cluster.informers["Node"]
                await eventually(lambda: informer.lists == 2, "listed again")
                server.add("v1/nodes", node_raw("n2"))
                await eventually(lambda: len(seen) == 2, "n2 delivered after the relist")
                assert seen == [("ADDED", "Node", "n1"), ("ADDED", "Node", "n2")]

    run(scenario)


def test_errors_back_off_and_recover() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            server.fail("GET", "/api/v1/nodes", 500, "InternalError", "etcd is down", times=3)
            async with cluster_on(server) as cluster:
                seen: Seen = []
                cluster.watch("Node", recorder(seen))
                await cluster.wait_for_sync()
                assert seen == [("ADDED", "Node", "n1")]
                lists = [
                    r for r in server.requests_to("GET", "/api/v1/nodes") if "limit" in r.query
                ]
                assert len(lists) == 4  # three failures, then the list that worked

    run(scenario)


def test_a_kind_the_server_does_not_serve_counts_as_synced_and_empty() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.not_served.add("scheduling.x-k8s.io/v1alpha1/podgroups")
            kinds = KindRegistry()
            for info in core_kinds():
                kinds.register(info)
            kinds.register(
                KindInfo(
                    "scheduling.x-k8s.io/v1alpha1",
                    "PodGroup",
                    "podgroups",
                    namespaced=True,
                    model=Namespace,
                )
            )
            async with cluster_on(server, kinds=kinds) as cluster:
                seen: Seen = []
                cluster.watch("PodGroup", recorder(seen))
                cluster.watch("Node", recorder(seen))
                await cluster.wait_for_sync()
                assert cluster.list("PodGroup") == []
                assert cluster.synced

    run(scenario)


def test_objects_that_do_not_decode_are_left_out() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            bad = node_raw("bad")
            bad["status"]["allocatable"]["cpu"] = "lots"
            server.add("v1/nodes", bad)
            server.add("v1/nodes", node_raw("good"))
            async with cluster_on(server) as cluster:
                seen: Seen = []
                cluster.watch("Node", recorder(seen))
                await cluster.wait_for_sync()
                assert seen == [("ADDED", "Node", "good")]

    run(scenario)


def test_a_second_handler_gets_the_cache_replayed_then_changes() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            async with cluster_on(server) as cluster:
                first: Seen = []
                cluster.watch("Node", recorder(first))
                await cluster.wait_for_sync()
                second: Seen = []
                cluster.watch("Node", recorder(second))
                assert second == []
                await cluster.wait_for_sync()
                assert second == [("ADDED", "Node", "n1")]
                server.add("v1/nodes", node_raw("n2"))
                await eventually(lambda: len(second) == 2, "n2 delivered to both")
                assert first == second
                assert len(server.requests_to("GET", "/api/v1/nodes")) == 2  # one list, one watch

    run(scenario)


def test_a_handler_that_raises_does_not_stop_delivery() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            server.add("v1/nodes", node_raw("n2"))
            async with cluster_on(server) as cluster:
                seen: Seen = []

                def flaky(ev: WatchEvent) -> None:
                    seen.append((ev.type, ev.kind, ev.obj.metadata.name))
                    raise RuntimeError("handler bug")

                cluster.watch("Node", flaky)
                await cluster.wait_for_sync()
                assert [name for _, _, name in seen] == ["n1", "n2"]

    run(scenario)
