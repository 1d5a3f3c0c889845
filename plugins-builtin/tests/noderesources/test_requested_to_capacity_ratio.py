"""RequestedToCapacityRatio scoring, from upstream
noderesources/requested_to_capacity_ratio_test.go and fit_test.go (TestFitScore)."""

from __future__ import annotations

import pytest
from builtin_helpers import make_node, make_pod
from fit_helpers import fit_plugin, scores, strategy

from kubesched.api import Node, Pod
from kubesched_builtin.noderesources.resource_allocation import broken_linear_function, go_div

DEFAULT = [("cpu", 1), ("memory", 1)]
SPREAD = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
PACK = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
PACK_1 = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 1}]


def _rtcr(resources: list[tuple[str, int]], shape: list[dict[str, int]]) -> dict[str, object]:
    return strategy(
        "RequestedToCapacityRatio", resources, requestedToCapacityRatio={"shape": shape}
    )


def _n(name: str, cpu: str, memory: str, **ext: str) -> Node:
    return make_node(name).alloc({"cpu": cpu, "memory": memory} | ext).obj()


def _ext_node(name: str, ext: dict[str, int]) -> Node:
    # upstream makeNode(name, 4000 millicores, 10000Mi, extended)
    alloc = {"cpu": "4000m", "memory": str(10000 * 1024 * 1024)} | {
        k: str(v) for k, v in ext.items()
    }
    return make_node(name).alloc(alloc).obj()


def _big_pod() -> Pod:
    return make_pod().req(cpu="1000", memory="2000").req(cpu="2000", memory="3000").obj()


CASES: list[tuple[str, Pod, list[Node], list[Pod], list[int]]] = [
    (
        "nothing scheduled, nothing requested (least requested nodes have priority)",
        make_pod().obj(),
        [_n("node1", "4000", "10000"), _n("node2", "4000", "10000")],
        [make_pod("a").node("node1").obj(), make_pod("b").node("node1").obj()],
        [100, 100],
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        _big_pod(),
        [_n("node1", "4000", "10000"), _n("node2", "6000", "10000")],
        [make_pod("a").node("node1").obj(), make_pod("b").node("node1").obj()],
        [38, 50],
    ),
    (
        "no resources requested, pods scheduled with resources",
        make_pod().obj(),
        [_n("node1", "4000", "10000"), _n("node2", "6000", "10000")],
        [
            make_pod("a").node("node1").req(cpu="3000", memory="5000").obj(),
            make_pod("b").node("node2").req(cpu="3000", memory="5000").obj(),
        ],
        [38, 50],
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "nodes", "existing", "want"), CASES, ids=[c[0] for c in CASES]
)
def test_requested_to_capacity_ratio(
    name: str, pod: Pod, nodes: list[Node], existing: list[Pod], want: list[int]
) -> None:
    plugin = fit_plugin(_rtcr(DEFAULT, SPREAD))
    assert [s for _, s in scores(plugin, pod, nodes, existing)] == want


@pytest.mark.parametrize(
    ("points", "assertions"),
    [
        (
            [(10, 1), (90, 9)],
            [
                (-10, 1),
                (0, 1),
                (9, 1),
                (10, 1),
                (15, 1),
                (19, 1),
                (20, 2),
                (89, 8),
                (90, 9),
                (99, 9),
                (100, 9),
                (110, 9),
            ],
        ),
        (
            [(0, 2), (40, 10), (100, 0)],
            [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)],
        ),
        (
            [(0, 2), (40, 2), (100, 2)],
            [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)],
        ),
    ],
)
def test_broken_linear_function(
    points: list[tuple[int, int]], assertions: list[tuple[int, int]]
) -> None:
    f = broken_linear_function(points)
    assert [(p, f(p)) for p, _ in assertions] == assertions


def test_broken_linear_function_truncates_toward_zero_like_go() -> None:
    # falling segment: 100 + (0-100)*(33-0)/100 = 100 - 33 (Go), not 100 - 34 (floor)
    f = broken_linear_function([(0, 100), (100, 0)])
    assert f(33) == 67
    assert go_div(-3300, 100) == -33 and go_div(-3301, 100) == -33 and go_div(7, 2) == 3


EXT_CASES = [
    (
        "single extended: nothing scheduled, nothing requested",
        [("intel.com/foo", 1)],
        make_pod().obj(),
        [],
        [0, 0],
    ),
    (
        "single extended: resources requested, pods scheduled with less resources",
        [("intel.com/foo", 1)],
        make_pod().req({"intel.com/foo": "2"}).obj(),
        [make_pod("e").obj()],
        [2, 5],
    ),
    (
        "single extended: on node with existing pod running",
        [("intel.com/foo", 1)],
        make_pod().req({"intel.com/foo": "2"}).obj(),
        [make_pod("e").req({"intel.com/foo": "2"}).node("node2").obj()],
        [2, 10],
    ),
    (
        "single extended: pods scheduled with more resources",
        [("intel.com/foo", 1)],
        make_pod().req({"intel.com/foo": "4"}).obj(),
        [make_pod("e").obj()],
        [5, 10],
    ),
]


@pytest.mark.parametrize(
    ("name", "resources", "pod", "existing", "want"), EXT_CASES, ids=[c[0] for c in EXT_CASES]
)
def test_bin_packing_single_extended(
    name: str, resources: list[tuple[str, int]], pod: Pod, existing: list[Pod], want: list[int]
) -> None:
    nodes = [_ext_node("node1", {"intel.com/foo": 8}), _ext_node("node2", {"intel.com/foo": 4})]
    plugin = fit_plugin(_rtcr(resources, PACK_1))
    assert [s for _, s in scores(plugin, pod, nodes, existing)] == want


MULTI_CASES = [
    ("nothing scheduled, nothing requested", make_pod().obj(), [], [0, 0]),
    (
        "resources requested, pods scheduled with less resources",
        make_pod().req({"intel.com/foo": "2", "intel.com/bar": "2"}).obj(),
        [],
        [4, 3],
    ),
    (
        "resources requested, pods scheduled with resources, on node with existing pod running",
        make_pod().req({"intel.com/foo": "2", "intel.com/bar": "2"}).obj(),
        [make_pod("e").req({"intel.com/foo": "4", "intel.com/bar": "2"}).node("node2").obj()],
        [4, 7],
    ),
    (
        "resources requested, pods scheduled with more resources",
        make_pod().req({"intel.com/foo": "4", "intel.com/bar": "2"}).obj(),
        [],
        [5, 5],
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "existing", "want"), MULTI_CASES, ids=[c[0] for c in MULTI_CASES]
)
def test_bin_packing_multiple_extended(
    name: str, pod: Pod, existing: list[Pod], want: list[int]
) -> None:
    nodes = [
        _ext_node("node1", {"intel.com/foo": 8, "intel.com/bar": 4}),
        _ext_node("node2", {"intel.com/foo": 4, "intel.com/bar": 8}),
    ]
    plugin = fit_plugin(_rtcr([("intel.com/foo", 3), ("intel.com/bar", 5)], PACK_1))
    assert [s for _, s in scores(plugin, pod, nodes, existing)] == want


FIT_SCORE_NODES = [_n("node1", "4000", "10000"), _n("node2", "6000", "10000")]
FIT_SCORE_EXISTING = [
    make_pod("a").node("node1").req(cpu="2000", memory="4000").obj(),
    make_pod("b").node("node2").req(cpu="1000", memory="2000").obj(),
]
FIT_SCORE_CASES = [
    (
        "RequestedToCapacityRatio case1",
        make_pod().req(cpu="3000", memory="5000").obj(),
        _rtcr(DEFAULT, SPREAD),
        [10, 32],
    ),
    (
        "RequestedToCapacityRatio case2",
        make_pod().req(cpu="3000", memory="5000").obj(),
        _rtcr(DEFAULT, PACK),
        [95, 68],
    ),
    (
        "MostAllocated",
        make_pod().req(cpu="1000", memory="2000").obj(),
        strategy("MostAllocated", DEFAULT),
        [67, 36],
    ),
    (
        "LeastAllocated",
        make_pod().req(cpu="1000", memory="2000").obj(),
        strategy("LeastAllocated", DEFAULT),
        [32, 63],
    ),
]


@pytest.mark.parametrize("pre_score", [True, False], ids=["with PreScore", "PreScore not called"])
@pytest.mark.parametrize(
    ("name", "pod", "args", "want"), FIT_SCORE_CASES, ids=[c[0] for c in FIT_SCORE_CASES]
)
def test_fit_score(
    name: str, pod: Pod, args: dict[str, object], want: list[int], pre_score: bool
) -> None:
    got = scores(fit_plugin(args), pod, FIT_SCORE_NODES, FIT_SCORE_EXISTING, pre_score=pre_score)
    assert got == [("node1", want[0]), ("node2", want[1])]


EDGE_CASES = [
    (
        "a resource scoring 0 on the curve does not count toward the weights",
        [("cpu", 1), ("example.com/gpu", 1)],
        PACK,
        make_pod().req({"example.com/gpu": "2"}).obj(),
        make_node("n").alloc({"cpu": "100", "memory": "1Gi", "example.com/gpu": "4"}).obj(),
        50,
    ),
    (
        "over-committed resources sit at 100% utilization",
        [("cpu", 1)],
        [
            {"utilization": 0, "score": 0},
            {"utilization": 99, "score": 10},
            {"utilization": 100, "score": 2},
        ],
        make_pod().req(cpu="2").obj(),
        make_node("n").alloc(cpu="1", memory="1Gi").obj(),
        20,
    ),
    (
        "rounding is half up",
        [("cpu", 1), ("memory", 1)],
        PACK,
        make_pod().req(cpu="240m", memory="1").obj(),  # (24 + 1) / 2 = 12.5
        make_node("n").alloc(cpu="1", memory="100").obj(),
        13,
    ),
]


@pytest.mark.parametrize(
    ("name", "resources", "shape", "pod", "node", "want"),
    EDGE_CASES,
    ids=[c[0] for c in EDGE_CASES],
)
def test_requested_to_capacity_ratio_edges(
    name: str,
    resources: list[tuple[str, int]],
    shape: list[dict[str, int]],
    pod: Pod,
    node: Node,
    want: int,
) -> None:
    assert scores(fit_plugin(_rtcr(resources, shape)), pod, [node]) == [("n", want)]


def test_default_args_score_least_allocated() -> None:
    got = scores(fit_plugin(), FIT_SCORE_CASES[3][1], FIT_SCORE_NODES, FIT_SCORE_EXISTING)
    assert got == [("node1", 32), ("node2", 63)]
