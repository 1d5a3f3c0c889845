"""Watch delivery: replay, global order, never inside the writer's call, drained by the
running loop or by flush(); controllers and busy()."""

from __future__ import annotations

import asyncio

import pytest

from kubesched.api import Node, Pod
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster import Cluster, WatchEvent
from kubesched.cluster.memory import MemoryCluster
from kubesched.testing import make_node as node_builder
from kubesched.testing import make_pod as pod_builder

run = asyncio.run


def make_pod(name: str) -> Pod:
    """A pod as a manifest gives it: no namespace, no uid."""
    return pod_builder(name, namespace=None).uid("").obj()


def make_node(name: str) -> Node:
    return node_builder(name).uid("").obj()


class Recorder:
    def __init__(self) -> None:
        self.events: list[WatchEvent] = []

    def __call__(self, event: WatchEvent) -> None:
        self.events.append(event)

    def summary(self) -> list[tuple[str, str]]:
        return [(e.type, e.obj.metadata.name) for e in self.events]


def test_watch_replays_existing_objects_in_creation_order(cluster: MemoryCluster) -> None:
    cluster.create_many([make_pod("b"), make_pod("a"), make_pod("c")])
    pod_a = cluster.get("Pod", "a")
    assert pod_a is not None
    run(cluster.update(pod_a.model_copy(deep=True)))  # an update keeps its place
    recorder = Recorder()

    cluster.watch("Pod", recorder)
    assert recorder.events == []  # nothing inside the call
    cluster.flush()

    assert recorder.summary() == [("ADDED", "b"), ("ADDED", "a"), ("ADDED", "c")]
    assert recorder.events[1].obj is cluster.get("Pod", "a")


def test_changes_arrive_in_write_order_with_the_old_version(cluster: MemoryCluster) -> None:
    recorder = Recorder()
    cluster.watch("Pod", recorder)

    first = run(cluster.create(make_pod("p")))
    second = run(cluster.update(first.model_copy(deep=True)))
    run(cluster.bind(second, "n1"))
    run(cluster.delete("Pod", "p", grace_period_seconds=0))  # a bound pod: forced
    cluster.flush()

    assert [e.type for e in recorder.events] == ["ADDED", "MODIFIED", "MODIFIED", "DELETED"]
    assert recorder.events[1].old is first
    assert recorder.events[2].old is second
    assert recorder.events[3].obj.spec.node_name == "n1"


def test_each_kind_goes_only_to_its_handlers_and_every_handler_gets_it(
    cluster: MemoryCluster,
) -> None:
    pods_1, pods_2, nodes = Recorder(), Recorder(), Recorder()
    cluster.watch("Pod", pods_1)
    cluster.watch("Pod", pods_2)
    cluster.watch("Node", nodes)

    cluster.create_many([make_node("n1"), make_pod("p1")])
    cluster.flush()

    assert pods_1.summary() == pods_2.summary() == [("ADDED", "p1")]
    assert nodes.summary() == [("ADDED", "n1")]


def test_a_late_watcher_gets_the_current_state_then_later_changes(
    cluster: MemoryCluster,
) -> None:
    early = Recorder()
    cluster.watch("Pod", early)
    created = run(cluster.create(make_pod("p")))
    run(cluster.update(created.model_copy(deep=True)))
    late = Recorder()
    cluster.watch("Pod", late)  # registered before anything was delivered
    run(cluster.delete("Pod", "p"))

    cluster.flush()

    assert early.summary() == [("ADDED", "p"), ("MODIFIED", "p"), ("DELETED", "p")]
    assert late.summary() == [("ADDED", "p"), ("DELETED", "p")]
    assert late.events[0].obj.metadata.resource_version == "2"


def test_running_loop_delivers_with_call_soon_not_inside_the_write(
    cluster: MemoryCluster,
) -> None:
    recorder = Recorder()

    async def scenario() -> list[int]:
        cluster.watch("Pod", recorder)
        seen = []
        await cluster.create(make_pod("p1"))
        await cluster.create(make_pod("p2"))
        seen.append(len(recorder.events))  # still inside this task's step
        await asyncio.sleep(0)
        seen.append(len(recorder.events))
        return seen

    assert run(scenario()) == [0, 2]
    assert cluster.busy() is False


def test_events_queued_without_a_loop_are_delivered_once_one_runs(
    cluster: MemoryCluster,
) -> None:
    recorder = Recorder()
    cluster.watch("Pod", recorder)
    cluster.create_many([make_pod("p1")])
    assert cluster.busy() is True

    async def later() -> None:
        await cluster.create(make_pod("p2"))
        await asyncio.sleep(0)

    loop = VirtualTimeLoop(VirtualClock())
    try:
        loop.run_until_complete(later())
    finally:
        loop.close()

    assert recorder.summary() == [("ADDED", "p1"), ("ADDED", "p2")]


def test_writes_made_by_handlers_are_delivered_after_in_order(cluster: MemoryCluster) -> None:
    log: list[str] = []

    def spawner(event: WatchEvent) -> None:
        log.append(f"spawner {event.obj.metadata.name}")
        if event.obj.metadata.name == "parent":
            cluster.create_many([make_pod("child")])  # a write from inside a delivery

    def observer(event: WatchEvent) -> None:
        log.append(f"observer {event.obj.metadata.name}")

    async def scenario() -> None:
        cluster.watch("Pod", spawner)
        cluster.watch("Pod", observer)
        await cluster.create(make_pod("parent"))
        await asyncio.sleep(0)
        assert log == ["spawner parent", "observer parent"]  # child waits for the next drain
        await asyncio.sleep(0)

    run(scenario())

    assert log == ["spawner parent", "observer parent", "spawner child", "observer child"]


def test_flush_delivers_handler_writes_and_reraises_the_first_error(
    cluster: MemoryCluster,
) -> None:
    seen: list[str] = []

    def breaks_on_p1(event: WatchEvent) -> None:
        if event.obj.metadata.name == "p1":
            raise RuntimeError("handler bug")

    def follower(event: WatchEvent) -> None:
        seen.append(event.obj.metadata.name)
        if event.obj.metadata.name == "p1":
            cluster.create_many([make_pod("p1-child")])

    cluster.watch("Pod", breaks_on_p1)
    cluster.watch("Pod", follower)
    cluster.create_many([make_pod("p1"), make_pod("p2")])

    with pytest.raises(RuntimeError, match="handler bug"):
        cluster.flush()

    assert seen == ["p1", "p2", "p1-child"]
    assert cluster.busy() is False


def test_watching_an_unregistered_kind_is_quiet(cluster: MemoryCluster) -> None:
    recorder = Recorder()
    cluster.watch("PodGroup", recorder)
    cluster.flush()

    assert recorder.events == []
    assert cluster.list("PodGroup") == []
    assert cluster.get("PodGroup", "g", "default") is None


# -- controllers -------------------------------------------------------------------------


class FakeController:
    name = "fake"

    def __init__(self) -> None:
        self.started_with: Cluster | None = None
        self.working = False

    def start(self, cluster: Cluster) -> None:
        self.started_with = cluster

    def busy(self) -> bool:
        return self.working


def test_controllers_start_with_the_cluster_and_make_it_busy(cluster: MemoryCluster) -> None:
    controller = FakeController()
    cluster.add_controller(controller)
    assert controller.started_with is None

    cluster.start_controllers()

    assert controller.started_with is cluster
    assert cluster.controllers == [controller]
    assert cluster.busy() is False
    controller.working = True
    assert cluster.busy() is True
