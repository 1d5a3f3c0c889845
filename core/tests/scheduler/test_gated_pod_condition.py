"""A gated pod's PodScheduled condition over its life: the API server's SchedulingGated
condition on create (pkg/registry/core/pod/strategy.go), untouched while the pod is gated
(a PreEnqueue rejection writes nothing), then whatever the scheduler writes once the gates
are removed."""

from __future__ import annotations

import asyncio

from sched_harness import CpuFit, condition, make_simulation

from kubesched.api import SCHEDULING_GATED_MESSAGE, Pod
from kubesched.framework import PreEnqueuePlugin, Status
from kubesched.testing import make_node, make_pod

GATED = ("False", "SchedulingGated", SCHEDULING_GATED_MESSAGE)


class Gates(PreEnqueuePlugin):
    """SchedulingGates' rule and message (core's tests cannot import builtin)."""

    name = "TestGates"

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.spec.scheduling_gates:
            return None
        names = " ".join(g.name for g in pod.spec.scheduling_gates)
        return Status.unresolvable(f"waiting for scheduling gates: [{names}]")


def test_the_condition_is_the_api_servers_until_the_gates_go() -> None:
    node = make_node("n1").alloc(cpu="1").obj()
    big = make_pod("big").req(cpu="2").gates("example.com/wait").obj()
    sim = make_simulation([node, big], [Gates, CpuFit], until=60)
    seen: list[tuple[str, str, str] | None] = []

    async def ungate_later() -> None:
        await asyncio.sleep(10)
        seen.append(condition(sim, "big"))
        pod = sim.cluster.get("Pod", "big", "default")
        assert isinstance(pod, Pod)
        await sim.cluster.update(
            pod.model_copy(update={"spec": pod.spec.model_copy(update={"scheduling_gates": []})})
        )

    sim.loop.call_soon(lambda: sim.loop.create_task(ungate_later()))
    result = sim.run()

    assert seen == [GATED]
    failed = ("False", "Unschedulable", "0/1 nodes are available: 1 Insufficient cpu.")
    assert condition(sim, "big") == failed
    assert (result.pod("big").status, result.pod("big").message) == ("Unschedulable", failed[2])


def test_a_pod_still_gated_reports_the_api_servers_message() -> None:
    sim = make_simulation(
        [make_node("n1").alloc(cpu="1").obj(), make_pod("g").gates("x").obj()], [Gates]
    )
    result = sim.run()
    assert condition(sim, "g") == GATED
    assert (result.pod("g").status, result.pod("g").message) == (
        "Pending",
        SCHEDULING_GATED_MESSAGE,
    )
    assert result.pod("g").attempts == 0
