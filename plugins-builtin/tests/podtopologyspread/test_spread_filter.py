"""PodTopologySpread Filter, from upstream podtopologyspread/filtering_test.go
(TestSingleConstraint, TestMultipleConstraints): the status code of every node after
PreFilter over all nodes. NodeAffinity and TaintToleration do not run here, so nodes they
would reject may still pass this plugin, as upstream's comments say."""

from __future__ import annotations

import pytest
from podtopologyspread_helpers import (
    BAR,
    FOO,
    UNSCHEDULABLE_TAINT,
    filter_codes,
    node,
    plugin,
    pod,
    pre_filter,
)

from kubesched.api import Node, Pod
from kubesched.framework import Code
from kubesched_builtin.podtopologyspread import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
)

OK = Code.Success
NO = Code.Unschedulable
UUR = Code.UnschedulableAndUnresolvable


def zone_nodes(*extra_labels: tuple[str, str, str]) -> list[Node]:
    """node-a, node-b (zone1), node-x, node-y (zone2) with a `node` label; `extra_labels`
    are (node, key, value) additions."""
    out = []
    for n, z in (
        ("node-a", "zone1"),
        ("node-b", "zone1"),
        ("node-x", "zone2"),
        ("node-y", "zone2"),
    ):
        b = node(n).label(zone=z).label(node=n)
        for target, key, value in extra_labels:
            if target == n:
                b.label(**{key: value})
        out.append(b.obj())
    return out


def on(node_name: str, *names: str, label: str = "foo") -> list[Pod]:
    return [pod(n).node(node_name).label(**{label: ""}).obj() for n in names]


SPREAD_2_1_0_3 = [
    *on("node-a", "p-a1", "p-a2"),
    *on("node-b", "p-b1"),
    *on("node-y", "p-y1", "p-y2", "p-y3"),
]
SINGLE: list[tuple[str, Pod, list[Node], list[Pod], dict[str, Code]]] = [
    (
        "no existing pods",
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj(),
        zone_nodes(),
        [],
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
    ),
    (
        "no existing pods, incoming pod doesn't match itself",
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", BAR).obj(),
        zone_nodes(),
        [],
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
    ),
    (
        "existing pods in a different namespace do not count",
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj(),
        zone_nodes(),
        [
            pod("p-a1").namespace("ns1").node("node-a").label(foo="").obj(),
            pod("p-b1").namespace("ns2").node("node-a").label(foo="").obj(),
            *on("node-x", "p-x1"),
            *on("node-y", "p-y1"),
        ],
        {"node-a": OK, "node-b": OK, "node-x": NO, "node-y": NO},
    ),
    (
        "existing pods do not match null selector",
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", None).obj(),
        zone_nodes(),
        [*on("node-x", "p-x1"), *on("node-y", "p-y1")],
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
    ),
    (
        "pods spread across zones as 3/3, all nodes fit",
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj(),
        zone_nodes(),
        SPREAD_2_1_0_3,
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": OK},
    ),
    (
        "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj(),
        [
            node("node-a").label(zone="zone1").label(node="node-a").obj(),
            node("node-b").label(zon="zone1").label(node="node-b").obj(),
            node("node-x").label(zone="zone2").label(node="node-x").obj(),
            node("node-y").label(zone="zone2").label(node="node-y").obj(),
        ],
        [
            *on("node-a", "p-a1"),
            *on("node-b", "p-b1"),
            *on("node-x", "p-x1"),
            *on("node-y", "p-y1"),
        ],
        {"node-a": OK, "node-b": UUR, "node-x": NO, "node-y": NO},
    ),
    (
        "pod cannot be scheduled as all nodes don't have label 'rack'",
        pod().label(foo="").spread_constraint(1, "rack", "DoNotSchedule", FOO).obj(),
        [zone_nodes()[0], zone_nodes()[2]],
        [],
        {"node-a": UUR, "node-x": UUR},
    ),
    (
        "pods spread across nodes as 2/1/0/3, only node-x fits",
        pod().label(foo="").spread_constraint(1, "node", "DoNotSchedule", FOO).obj(),
        zone_nodes(),
        SPREAD_2_1_0_3,
        {"node-a": NO, "node-b": NO, "node-x": OK, "node-y": NO},
    ),
    (
        "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
        pod().label(foo="").spread_constraint(2, "node", "DoNotSchedule", FOO).obj(),
        zone_nodes(),
        SPREAD_2_1_0_3,
        {"node-a": NO, "node-b": OK, "node-x": OK, "node-y": NO},
    ),
    (
        "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        pod().label(bar="").spread_constraint(1, "node", "DoNotSchedule", FOO).obj(),
        zone_nodes(),
        SPREAD_2_1_0_3,
        {"node-a": NO, "node-b": OK, "node-x": OK, "node-y": NO},
    ),
    (
        "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        pod()
        .label(foo="")
        .node_affinity_in("node", ["node-a", "node-y"])
        .spread_constraint(1, "node", "DoNotSchedule", FOO)
        .obj(),
        zone_nodes(),
        SPREAD_2_1_0_3,
        {"node-a": OK, "node-b": OK, "node-x": OK, "node-y": NO},
    ),
    (
        "terminating Pods should be excluded",
        pod().label(foo="").spread_constraint(1, "node", "DoNotSchedule", FOO).obj(),
        [
            node("node-a").label(node="node-a").obj(),
            node("node-b").label(node="node-b").obj(),
        ],
        [pod("p-a").node("node-a").label(foo="").terminating().obj(), *on("node-b", "p-b")],
        {"node-a": OK, "node-b": NO},
    ),
    (
        "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < "
        "minDomains, then the third node fits",
        pod().label(foo="").spread_constraint(2, "node", "DoNotSchedule", FOO, 4).obj(),
        [node(n).label(node=n).obj() for n in ("node-a", "node-b", "node-c")],
        [*on("node-a", "p-a1", "p-a2"), *on("node-b", "p-b1", "p-b2"), *on("node-c", "p-c1")],
        {"node-a": NO, "node-b": NO, "node-c": OK},
    ),
    (
        "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > "
        "minDomains, then the all nodes fit",
        pod().label(foo="").spread_constraint(2, "node", "DoNotSchedule", FOO, 2).obj(),
        [node(n).label(node=n).obj() for n in ("node-a", "node-b", "node-c")],
        [*on("node-a", "p-a1", "p-a2"), *on("node-b", "p-b1", "p-b2"), *on("node-c", "p-c1")],
        {"node-a": OK, "node-b": OK, "node-c": OK},
    ),
    (
        "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, "
        "then the third and fourth nodes fit",
        pod().label(foo="").spread_constraint(2, "zone", "DoNotSchedule", FOO, 3).obj(),
        zone_nodes(),
        [*on("node-a", "p-b1"), *on("node-b", "p-b2"), *on("node-y", "p-y1")],
        {"node-a": NO, "node-b": NO, "node-x": OK, "node-y": OK},
    ),
]


@pytest.mark.parametrize(
    ("pod_", "nodes", "existing", "want"),
    [c[1:] for c in SINGLE],
    ids=[c[0] for c in SINGLE],
)
def test_single_constraint(
    pod_: Pod, nodes: list[Node], existing: list[Pod], want: dict[str, Code]
) -> None:
    assert filter_codes(pod_, nodes, existing) == want


def two(
    zone_selector: dict[str, object], node_selector: dict[str, object], incoming: str = "foo"
) -> Pod:
    p = pod().label(**{incoming: ""})
    if incoming == "foo" and node_selector is BAR:
        p.label(bar="")
    return (
        p.spread_constraint(1, "zone", "DoNotSchedule", zone_selector)
        .spread_constraint(1, "node", "DoNotSchedule", node_selector)
        .obj()
    )


MULTIPLE: list[tuple[str, Pod, list[Node], list[Pod], dict[str, Code]]] = [
    (
        "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
        two(FOO, FOO),
        zone_nodes(),
        SPREAD_2_1_0_3,
        {"node-a": NO, "node-b": NO, "node-x": OK, "node-y": NO},
    ),
    (
        "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
        two(FOO, FOO),
        zone_nodes(),
        [*SPREAD_2_1_0_3, *on("node-y", "p-y4")],
        {"node-a": NO, "node-b": NO, "node-x": NO, "node-y": NO},
    ),
    (
        "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
        two(FOO, BAR),
        zone_nodes(),
        [*on("node-a", "p-a1"), *on("node-y", "p-y1", label="bar")],
        {"node-a": NO, "node-b": NO, "node-x": OK, "node-y": NO},
    ),
    (
        "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
        two(FOO, BAR),
        zone_nodes(),
        [
            *on("node-a", "p-a1"),
            *on("node-x", "p-x1", label="bar"),
            *on("node-y", "p-y1", label="bar"),
        ],
        {"node-a": NO, "node-b": NO, "node-x": NO, "node-y": NO},
    ),
    (
        "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
        two(FOO, BAR),
        zone_nodes(),
        [
            *on("node-a", "p-a1"),
            pod("p-a2").node("node-a").label(foo="").label(bar="").obj(),
            *on("node-y", "p-y1"),
            pod("p-y2").node("node-y").label(foo="").label(bar="").obj(),
            *on("node-y", "p-y3"),
        ],
        {"node-a": NO, "node-b": OK, "node-x": NO, "node-y": NO},
    ),
    (
        "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' "
        "constraint",
        two(FOO, BAR, incoming="bar"),
        zone_nodes(),
        [
            *on("node-a", "p-a1"),
            *on("node-x", "p-x1", label="bar"),
            *on("node-y", "p-y1", label="bar"),
        ],
        {"node-a": OK, "node-b": OK, "node-x": NO, "node-y": NO},
    ),
    (
        "two Constraints on zone and node, absence of label 'node' on node-x, "
        "spreads = [1/1, 1/0/0/1]",
        two(FOO, FOO),
        [*zone_nodes()[:2], node("node-x").label(zone="zone2").obj(), zone_nodes()[3]],
        [*on("node-a", "p-a1"), *on("node-y", "p-y3")],
        {"node-a": NO, "node-b": OK, "node-x": UUR, "node-y": NO},
    ),
    (
        "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
        pod()
        .label(foo="")
        .node_selector(foo="")
        .spread_constraint(1, "zone", "DoNotSchedule", FOO)
        .spread_constraint(1, "node", "DoNotSchedule", FOO, None, "Ignore")
        .obj(),
        zone_nodes(("node-a", "foo", ""), ("node-b", "foo", ""), ("node-x", "foo", "")),
        [*on("node-a", "p-a1"), *on("node-b", "p-b1"), *on("node-y", "p-y1")],
        {"node-a": NO, "node-b": NO, "node-x": OK, "node-y": NO},
    ),
    (
        "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
        pod()
        .label(foo="")
        .spread_constraint(1, "zone", "DoNotSchedule", FOO, None, None, "Honor")
        .spread_constraint(1, "node", "DoNotSchedule", FOO)
        .obj(),
        [
            *zone_nodes(("node-a", "foo", ""), ("node-b", "foo", ""), ("node-x", "foo", ""))[:3],
            node("node-y")
            .label(zone="zone2")
            .label(node="node-y")
            .taint(UNSCHEDULABLE_TAINT)
            .obj(),
        ],
        [*on("node-a", "p-a1"), *on("node-b", "p-b1"), *on("node-y", "p-y1")],
        {"node-a": NO, "node-b": NO, "node-x": OK, "node-y": NO},
    ),
    (
        "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
        pod()
        .label(foo="")
        .node_selector(foo="")
        .spread_constraint(1, "zone", "DoNotSchedule", FOO)
        .spread_constraint(1, "node", "DoNotSchedule", FOO)
        .obj(),
        [
            *zone_nodes(("node-a", "foo", ""), ("node-x", "foo", ""))[:3],
            node("node-y")
            .label(zone="zone2")
            .label(node="node-y")
            .label(foo="")
            .taint(UNSCHEDULABLE_TAINT)
            .obj(),
        ],
        [*on("node-a", "p-a1"), *on("node-b", "p-b1"), *on("node-y", "p-y1")],
        {"node-a": NO, "node-b": OK, "node-x": OK, "node-y": NO},
    ),
]


@pytest.mark.parametrize(
    ("pod_", "nodes", "existing", "want"),
    [c[1:] for c in MULTIPLE],
    ids=[c[0] for c in MULTIPLE],
)
def test_multiple_constraints(
    pod_: Pod, nodes: list[Node], existing: list[Pod], want: dict[str, Code]
) -> None:
    assert filter_codes(pod_, nodes, existing) == want


def test_reasons_are_upstream_texts() -> None:
    p = pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj()
    nodes = [*zone_nodes()[:3], node("node-y").label(node="node-y").obj()]
    pl = plugin()
    state, snapshot, _ = pre_filter(pl, p, nodes, on("node-a", "p-a1", "p-a2"))
    a = pl.filter(state, p, snapshot.list()[0])
    y = pl.filter(state, p, snapshot.list()[3])
    assert a is not None and a.reasons == (ERR_REASON_CONSTRAINTS_NOT_MATCH,)
    assert a.reasons == ("node(s) didn't match pod topology spread constraints",)
    assert y is not None and y.reasons == (
        "node(s) didn't match pod topology spread constraints (missing required label)",
    )
    assert y.reasons == (ERR_REASON_NODE_LABEL_NOT_MATCH,)


def test_empty_label_selector_counts_no_pods() -> None:
    """v1.34's countPodsMatchSelector returns 0 for an empty selector (`labelSelector: {}`),
    so such a constraint never rejects a node while the incoming pod matches itself. Ours:
    upstream fixed this later (kubernetes#141339)."""
    p = pod().label(foo="").spread_constraint(1, "node", "DoNotSchedule", {}).obj()
    assert filter_codes(p, zone_nodes(), SPREAD_2_1_0_3) == {
        "node-a": OK,
        "node-b": OK,
        "node-x": OK,
        "node-y": OK,
    }
