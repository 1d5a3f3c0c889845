"""What the Framework registers for each plugin's events (upstream scheduler.go
buildQueueingHintMap): a plugin registering Node/Add but not Node/UpdateNodeTaint also gets
Node/UpdateNodeTaint, always Queue (kubernetes#122292)."""

from __future__ import annotations

import pytest
from conftest import FrameworkFactory

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
    Plugin,
    QueueingHint,
    Status,
)

NODE, POD = EventResource.Node, EventResource.Pod


def _never(pod: Pod, old: object, new: object) -> QueueingHint:
    return QueueingHint.QueueSkip


def _registering(*events: tuple[str, ActionType]) -> type[Plugin]:
    class Registering(FilterPlugin, EnqueueExtensions):
        name = "Registering"

        def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
            return None

        def events_to_register(self) -> list[ClusterEventWithHint]:
            return [ClusterEventWithHint(ClusterEvent(r, a), _never) for r, a in events]

    return Registering


TAINT_UPDATE = (NODE, ActionType.UpdateNodeTaint)


@pytest.mark.parametrize(
    ("registered", "added"),
    [
        pytest.param([(NODE, ActionType.Add)], True, id="node-add-only"),
        pytest.param(
            [(NODE, ActionType.Add | ActionType.UpdateNodeLabel), (POD, ActionType.Delete)],
            True,
            id="node-add-and-label",
        ),
        pytest.param([(NODE, ActionType.Add), TAINT_UPDATE], False, id="taint-registered"),
        pytest.param(
            [(NODE, ActionType.Add | ActionType.UpdateNodeTaint)], False, id="taint-in-same-event"
        ),
        pytest.param([(NODE, ActionType.All)], False, id="node-all"),
        pytest.param([(NODE, ActionType.UpdateNodeLabel)], False, id="no-node-add"),
        pytest.param([(POD, ActionType.Add)], False, id="pod-add"),
        pytest.param([], False, id="nothing"),
    ],
)
def test_node_add_brings_the_node_taint_update(
    make_framework: FrameworkFactory,
    registered: list[tuple[str, ActionType]],
    added: bool,
) -> None:
    fwk = make_framework({"Filter": [_registering(*registered)]})
    regs = fwk.events_to_register()["Registering"]
    declared = [ClusterEvent(r, a) for r, a in registered]
    assert [r.event for r in regs[: len(declared)]] == declared
    extra = regs[len(declared) :]
    if added:
        (fallback,) = extra
        assert fallback.event == ClusterEvent(*TAINT_UPDATE)
        assert fallback.hint is None  # always Queue (upstream defaultQueueingHintFn)
    else:
        assert extra == []
