"""Preemption with graceful termination, through the real scheduler on the memory cluster.

A victim is deleted as the API server deletes a bound pod: it stays on its node for its
grace period (30 s by default) with `deletionTimestamp` set, and the scheduler's cache keeps
counting it there. So a pod arriving in that window does not take the room the nominated
preemptor is waiting for, and the preemptor, retried meanwhile, does not preempt again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from builtin_helpers import make_node, make_pod
from preemption_helpers import simulate

from kubesched.api import Node, Pod
from kubesched.cluster import Cluster
from kubesched.cluster.memory import MemoryCluster
from kubesched.hookspecs import hookimpl
from kubesched.simulate import Simulation, SimulationResult

PREEMPTING = "preemption: not eligible due to a terminating pod on the nominated node."


def _pod(name: str, cpu: str, prio: int, node: str = "", grace: int | None = None) -> Pod:
    """A pod without a uid (the cluster gives it one), requesting `cpu`."""
    pod = make_pod(name).uid("").req(cpu=cpu).priority(prio)
    if node:
        pod.node(node)
    if grace is not None:
        pod.spec(terminationGracePeriodSeconds=grace)
    return pod.obj()


def _node(name: str, cpu: str) -> Node:
    return make_node(name).alloc(cpu=cpu, memory="8Gi").obj()


class _At:
    """An embedded-cluster controller that makes one change at a virtual time."""

    name = "test-arrivals"

    def __init__(self, at: float, change: Callable[[MemoryCluster], Any]) -> None:
        self.at = at
        self.change = change
        self.done = False

    def start(self, cluster: Cluster) -> None:
        assert isinstance(cluster, MemoryCluster)
        loop = asyncio.get_running_loop()

        def fire() -> None:
            outcome = self.change(cluster)
            if asyncio.iscoroutine(outcome):
                task = loop.create_task(outcome)
                task.add_done_callback(lambda _: setattr(self, "done", True))
            else:
                self.done = True

        loop.call_later(self.at, fire)

    def busy(self) -> bool:
        return not self.done


class _Controllers:
    def __init__(self, controllers: Sequence[_At]) -> None:
        self.controllers = list(controllers)

    @hookimpl
    def kubesched_cluster_controllers(self, cluster: Cluster) -> list[_At]:
        return self.controllers


def _simulate(
    objects: Sequence[Any], *changes: _At, until: float | None = None, seed: int = 0
) -> tuple[SimulationResult, Simulation]:
    """The builtin preemption profile on the memory cluster (`preemption_helpers.simulate`),
    with `changes` made at their virtual times."""
    result, sim = simulate(objects, seed=seed, until=until, hooks=[_Controllers(changes)])
    return result, sim


def _arrive(at: float, *pods: Pod) -> _At:
    return _At(at, lambda cluster: cluster.create_many(pods))


def _full_node_and_a_spare(grace: int | None) -> list[Any]:
    """n1 (4 CPU) full of two low-priority victims; n2 full of a pod nobody may preempt;
    n3 with 1 CPU of 8 free; `urgent` (2.5 CPU) must preempt both victims on n1. Once they
    are gone, a 1-CPU pod fits on n1 beside `urgent` and scores higher there (1/8 of n1
    left free against none of n3)."""
    return [
        _node("n1", "4"),
        _node("n2", "4"),
        _node("n3", "8"),
        _pod("victim-1", "2", 0, node="n1", grace=grace),
        _pod("victim-2", "2", 0, node="n1", grace=grace),
        _pod("keep", "4", 2000, node="n2"),
        _pod("resident", "7", 2000, node="n3"),
        _pod("urgent", "2500m", 1000),
    ]


@pytest.mark.parametrize(
    ("name", "grace", "mid_node", "urgent_bound_at"),
    [
        # upstream: the victims hold n1 for 30 s, so `mid` goes to n3
        ("graceful termination (the default 30 s)", None, "n3", 30.0),
        # the victims go at once: room is left on n1 beside urgent, and n1 scores higher;
        # urgent, backing off, is retried at once as nothing else is active
        # (SchedulerPopFromBackoffQ, on in v1.34)
        ("victims with terminationGracePeriodSeconds 0", 0, "n1", 0.0),
    ],
)
def test_a_pod_arriving_while_victims_terminate_does_not_take_their_node(
    name: str, grace: int | None, mid_node: str, urgent_bound_at: float
) -> None:
    mid = _pod("mid", "1", 100)
    result, sim = _simulate(_full_node_and_a_spare(grace), _arrive(10, mid))

    assert (result.pod("urgent").status, result.pod("urgent").node) == ("Bound", "n1")
    assert (result.pod("mid").status, result.pod("mid").node) == ("Bound", mid_node)
    bound_at = {
        e.involved_name: e.timestamp for e in sim.cluster.events() if e.reason == "Scheduled"
    }
    assert bound_at["urgent"] == urgent_bound_at
    for victim in ("victim-1", "victim-2"):
        got = result.pod(victim)
        assert (got.status, got.node, got.preempted_by, got.preempted_at) == (
            "Preempted",
            None,
            "default/urgent",
            0.0,
        )
        assert got.message == "preempted by default/urgent on node n1 at 0s"


def test_victims_keep_their_node_until_their_grace_period_ends() -> None:
    result, sim = _simulate(_full_node_and_a_spare(None), until=10)

    urgent = result.pod("urgent")
    assert (urgent.status, urgent.nominated_node) == ("Unschedulable", "n1")
    for victim in ("victim-1", "victim-2"):
        got = result.pod(victim)
        assert (got.status, got.node, got.preempted_by, got.preempted_at) == (
            "Terminating",
            "n1",
            "default/urgent",
            0.0,
        )
        assert got.message == "preempted by default/urgent on node n1 at 0s; terminating until 30s"
        pod = sim.cluster.get("Pod", victim, "default")
        assert pod is not None and pod.metadata.deletion_grace_period_seconds == 30
        condition = pod.status.condition("DisruptionTarget")
        assert condition is not None
        assert (condition.status, condition.reason, condition.message) == (
            "True",
            "PreemptionByScheduler",
            "default-scheduler: preempting to accommodate a higher priority pod",
        )
    # the scheduler's cache still counts them on n1
    n1 = next(n for n in result.nodes if n.name == "n1")
    assert (n1.requested["cpu"], n1.pods) == (4000, 2)
    assert result.summary["terminating"] == 2


def test_a_preemptor_retried_while_its_victims_terminate_does_not_preempt_again() -> None:
    """A retry in the window (n1 grows by 500m at 10 s, which requeues `urgent`) finds n1
    still full; its victims are terminating, so PodEligibleToPreemptOthers says no, and
    n2's low-priority pod, which would also do, is left alone."""
    objects = _full_node_and_a_spare(None)
    # n2 has a possible victim too (n1's, of a lower priority, were preferred)
    objects[5] = _pod("spare", "4", 500, node="n2")

    async def grow(cluster: MemoryCluster) -> None:
        await cluster.update(_node("n1", "4500m"))

    result, sim = _simulate(objects, _At(10, grow))

    failed = [(e.timestamp, e.message) for e in sim.cluster.events() if e.involved_name == "urgent"]
    assert failed[:2] == [
        (0.0, "0/3 nodes are available: 3 Insufficient cpu."),
        (10.0, f"0/3 nodes are available: 3 Insufficient cpu. {PREEMPTING}"),
    ]
    assert (result.pod("urgent").status, result.pod("urgent").node) == ("Bound", "n1")
    assert result.pod("spare").status == "Bound"
    preempted = sorted(e.involved_name for e in sim.cluster.events() if e.reason == "Preempted")
    assert preempted == ["victim-1", "victim-2"]


def test_a_later_preemptor_counts_on_victims_already_terminating() -> None:
    """`mid` finds n1 full of terminating victims and room beside `urgent` once they are
    gone: it is nominated there too, and nobody else is evicted (victims already being
    deleted are not deleted again, upstream prepareCandidate)."""
    objects = [
        _node("n1", "4"),
        _pod("victim-1", "2", 0, node="n1"),
        _pod("victim-2", "2", 0, node="n1"),
        _pod("urgent", "3", 1000),
    ]
    result, sim = _simulate(objects, _arrive(10, _pod("mid", "1", 100)))

    assert [(p.name, p.status, p.node) for p in result.pods] == [
        ("mid", "Bound", "n1"),
        ("urgent", "Bound", "n1"),
        ("victim-1", "Preempted", None),
        ("victim-2", "Preempted", None),
    ]
    preempted = [e.involved_name for e in sim.cluster.events() if e.reason == "Preempted"]
    assert sorted(preempted) == ["victim-1", "victim-2"]
    assert result.virtual_seconds == 30.0


def test_runs_with_terminating_victims_repeat_exactly() -> None:
    def run(seed: int) -> dict[str, Any]:
        objects: list[Any] = [_node(f"n{i}", "2") for i in range(4)]
        objects += [_pod(f"low-{i}", "2", 0, node=f"n{i}", grace=5 * (i + 1)) for i in range(4)]
        objects += [_pod(f"high-{i}", "2", 100) for i in range(3)]
        result, _ = _simulate(objects, _arrive(2, _pod("late", "1", 50)), seed=seed)
        return result.to_json_dict()

    first = run(3)
    assert first == run(3)
    statuses = {p["name"]: (p["status"], p["preemptedBy"]) for p in first["pods"]}
    assert all(statuses[f"high-{i}"] == ("Bound", None) for i in range(3))
    preempted = [by for status, by in statuses.values() if status == "Preempted"]
    assert len(preempted) >= 3
    assert set(preempted) <= {"default/high-0", "default/high-1", "default/high-2", "default/late"}
