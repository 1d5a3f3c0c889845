"""A pod rejected by a plugin that registered Node/Add only is retried when a node's taints
(or unschedulable flag) change, as upstream registers Node/UpdateNodeTaint for such plugins
(scheduler.go buildQueueingHintMap, kubernetes#122292); other node updates still do not
move it before the unschedulable pool's 5-minute flush.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sched_harness import Cordon, make_simulation

from kubesched.api import Node
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EnqueueExtensions,
    EventResource,
)
from kubesched.simulate import SimulationResult
from kubesched.testing import make_node, make_pod


class CordonOnNodeAdd(Cordon, EnqueueExtensions):
    """Cordon that registers Node/Add only."""

    name = "CordonOnNodeAdd"

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.Node, ActionType.Add))]


def _uncordon(node: Node) -> None:
    node.spec.unschedulable = False


def _relabel(node: Node) -> None:
    node.metadata.labels["touched"] = "yes"


def _run(change: Callable[[Node], None]) -> SimulationResult:
    # n0 is cordoned; 5 s in it changes; the run ends at 60 s
    objs = [
        make_node("n0").alloc(cpu="2", memory="8Gi", pods=110).unschedulable().obj(),
        make_pod("p").req(cpu="1").obj(),
    ]
    sim = make_simulation(objs, [CordonOnNodeAdd], until=60)

    async def change_node() -> None:
        node = sim.cluster.get("Node", "n0")
        assert node is not None
        changed = node.model_copy(deep=True)
        change(changed)
        await sim.cluster.update(changed)

    sim.loop.call_later(5, lambda: sim.loop.create_task(change_node()))
    return sim.run()


@pytest.mark.parametrize(
    ("change", "outcome"),
    [
        pytest.param(_uncordon, ("Bound", "n0"), id="unschedulable-cleared"),
        pytest.param(_relabel, ("Unschedulable", None), id="label-changed"),
    ],
)
def test_node_add_registration_brings_node_taint_updates(
    change: Callable[[Node], None], outcome: tuple[str, str | None]
) -> None:
    result = _run(change)
    assert (result.pod("p").status, result.pod("p").node) == outcome
