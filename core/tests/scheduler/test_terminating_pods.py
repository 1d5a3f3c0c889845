"""A bound pod being deleted keeps its node until its grace period ends: the scheduler's
cache counts it there (upstream's cache has no rule for terminating pods: an update only
replaces the pod), and the room it leaves is seen only with its DELETED event."""

from __future__ import annotations

import asyncio
from typing import Any

from sched_harness import CpuFit, make_simulation

from kubesched.api import Node, Pod
from kubesched.cluster import Cluster
from kubesched.hookspecs import hookimpl
from kubesched.testing import make_node, make_pod


def _node(name: str, cpu: str) -> Node:
    return make_node(name).alloc(cpu=cpu, pods="10").obj()


def _pod(name: str, cpu: str, node: str = "", grace: int | None = None) -> Pod:
    """A pod without a uid (the cluster gives it one), requesting `cpu`."""
    pod = make_pod(name, uid="").req(cpu=cpu).node(node)
    if grace is not None:
        pod.spec(terminationGracePeriodSeconds=grace)
    return pod.obj()


class _DeleteAt:
    """Deletes a pod (as `kubectl delete` does: no grace period given) at a virtual time."""

    name = "test-delete"

    def __init__(self, at: float, pod: str) -> None:
        self.at, self.pod, self.done = at, pod, False

    def start(self, cluster: Cluster) -> None:
        async def delete() -> None:
            await asyncio.sleep(self.at)
            await cluster.delete("Pod", self.pod, "default")
            self.done = True

        self.task = asyncio.get_running_loop().create_task(delete())

    def busy(self) -> bool:
        return not self.done

    @hookimpl
    def kubesched_cluster_controllers(self, cluster: Cluster) -> list[_DeleteAt]:
        return [self]


def _run(grace: int | None, until: float | None = None) -> Any:
    objects = [_node("n1", "2"), _pod("old", "2", node="n1", grace=grace), _pod("new", "2")]
    sim = make_simulation(objects, [CpuFit], until=until)
    sim.pm.register(_DeleteAt(5, "old"))
    return sim.run(), sim


def test_the_room_is_free_only_when_the_grace_period_ends() -> None:
    result, sim = _run(grace=20)
    assert (result.pod("new").status, result.pod("new").node) == ("Bound", "n1")
    scheduled = [e.timestamp for e in sim.cluster.events() if e.reason == "Scheduled"]
    assert scheduled == [25.0]  # deleted at 5 s, gone at 25 s
    assert [p.name for p in result.pods] == ["new"]  # deleted, not preempted: not reported


def test_while_it_terminates_it_is_counted_on_its_node() -> None:
    result, sim = _run(grace=None, until=20)
    old = result.pod("old")
    assert (old.status, old.node, old.message) == (
        "Terminating",
        "n1",
        "being deleted; terminating until 35s",
    )
    assert (old.preempted_by, old.preempted_at) == (None, None)
    assert result.pod("new").status == "Unschedulable"
    assert sim.scheduler is not None
    info = sim.scheduler.cache.dump()["n1"]
    assert [p.pod.metadata.name for p in info.pods] == ["old"]
    assert info.pods[0].pod.metadata.deletion_grace_period_seconds == 30
    assert info.requested.milli_cpu == 2000
