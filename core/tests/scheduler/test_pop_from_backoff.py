"""SchedulerPopFromBackoffQ end to end: a rejected pod that a cluster event sends to the
backoff queue is retried at once when nothing else is active (v1.34 default), or when its
backoff ends with the gate off."""

from __future__ import annotations

import asyncio
from typing import ClassVar

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
    PostBindPlugin,
)
from kubesched.testing import make_node, make_pod


class NodeCpuFit(CpuFit, EnqueueExtensions):
    """CpuFit whose rejections only a new node can undo."""

    name = "NodeCpuFit"

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.Node, ActionType.Add))]


class BindTimes(PostBindPlugin):
    """Records the virtual time each pod was bound at."""

    name = "BindTimes"
    seen: ClassVar[dict[str, float]] = {}

    async def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        BindTimes.seen[pod.metadata.name] = self.handle.clock.now()


@pytest.mark.parametrize(
    ("gates", "bound_at"),
    [
        ("", 0.5),  # popped from the backoff queue as soon as the node came
        ("SchedulerPopFromBackoffQ=false", 1.0),  # after its 1 s backoff
    ],
)
def test_rejected_pod_is_retried_at_once_when_nothing_else_is_active(
    gates: str, bound_at: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBESCHED_FEATURE_GATES", gates)
    BindTimes.seen.clear()
    sim = make_simulation(
        [make_node("small").alloc(cpu="1").obj(), make_pod("p").req(cpu="2").obj()],
        [NodeCpuFit, BindTimes],
        until=30,
    )

    async def add_node_later() -> None:
        await asyncio.sleep(0.5)
        await sim.cluster.create(make_node("big").alloc(cpu="4").obj())

    sim.loop.call_soon(lambda: sim.loop.create_task(add_node_later()))
    result = sim.run()
    assert result.pod("p").node == "big"
    assert result.pod("p").attempts == 2  # rejected at t=0, then bound
    assert BindTimes.seen == {"p": bound_at}
