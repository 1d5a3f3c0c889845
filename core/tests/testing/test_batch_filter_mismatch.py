"""`batch_filter_mismatch`: what the BatchFilter contract and plugin tests use to compare a
batch Filter with Filter node by node."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import pytest

from kubesched.api import Pod
from kubesched.framework import CycleState, FilterPlugin, NoArgs, NodeInfo, Status
from kubesched.testing import batch_filter_mismatch, make_node, make_pod

Batch = Callable[[Sequence[NodeInfo]], Any]


class Busy(FilterPlugin):
    """Filter: Unschedulable on nodes running pods; raises on a node named "bad"."""

    name: ClassVar[str] = "Busy"

    def __init__(self, batch: Batch) -> None:
        super().__init__(NoArgs(), None)  # type: ignore[arg-type]
        self.batch = batch

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if node_info.name == "bad":
            raise KeyError("bad node")
        return Status.unschedulable("busy") if node_info.pods else None

    def filter_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Any:
        return self.batch(nodes)


class PerNodeOnly(FilterPlugin):
    name: ClassVar[str] = "PerNodeOnly"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


def infos(*names: str) -> list[NodeInfo]:
    """Node `names[i]` runs i pods."""
    out = []
    for i, name in enumerate(names):
        info = NodeInfo(make_node(name).alloc(cpu="1", pods=10).obj())
        for j in range(i):
            info.add_pod(make_pod(f"{name}-{j}").node(name).obj())
        out.append(info)
    return out


def right(nodes: Sequence[NodeInfo]) -> list[Status | None]:
    if any(n.name == "bad" for n in nodes):
        raise KeyError("bad node")
    return [Status.unschedulable("busy") if n.pods else Status() for n in nodes]


def boom(nodes: Sequence[NodeInfo]) -> Any:
    raise RuntimeError("boom")


CASES = [
    pytest.param(right, ("a", "b", "c"), None, id="equal (None and Success alike)"),
    pytest.param(right, ("a", "bad"), None, id="raises where filter raises"),
    pytest.param(
        lambda ns: [None for _ in ns],
        ("a", "b"),
        "filter_nodes answered ('Success', '') for node b, Filter ('Unschedulable', 'busy')",
        id="different answer",
    ),
    pytest.param(
        lambda ns: [Status.unschedulable("busy", "really") if n.pods else None for n in ns],
        ("a", "b"),
        "('Unschedulable', 'busy, really') for node b, Filter ('Unschedulable', 'busy')",
        id="different reasons",
    ),
    pytest.param(
        lambda ns: [Status.unresolvable("busy") if n.pods else None for n in ns],
        ("a", "b"),
        "('UnschedulableAndUnresolvable', 'busy') for node b",
        id="different code",
    ),
    pytest.param(
        lambda ns: [None, None, Status.unschedulable("busy")],
        ("a", "bad", "c"),
        "Filter raised on node bad (KeyError: 'bad node'), filter_nodes did not raise",
        id="does not raise where filter raises",
    ),
    pytest.param(boom, ("a", "b"), "filter_nodes raised RuntimeError: boom, while", id="raises"),
    pytest.param(lambda ns: [None], ("a", "b"), "returned 1 answers for 2 nodes", id="too few"),
    pytest.param(lambda ns: None, ("a",), "returned None, not a list", id="not a list"),
    pytest.param(
        lambda ns: [True for _ in ns], ("a",), "answered True for node a, not a Status", id="bool"
    ),
]


@pytest.mark.parametrize(("batch", "names", "says"), CASES)
def test_batch_filter_mismatch(batch: Batch, names: tuple[str, ...], says: str | None) -> None:
    got = batch_filter_mismatch(Busy(batch), CycleState(), make_pod("p").obj(), infos(*names))
    if says is None:
        assert got is None
    else:
        assert got is not None and says in got, got


def test_a_plugin_without_filter_nodes_is_reported() -> None:
    plugin = PerNodeOnly(NoArgs(), None)  # type: ignore[arg-type]
    got = batch_filter_mismatch(plugin, CycleState(), make_pod("p").obj(), infos("a"))
    assert got == "PerNodeOnly has no filter_nodes"
