"""Namespace and PriorityClass changes never wake unschedulable pods: upstream has no
EventResource for them, so even a plugin registered for every event (Wildcard) waits for an
event of a kind the scheduler queues, or the 5-minute flush."""

from __future__ import annotations

import pytest
from sched_harness import make_simulation

from kubesched.api import Namespace, Pod, PriorityClass
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    NodeInfo,
    Status,
)
from kubesched.simulate import SimulationResult
from kubesched.testing import make_node, make_pod


class NeverUntilWoken(FilterPlugin, EnqueueExtensions):
    """Rejects every pod and registers for every event: each event offered to the queue
    gives the pod one more attempt."""

    name = "NeverUntilWoken"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("never")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.Wildcard, ActionType.All))]


def _run(kind: str) -> SimulationResult:
    objs = [
        make_node("n0").alloc(cpu="2", memory="8Gi", pods=110).obj(),
        make_pod("p").req(cpu="1").obj(),
    ]
    sim = make_simulation(objs, [NeverUntilWoken], until=60)

    async def change() -> None:
        if kind == "Namespace":
            await sim.cluster.create(Namespace.model_validate({"metadata": {"name": "team"}}))
        elif kind == "PriorityClass":
            await sim.cluster.create(
                PriorityClass.model_validate({"metadata": {"name": "high"}, "value": 1000})
            )
        elif kind == "Node":
            await sim.cluster.create(make_node("n1").alloc(cpu="2", memory="8Gi").obj())

    sim.loop.call_later(10, lambda: sim.loop.create_task(change()))
    return sim.run()


@pytest.mark.parametrize("kind", ["Namespace", "PriorityClass"])
def test_a_namespace_or_priority_class_change_wakes_no_pod(kind: str) -> None:
    quiet = _run("nothing")
    woken = _run("Node")  # a node is a queue event: the pod is tried again
    assert woken.pod("p").attempts > quiet.pod("p").attempts
    result = _run(kind)
    assert result.pod("p").status == "Unschedulable"
    assert result.pod("p").attempts == quiet.pod("p").attempts
