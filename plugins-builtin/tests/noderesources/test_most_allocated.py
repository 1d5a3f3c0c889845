"""MostAllocated scoring, from upstream noderesources/most_allocated_test.go."""

from __future__ import annotations

import pytest
from builtin_helpers import make_node, make_pod
from fit_helpers import EXTENDED_RES, fit_plugin, scores, strategy

from kubesched.api import Node, Pod

DEFAULT = [("cpu", 1), ("memory", 1)]
EXTENDED_SET = [("cpu", 1), ("memory", 1), (EXTENDED_RES, 1)]


def _n(name: str, cpu: str, memory: str, ext: str | None = None) -> Node:
    alloc = {"cpu": cpu, "memory": memory} | ({EXTENDED_RES: ext} if ext else {})
    return make_node(name).alloc(alloc).obj()


def _big_pod() -> Pod:
    return make_pod().req(cpu="1000", memory="2000").req(cpu="2000", memory="3000").obj()


def _on(name: str, node: str, cpu: str, memory: str) -> Pod:
    return make_pod(name).node(node).req(cpu=cpu, memory=memory).obj()


CASES: list[tuple[str, Pod, list[Node], list[Pod], list[tuple[str, int]], list[int]]] = [
    (
        "nothing scheduled, nothing requested",
        make_pod().obj(),
        [_n("node1", "4000", "10000"), _n("node2", "4000", "10000")],
        [],
        DEFAULT,
        [0, 0],
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        _big_pod(),
        [_n("node1", "4000", "10000"), _n("node2", "6000", "10000")],
        [],
        DEFAULT,
        [62, 50],
    ),
    (
        "no resources requested, pods scheduled with resources",
        make_pod().obj(),
        [_n("node1", "10000", "20000"), _n("node2", "10000", "20000")],
        [
            _on("a", "node1", "3000", "0"),
            _on("b", "node1", "3000", "0"),
            _on("c", "node2", "3000", "0"),
            _on("d", "node2", "3000", "5000"),
        ],
        DEFAULT,
        [30, 42],
    ),
    (
        "resources requested, pods scheduled with resources",
        _big_pod(),
        [_n("node1", "10000", "20000"), _n("node2", "10000", "20000")],
        [_on("a", "node1", "3000", "0"), _on("b", "node2", "3000", "5000")],
        DEFAULT,
        [42, 55],
    ),
    (
        "resources requested equal node capacity",
        make_pod().req(cpu="2000", memory="4000").req(cpu="3000", memory="5000").obj(),
        [_n("node1", "5000", "10000"), _n("node2", "10000", "9000")],
        [],
        DEFAULT,
        [95, 75],
    ),
    (
        "nothing scheduled, resources requested, different weights",
        _big_pod(),
        [_n("node1", "4000", "10000"), _n("node2", "6000", "10000")],
        [],
        [("memory", 2), ("cpu", 1)],
        [58, 50],
    ),
    (
        "no resources requested, pods scheduled, nonzero request for resource",
        make_pod().container().obj(),
        [_n("node1", "250m", "1000Mi"), _n("node2", "250m", "1000Mi")],
        [
            make_pod("a").node("node1").container().obj(),
            make_pod("b").node("node1").container().obj(),
        ],
        DEFAULT,
        [80, 30],
    ),
    (
        "bypass extended resource if the pod does not request",
        _big_pod(),
        [_n("node1", "6000", "10000"), _n("node2", "6000", "10000", "4")],
        [],
        EXTENDED_SET,
        [50, 50],
    ),
    (
        "honor extended resource if the pod requests",
        make_pod().req({"cpu": "3000", "memory": "5000", EXTENDED_RES: "2"}).obj(),
        [_n("node1", "6000", "10000", "4"), _n("node2", "6000", "10000", "10")],
        [],
        EXTENDED_SET,
        [50, 40],
    ),
    (
        "if the node doesn't have a resource",
        make_pod().req(cpu="3000", memory="4000").obj(),
        [_n("node1", "6000", "10000"), _n("node2", "6000", "10000", "4")],
        [],
        [(EXTENDED_RES, 2), ("cpu", 1), ("memory", 1)],
        [45, 45],
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "nodes", "existing", "resources", "want"), CASES, ids=[c[0] for c in CASES]
)
def test_most_allocated(
    name: str,
    pod: Pod,
    nodes: list[Node],
    existing: list[Pod],
    resources: list[tuple[str, int]],
    want: list[int],
) -> None:
    plugin = fit_plugin(strategy("MostAllocated", resources))
    assert [s for _, s in scores(plugin, pod, nodes, existing)] == want
