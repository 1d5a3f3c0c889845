"""`batch_score_mismatch`: what the BatchScore contract and plugin tests use to compare a
batch Score with Score node by node."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import pytest

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.config import ResolvedProfile
from kubesched.framework import CycleState, NodeInfo, ScorePlugin, Snapshot, Status
from kubesched.runtime import Framework
from kubesched.testing import batch_score_mismatch, make_node, make_pod


class Recorder:
    def event(self, *args: Any) -> None:
        pass


class ByPods(ScorePlugin):
    """Score: the number of pods on the node; fails on a node named "bad"."""

    name: ClassVar[str] = "ByPods"
    batch: Any = None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if node_info.name == "bad":
            return 0, Status.as_error("bad node")
        return len(node_info.pods), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Sequence[int], Status | None]:
        return type(self).batch(nodes)  # type: ignore[no-any-return]


def plugin() -> ByPods:
    spec = ResolvedProfile("s", {"Score": ["ByPods"]}, {}, {})
    fwk = Framework(
        spec,
        {"ByPods": ByPods},
        cluster=None,
        clock=VirtualClock(),
        snapshot=Snapshot(),
        event_recorder=Recorder(),
    )
    p = fwk.plugins["ByPods"]
    assert isinstance(p, ByPods)
    return p


def infos(*names: str) -> list[NodeInfo]:
    out = []
    for i, name in enumerate(names):
        info = NodeInfo(make_node(name).alloc(cpu="1", pods=10).obj())
        for j in range(i):
            info.add_pod(make_pod(f"{name}-{j}").node(name).obj())
        out.append(info)
    return out


def right(nodes: Sequence[NodeInfo]) -> tuple[Sequence[int], Status | None]:
    for n in nodes:
        if n.name == "bad":
            return [], Status.as_error("bad node")
    return [len(n.pods) for n in nodes], None


CASES = [
    pytest.param(right, ("a", "b", "c"), None, id="equal"),
    pytest.param(right, ("a", "bad", "c"), None, id="the same failure"),
    pytest.param(
        lambda ns: ([0 for _ in ns], None),
        ("a", "b"),
        "score_nodes [0, 0], node by node [0, 1] (nodes ['a', 'b'])",
        id="different scores",
    ),
    pytest.param(
        lambda ns: ([0, 1], None),
        ("a", "bad"),
        "score_nodes failed with None, Score node by node with ('Error', 'bad node')",
        id="fails where score fails",
    ),
    pytest.param(
        lambda ns: ([], Status.unschedulable("no")),
        ("a", "b"),
        "score_nodes failed with ('Unschedulable', 'no'), Score node by node with None",
        id="fails where score does not",
    ),
    pytest.param(
        lambda ns: ([False, True], None),
        ("a", "b"),
        "score_nodes returned ['bool'] values, not ints",
        id="bools are not ints",
    ),
    pytest.param(lambda ns: [0, 1], ("a", "b"), "not (scores, status)", id="no status"),
]


@pytest.mark.parametrize(("batch", "names", "says"), CASES)
def test_batch_score_mismatch(batch: Any, names: tuple[str, ...], says: str | None) -> None:
    ByPods.batch = staticmethod(batch)
    got = batch_score_mismatch(plugin(), CycleState(), make_pod("p").obj(), infos(*names))
    if says is None:
        assert got is None
    else:
        assert got is not None and says in got, got
