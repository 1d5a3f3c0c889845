"""LeastAllocated scoring, from upstream noderesources/least_allocated_test.go."""

from __future__ import annotations

import pytest
from builtin_helpers import make_node, make_pod
from fit_helpers import EXTENDED_RES, fit_plugin, scores, strategy

from kubesched.api import Node, Pod

DEFAULT = [("cpu", 1), ("memory", 1)]
EXTENDED_SET = [("cpu", 1), ("memory", 1), (EXTENDED_RES, 1)]


def _n(name: str, cpu: str, memory: str, **ext: str) -> Node:
    return make_node(name).alloc({"cpu": cpu, "memory": memory, **ext}).obj()


def _big_pod() -> Pod:
    return make_pod().req(cpu="1000", memory="2000").req(cpu="2000", memory="3000").obj()


def _on(node: str, cpu: str, memory: str) -> Pod:
    return make_pod(f"on-{node}-{cpu}-{memory}").node(node).req(cpu=cpu, memory=memory).obj()


CASES: list[tuple[str, Pod, list[Node], list[Pod], list[tuple[str, int]], list[int]]] = [
    (
        "nothing scheduled, nothing requested",
        make_pod().obj(),
        [_n("node1", "4000", "10000"), _n("node2", "4000", "10000")],
        [],
        DEFAULT,
        [100, 100],
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        _big_pod(),
        [_n("node1", "4000", "10000"), _n("node2", "6000", "10000")],
        [],
        DEFAULT,
        [37, 50],
    ),
    (
        "no resources requested, pods scheduled",
        make_pod().obj(),
        [_n("node1", "4000", "10000"), _n("node2", "4000", "10000")],
        [
            make_pod(f"e{i}").node(n).obj()
            for i, n in enumerate(["node1", "node1", "node2", "node2"])
        ],
        DEFAULT,
        [100, 100],
    ),
    (
        "no resources requested, pods scheduled with resources",
        make_pod().obj(),
        [_n("node1", "10000", "20000"), _n("node2", "10000", "20000")],
        [
            make_pod("a").node("node1").req(cpu="3000", memory="0").obj(),
            make_pod("b").node("node1").req(cpu="3000", memory="0").obj(),
            make_pod("c").node("node2").req(cpu="3000", memory="0").obj(),
            make_pod("d").node("node2").req(cpu="3000", memory="5000").obj(),
        ],
        DEFAULT,
        [70, 57],
    ),
    (
        "resources requested, pods scheduled with resources",
        _big_pod(),
        [_n("node1", "10000", "20000"), _n("node2", "10000", "20000")],
        [_on("node1", "3000", "0"), _on("node2", "3000", "5000")],
        DEFAULT,
        [57, 45],
    ),
    (
        "resources requested, pods scheduled with resources, differently sized nodes",
        _big_pod(),
        [_n("node1", "10000", "20000"), _n("node2", "10000", "50000")],
        [_on("node1", "3000", "0"), _on("node2", "3000", "5000")],
        DEFAULT,
        [57, 60],
    ),
    (
        "requested resources exceed node capacity",
        make_pod().req(cpu="3000", memory="0").obj(),
        [_n("node1", "4000", "10000"), _n("node2", "4000", "10000")],
        [_on("node1", "3000", "0"), _on("node2", "3000", "5000")],
        DEFAULT,
        [50, 25],
    ),
    (
        "zero node resources, pods scheduled with resources",
        make_pod().obj(),
        [make_node("node1").obj(), make_node("node2").obj()],
        [_on("node1", "3000", "0"), _on("node2", "3000", "5000")],
        DEFAULT,
        [0, 0],
    ),
    (
        "nothing scheduled, resources requested with different weight on CPU and memory",
        _big_pod(),
        [_n("node1", "4000", "10000"), _n("node2", "6000", "10000")],
        [],
        [("memory", 2), ("cpu", 1)],
        [41, 50],
    ),
    (
        "bypass extended resource if the pod does not request",
        _big_pod(),
        [
            _n("node1", "6000", "10000"),
            make_node("node2").alloc({"cpu": "6000", "memory": "10000", EXTENDED_RES: "4"}).obj(),
        ],
        [],
        EXTENDED_SET,
        [50, 50],
    ),
    (
        "honor extended resource if the pod requests",
        make_pod().req({"cpu": "3000", "memory": "5000", EXTENDED_RES: "2"}).obj(),
        [
            make_node("node1").alloc({"cpu": "6000", "memory": "10000", EXTENDED_RES: "4"}).obj(),
            make_node("node2").alloc({"cpu": "6000", "memory": "10000", EXTENDED_RES: "10"}).obj(),
        ],
        [],
        EXTENDED_SET,
        [50, 60],
    ),
    (
        "if the node doesn't have a resource",
        make_pod().req(cpu="3000", memory="4000").obj(),
        [
            _n("node1", "6000", "10000"),
            make_node("node2").alloc({"cpu": "6000", "memory": "10000", EXTENDED_RES: "4"}).obj(),
        ],
        [],
        [(EXTENDED_RES, 2), ("cpu", 1), ("memory", 1)],
        [55, 55],
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "nodes", "existing", "resources", "want"), CASES, ids=[c[0] for c in CASES]
)
def test_least_allocated(
    name: str,
    pod: Pod,
    nodes: list[Node],
    existing: list[Pod],
    resources: list[tuple[str, int]],
    want: list[int],
) -> None:
    plugin = fit_plugin(strategy("LeastAllocated", resources))
    assert [s for _, s in scores(plugin, pod, nodes, existing)] == want
