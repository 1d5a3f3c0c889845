"""A pod giving up its nominated node requeues the pods it kept out (kubernetes#129058).

Upstream eventhandlers.go: pods of lower or equal priority count a nominated pod as if it
were assigned to its node, so when that pod is deleted or nominated elsewhere the pods of
lower or equal priority leave the unschedulable pool at once (event AssignedPodDelete), not
after its 5-minute flush.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from sched_harness import CpuFit, make_simulation

from kubesched.api import Pod
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
from kubesched.simulate import Simulation, SimulationResult
from kubesched.testing import make_node, make_pod

Change = Callable[[Simulation, Pod], Awaitable[None]]


async def _delete(sim: Simulation, pod: Pod) -> None:
    await sim.cluster.delete("Pod", pod.metadata.name, pod.metadata.namespace)


def _nominate(node: str) -> Change:
    async def change(sim: Simulation, pod: Pod) -> None:
        cond = pod.status.condition("PodScheduled")
        assert cond is not None
        await sim.cluster.update_pod_condition(pod, cond, node)

    return change


async def _relabel(sim: Simulation, pod: Pod) -> None:
    changed = pod.model_copy(deep=True)
    changed.metadata.labels["touched"] = "yes"
    await sim.cluster.update(changed)


class OnlyAfterAssignedPodDelete(FilterPlugin, EnqueueExtensions):
    """Rejects the pod named "mid" everywhere; only an assigned pod's deletion may help.
    Runs before CpuFit, so it is the plugin that rejected "mid"."""

    name = "OnlyAfterAssignedPodDelete"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("mid never fits") if pod.metadata.name == "mid" else None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.AssignedPod, ActionType.Delete))]


def _run(change: Change, high_priority: int = 100) -> SimulationResult:
    # "high" never fits (3 cpu on 2-cpu n0) but holds n0 by its nomination, so "low" (1 cpu)
    # does not fit there either; n1 has no cpu. 5 s in, "high" changes; the run ends at 60 s.
    objs = [
        make_node("n0").alloc(cpu="2", memory="8Gi", pods=110).obj(),
        make_node("n1").alloc(cpu="0", memory="8Gi", pods=110).obj(),
        make_pod("high").req(cpu="3").priority(high_priority).nominated("n0").obj(),
        make_pod("mid").req(cpu="1").priority(50).obj(),
        make_pod("low").req(cpu="1").priority(10).obj(),
    ]
    sim = make_simulation(objs, [OnlyAfterAssignedPodDelete, CpuFit], until=60)

    async def change_high() -> None:
        pod = sim.cluster.get("Pod", "high", "default")
        assert pod is not None
        await change(sim, pod)

    sim.loop.call_later(5, lambda: sim.loop.create_task(change_high()))
    return sim.run()


def test_without_a_release_the_pods_wait_in_the_pool() -> None:
    # the control: "high" changes, but keeps its nomination
    result = _run(_relabel)
    assert result.pod("low").status == "Unschedulable"
    assert result.pod("low").message == "0/2 nodes are available: 2 Insufficient cpu."
    assert result.pod("mid").status == "Unschedulable"


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(_delete, id="nominated-pod-deleted"),
        pytest.param(_nominate("n1"), id="nominated-elsewhere"),
        pytest.param(_nominate(""), id="nomination-cleared"),
    ],
)
def test_released_nomination_requeues_lower_or_equal_priority_pods(change: Change) -> None:
    control = _run(_relabel)
    result = _run(change)
    assert (result.pod("low").status, result.pod("low").node) == ("Bound", "n0")
    assert result.pod("low").attempts == control.pod("low").attempts + 1
    # "mid" (50 <= 100) is offered the event too, and rejected again
    assert result.pod("mid").attempts == control.pod("mid").attempts + 1


@pytest.mark.parametrize("high_priority", [20, 10])
def test_pods_of_higher_priority_than_the_released_pod_stay(high_priority: int) -> None:
    # "low" (10) is moved whether "high" outranks it or ties with it; "mid" (50) is not,
    # though it registered for AssignedPodDelete (upstream getLEPriorityPreCheck)
    control = _run(_relabel, high_priority=high_priority)
    result = _run(_delete, high_priority=high_priority)
    assert (result.pod("low").status, result.pod("low").node) == ("Bound", "n0")
    assert result.pod("mid").status == "Unschedulable"
    assert result.pod("mid").attempts == control.pod("mid").attempts
