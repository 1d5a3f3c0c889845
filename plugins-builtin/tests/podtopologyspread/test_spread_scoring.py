"""PodTopologySpread PreScore, Score and NormalizeScore, from upstream
podtopologyspread/scoring_test.go (TestPreScoreSkip, TestPreScoreStateEmptyNodes,
TestPodTopologySpreadScore). Legend of upstream's names: X/Y are matching pods on feasible
nodes, ~Y~ on a node that is not feasible, ?Y? on a feasible node missing a topology key."""

from __future__ import annotations

from typing import Any

import pytest
from builtin_helpers import node_infos
from podtopologyspread_helpers import (
    BAR,
    FOO,
    HOSTNAME,
    UNSCHEDULABLE_TAINT,
    label_selector,
    node,
    plugin,
    pod,
    scores,
)

from kubesched.api import LabelSelector, Node, Pod
from kubesched.framework import Code, CycleState, Snapshot
from kubesched_builtin.podtopologyspread import (
    PRE_SCORE_STATE_KEY,
    PreScoreState,
    Selector,
    topology_normalizing_weight,
)

ZONE = "topology.kubernetes.io/zone"
LIST: dict[str, Any] = {"defaultingType": "List"}


def host_nodes(*names: str) -> list[Node]:
    return [node(n).label(**{HOSTNAME: n}).obj() for n in names]


def foo_on(spread: dict[str, int], label: str = "foo") -> list[Pod]:
    """Pods labelled `label`, `spread` = {node: count}, named p-<node letter><i>."""
    return [
        pod(f"p-{n[-1]}{i}").node(n).label(**{label: ""}).obj()
        for n, count in spread.items()
        for i in range(1, count + 1)
    ]


def zone_host_nodes(*zones: tuple[str, str]) -> list[Node]:
    return [node(n).label(zone=z).label(**{HOSTNAME: n}).obj() for n, z in zones]


A1_B1_X2_Y2 = (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"), ("node-y", "zone2"))
FOO_HOST = pod().label(foo="").spread_constraint(1, HOSTNAME, "ScheduleAnyway", FOO).obj()
FOO_ZONE_AND_BAR_HOST = (
    pod()
    .label(foo="")
    .label(bar="")
    .spread_constraint(1, "zone", "ScheduleAnyway", FOO)
    .spread_constraint(1, HOSTNAME, "ScheduleAnyway", BAR)
    .obj()
)
NODE_ABC = [
    node("node-a").label(node="node-a").label(foo="").obj(),
    node("node-b").label(node="node-b").label(foo="").obj(),
    node("node-c").label(node="node-c").obj(),
]
A2_B1_C1 = {"node-a": 2, "node-b": 1, "node-c": 1}

SCORE_CASES: list[tuple[str, Pod, list[Node], list[Node], list[Pod], dict[str, int], Any]] = [
    (
        "one constraint on node, no existing pods",
        FOO_HOST,
        host_nodes("node-a", "node-b"),
        [],
        [],
        {"node-a": 100, "node-b": 100},
        None,
    ),
    (
        "one constraint on node, only one node is candidate",
        FOO_HOST,
        host_nodes("node-a"),
        host_nodes("node-b"),
        foo_on({"node-a": 2, "node-b": 1}),
        {"node-a": 100},
        None,
    ),
    (
        "one constraint on node, all nodes have the same number of matching pods",
        FOO_HOST,
        host_nodes("node-a", "node-b"),
        [],
        foo_on({"node-a": 1, "node-b": 1}),
        {"node-a": 100, "node-b": 100},
        None,
    ),
    (
        "one constraint on node, all 4 nodes are candidates",
        FOO_HOST,
        host_nodes("node-a", "node-b", "node-c", "node-d"),
        [],
        foo_on({"node-a": 2, "node-b": 1, "node-d": 3}),
        {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0},
        None,
    ),
    (
        "one constraint on node, null selector",
        pod().label(foo="").spread_constraint(1, HOSTNAME, "ScheduleAnyway", None).obj(),
        host_nodes("node-a", "node-b", "node-c", "node-d"),
        [],
        foo_on({"node-a": 2, "node-b": 1, "node-d": 3}),
        {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
        None,
    ),
    (
        "one constraint on node, all 4 nodes are candidates, maxSkew=2",
        pod().label(foo="").spread_constraint(2, HOSTNAME, "ScheduleAnyway", FOO).obj(),
        host_nodes("node-a", "node-b", "node-c", "node-d"),
        [],
        foo_on({"node-a": 2, "node-b": 1, "node-d": 3}),
        {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16},
        None,
    ),
    (
        "one constraint on node, all 4 nodes are candidates, maxSkew=3",
        pod().label(foo="").spread_constraint(3, HOSTNAME, "ScheduleAnyway", FOO).obj(),
        host_nodes("node-a", "node-b", "node-c", "node-d"),
        [],
        foo_on({"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}),
        {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
        None,
    ),
    (
        "system defaulting, nodes don't have zone, pods match service",
        pod().label(foo="").obj(),
        host_nodes("node-a", "node-b", "node-c", "node-d"),
        [],
        foo_on({"node-a": 4, "node-b": 3, "node-c": 2, "node-d": 1}),
        {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
        [{"kind": "Service", "spec": {"selector": {"foo": ""}}}],
    ),
    (
        "one constraint on node, 3 out of 4 nodes are candidates",
        FOO_HOST,
        host_nodes("node-a", "node-b", "node-x"),
        host_nodes("node-y"),
        foo_on({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}),
        {"node-a": 33, "node-b": 83, "node-x": 100},
        None,
    ),
    (
        "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match "
        "topology key",
        FOO_HOST,
        [*host_nodes("node-a"), node("node-b").label(n="node-b").obj(), *host_nodes("node-x")],
        host_nodes("node-y"),
        foo_on({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}),
        {"node-a": 16, "node-b": 0, "node-x": 100},
        None,
    ),
    (
        "one constraint on zone, 3 out of 4 nodes are candidates",
        pod().label(foo="").spread_constraint(1, "zone", "ScheduleAnyway", FOO).obj(),
        zone_host_nodes(*A1_B1_X2_Y2[:3]),
        zone_host_nodes(A1_B1_X2_Y2[3]),
        foo_on({"node-a": 4, "node-b": 2, "node-x": 1, "node-y": 3}),
        {"node-a": 75, "node-b": 75, "node-x": 100},
        None,
    ),
    (
        "two Constraints on zone and node, 2 out of 4 nodes are candidates",
        pod()
        .label(foo="")
        .spread_constraint(1, "zone", "ScheduleAnyway", FOO)
        .spread_constraint(1, HOSTNAME, "ScheduleAnyway", FOO)
        .obj(),
        zone_host_nodes(A1_B1_X2_Y2[0], A1_B1_X2_Y2[2]),
        zone_host_nodes(A1_B1_X2_Y2[1], A1_B1_X2_Y2[3]),
        foo_on({"node-a": 2, "node-b": 1, "node-x": 2, "node-y": 4}),
        {"node-a": 100, "node-x": 63},
        None,
    ),
    (
        "two Constraints on zone and node, with different labelSelectors",
        FOO_ZONE_AND_BAR_HOST,
        zone_host_nodes(*A1_B1_X2_Y2),
        [],
        [
            pod("p-a1").node("node-a").label(foo="").obj(),
            pod("p-b1").node("node-b").label(foo="").label(bar="").obj(),
            pod("p-y1").node("node-y").label(foo="").obj(),
            pod("p-y2").node("node-y").label(bar="").obj(),
        ],
        {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60},
        None,
    ),
    (
        "two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
        FOO_ZONE_AND_BAR_HOST,
        zone_host_nodes(*A1_B1_X2_Y2),
        [],
        [
            pod("p-b1").node("node-b").label(bar="").obj(),
            pod("p-x1").node("node-x").label(foo="").obj(),
            pod("p-y1").node("node-y").label(foo="").label(bar="").obj(),
        ],
        {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0},
        None,
    ),
    (
        "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are "
        "candidates",
        FOO_ZONE_AND_BAR_HOST,
        zone_host_nodes(*A1_B1_X2_Y2[:3]),
        zone_host_nodes(A1_B1_X2_Y2[3]),
        [
            pod("p-a1").node("node-a").label(foo="").obj(),
            pod("p-b1").node("node-b").label(foo="").label(bar="").obj(),
            pod("p-y1").node("node-y").label(foo="").obj(),
            pod("p-y2").node("node-y").label(bar="").obj(),
        ],
        {"node-a": 50, "node-b": 25, "node-x": 100},
        None,
    ),
    (
        "existing pods in a different namespace do not count",
        FOO_HOST,
        host_nodes("node-a", "node-b"),
        [],
        [
            pod("p-a1").namespace("ns1").node("node-a").label(foo="").obj(),
            pod("p-a2").node("node-a").label(foo="").obj(),
            pod("p-b1").node("node-b").label(foo="").obj(),
            pod("p-b2").node("node-b").label(foo="").obj(),
        ],
        {"node-a": 100, "node-b": 33},
        None,
    ),
    (
        "terminating Pods should be excluded",
        FOO_HOST,
        host_nodes("node-a", "node-b"),
        [],
        [pod("p-a").node("node-a").label(foo="").terminating().obj(), *foo_on({"node-b": 1})],
        {"node-a": 100, "node-b": 0},
        None,
    ),
    (
        "minDomains has no effect when ScheduleAnyway",
        pod().label(foo="").spread_constraint(2, "node", "ScheduleAnyway", FOO, 10).obj(),
        [node(n).label(node=n).obj() for n in ("node-a", "node-b", "node-c")],
        [],
        foo_on({"node-a": 2, "node-b": 2, "node-c": 1}),
        {"node-a": 75, "node-b": 75, "node-c": 100},
        None,
    ),
    (
        "NodeAffinityPolicy honored with labelSelectors",
        pod()
        .label(foo="")
        .node_selector(foo="")
        .spread_constraint(1, "node", "ScheduleAnyway", FOO)
        .obj(),
        NODE_ABC,
        [],
        foo_on(A2_B1_C1),
        {"node-a": 0, "node-b": 33, "node-c": 100},
        None,
    ),
    (
        "NodeAffinityPolicy ignored with labelSelectors",
        pod()
        .label(foo="")
        .node_selector(foo="")
        .spread_constraint(1, "node", "ScheduleAnyway", FOO, None, "Ignore")
        .obj(),
        NODE_ABC,
        [],
        foo_on(A2_B1_C1),
        {"node-a": 66, "node-b": 100, "node-c": 100},
        None,
    ),
    (
        "NodeAffinityPolicy honored with nodeAffinity",
        pod()
        .label(foo="")
        .node_affinity_in("foo", [""])
        .spread_constraint(1, "node", "ScheduleAnyway", FOO)
        .obj(),
        NODE_ABC,
        [],
        foo_on(A2_B1_C1),
        {"node-a": 0, "node-b": 33, "node-c": 100},
        None,
    ),
    (
        "NodeTaintsPolicy honored",
        pod()
        .label(foo="")
        .spread_constraint(1, "node", "ScheduleAnyway", FOO, None, None, "Honor")
        .obj(),
        [
            node("node-a").label(node="node-a").obj(),
            node("node-b").label(node="node-b").obj(),
            node("node-c").label(node="node-c").taint(UNSCHEDULABLE_TAINT).obj(),
        ],
        [],
        foo_on(A2_B1_C1),
        {"node-a": 0, "node-b": 33, "node-c": 100},
        None,
    ),
    (
        "NodeTaintsPolicy ignored",
        pod().label(foo="").spread_constraint(1, "node", "ScheduleAnyway", FOO).obj(),
        [
            node("node-a").label(node="node-a").obj(),
            node("node-b").label(node="node-b").obj(),
            node("node-c").label(node="node-c").taint(UNSCHEDULABLE_TAINT).obj(),
        ],
        [],
        foo_on(A2_B1_C1),
        {"node-a": 66, "node-b": 100, "node-c": 100},
        None,
    ),
    (
        "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        pod()
        .label(foo="")
        .label(bar="")
        .spread_constraint(1, "zone", "ScheduleAnyway", {}, match_label_keys=["foo"])
        .spread_constraint(1, HOSTNAME, "ScheduleAnyway", {}, match_label_keys=["bar"])
        .obj(),
        zone_host_nodes(
            ("node-a", "zone1"), ("node-b", "zone1"), ("node-c", "zone2"), ("node-d", "zone2")
        ),
        [],
        [
            pod("p-a1").node("node-a").label(foo="").obj(),
            pod("p-b1").node("node-b").label(foo="").label(bar="").obj(),
            pod("p-y1").node("node-c").label(foo="").obj(),
            pod("p-y2").node("node-c").label(bar="").obj(),
        ],
        {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
        None,
    ),
    (
        "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        pod()
        .label(foo="")
        .label(bar="")
        .label(baz="")
        .spread_constraint(1, "zone", "ScheduleAnyway", FOO)
        .spread_constraint(1, HOSTNAME, "ScheduleAnyway", BAR, match_label_keys=["baz"])
        .obj(),
        zone_host_nodes(
            ("node-a", "zone1"), ("node-b", "zone1"), ("node-c", "zone2"), ("node-d", "zone2")
        ),
        [],
        [
            pod("p-a1").node("node-a").label(foo="").obj(),
            pod("p-b1").node("node-b").label(foo="").label(bar="").label(baz="").obj(),
            pod("p-c1").node("node-c").label(foo="").obj(),
            pod("p-c2").node("node-c").label(bar="").obj(),
            pod("p-d3").node("node-c").label(bar="").label(baz="").obj(),
        ],
        {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
        None,
    ),
]


@pytest.mark.parametrize(
    ("pod_", "feasible", "failed", "existing", "want", "objects"),
    [c[1:] for c in SCORE_CASES],
    ids=[c[0] for c in SCORE_CASES],
)
def test_pod_topology_spread_score(
    pod_: Pod,
    feasible: list[Node],
    failed: list[Node],
    existing: list[Pod],
    want: dict[str, int],
    objects: list[dict[str, Any]] | None,
) -> None:
    # upstream runs these with System defaulting; only the service case uses the defaults
    assert scores(pod_, feasible, failed, existing, objects=objects or ()) == want


def test_weight_example_of_the_reference() -> None:
    """One zone constraint, two zones holding 3 and 1 matching pods: raw 4 and 1 → 25, 100."""
    nodes = zone_host_nodes(("node-a", "zone1"), ("node-b", "zone2"))
    p = pod().label(foo="").spread_constraint(1, "zone", "ScheduleAnyway", FOO).obj()
    assert scores(p, nodes, existing=foo_on({"node-a": 3, "node-b": 1})) == {
        "node-a": 25,
        "node-b": 100,
    }


# -- TestPreScoreSkip --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "nodes", "args", "objects"),
    [
        pytest.param(
            pod().obj(),
            host_nodes("node-a", "node-b"),
            LIST,
            [],
            id="the pod doesn't have soft topology spread Constraints",
        ),
        pytest.param(
            pod().label(foo="bar").label(baz="sup").owner("ReplicaSet", "rs2").obj(),
            [node("node-a").label(planet="mars").obj()],
            {
                "defaultingType": "List",
                "defaultConstraints": [
                    {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": "ScheduleAnyway"}
                ],
            },
            [
                {
                    "kind": "ReplicaSet",
                    "metadata": {"name": "rs1", "namespace": "default"},
                    "spec": {
                        "selector": {"matchExpressions": [{"key": "tar", "operator": "Exists"}]}
                    },
                }
            ],
            id="default constraints and a replicaset that doesn't match",
        ),
        pytest.param(
            pod().label(foo="").obj(),
            host_nodes("node-a", "node-b"),
            {"defaultingType": "System"},
            [],
            id="system defaults with no Services or controllers select nothing",  # ours
        ),
    ],
)
def test_pre_score_skip(
    p: Pod, nodes: list[Node], args: dict[str, Any], objects: list[dict[str, Any]]
) -> None:
    snapshot = Snapshot(node_infos(nodes))
    pl = plugin(args, objects, snapshot)
    status = pl.pre_score(CycleState(), p, snapshot.list())
    assert status is not None and status.code is Code.Skip


def test_pre_score_skips_with_no_nodes() -> None:
    p = pod().label(foo="").spread_constraint(1, "zone", "ScheduleAnyway", FOO).obj()
    status = plugin(LIST).pre_score(CycleState(), p, [])
    assert status is not None and status.code is Code.Skip


# -- TestPreScoreStateEmptyNodes ---------------------------------------------------------------


def _sel(data: dict[str, Any]) -> Selector:
    return Selector.from_label_selector(LabelSelector.model_validate(data))


RS1_FOO = [
    {
        "kind": "ReplicaSet",
        "metadata": {"name": "rs1", "namespace": "default"},
        "spec": {"selector": FOO},
    }
]

STATE_CASES: list[tuple[str, Pod, list[Node], Any, Any, Any]] = [
    (
        "normal case",
        pod()
        .label(foo="")
        .spread_constraint(1, "zone", "ScheduleAnyway", FOO)
        .spread_constraint(1, HOSTNAME, "ScheduleAnyway", FOO)
        .obj(),
        zone_host_nodes(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")),
        (LIST, []),
        [("zone", 1, _sel(FOO)), (HOSTNAME, 1, _sel(FOO))],
        (set(), [{"zone1": 0, "zone2": 0}, {}], [2, 3]),
    ),
    (
        "null selector",
        pod().label(foo="").spread_constraint(1, "zone", "ScheduleAnyway", None).obj(),
        zone_host_nodes(("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2")),
        (LIST, []),
        [("zone", 1, Selector(nothing=True))],
        (set(), [{"zone1": 0, "zone2": 0}], [2]),
    ),
    (
        "node-x doesn't have label zone",
        pod()
        .label(foo="")
        .spread_constraint(1, "zone", "ScheduleAnyway", FOO)
        .spread_constraint(1, HOSTNAME, "ScheduleAnyway", BAR)
        .obj(),
        [
            *zone_host_nodes(("node-a", "zone1"), ("node-b", "zone1")),
            node("node-x").label(**{HOSTNAME: "node-x"}).obj(),
        ],
        (LIST, []),
        [("zone", 1, _sel(FOO)), (HOSTNAME, 1, _sel(BAR))],
        ({"node-x"}, [{"zone1": 0}, {}], [1, 2]),
    ),
    (
        "system default constraints and a replicaset",
        pod().label(foo="tar").label(baz="sup").owner("ReplicaSet", "rs1").obj(),
        [
            node("node-a").label(**{HOSTNAME: "node-a"}).label(**{ZONE: "mars"}).obj(),
            node("node-b").label(**{HOSTNAME: "node-b"}).label(**{ZONE: "mars"}).obj(),
            # nodes with no zone are not excluded: they are considered a separate zone
            node("node-c").label(**{HOSTNAME: "node-c"}).obj(),
            node("node-d").label(**{HOSTNAME: "node-d"}).obj(),
        ],
        ({"defaultingType": "System"}, RS1_FOO),
        [(HOSTNAME, 3, _sel(FOO)), (ZONE, 5, _sel(FOO))],
        (set(), [{}, {"mars": 0, "": 0}], [4, 2]),
    ),
    (
        "default constraints and a replicaset",
        pod().label(foo="tar").label(baz="sup").owner("ReplicaSet", "rs1").obj(),
        [
            node("node-a")
            .label(rack="rack1")
            .label(**{HOSTNAME: "node-a"})
            .label(planet="mars")
            .obj()
        ],
        (
            {
                "defaultingType": "List",
                "defaultConstraints": [
                    {"maxSkew": 1, "topologyKey": HOSTNAME, "whenUnsatisfiable": "ScheduleAnyway"},
                    {"maxSkew": 2, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"},
                    {"maxSkew": 2, "topologyKey": "planet", "whenUnsatisfiable": "ScheduleAnyway"},
                ],
            },
            RS1_FOO,
        ),
        [(HOSTNAME, 1, _sel(FOO)), ("planet", 2, _sel(FOO))],
        (set(), [{}, {"mars": 0}], [1, 1]),
    ),
    (
        "default constraints and a replicaset, but pod has constraints",
        pod()
        .label(foo="bar")
        .label(baz="sup")
        .owner("ReplicaSet", "rs1")
        .spread_constraint(1, "zone", "DoNotSchedule", BAR)
        .spread_constraint(2, "planet", "ScheduleAnyway", label_selector(baz="sup"))
        .obj(),
        [node("node-a").label(planet="mars").label(galaxy="andromeda").obj()],
        (
            {
                "defaultingType": "List",
                "defaultConstraints": [
                    {"maxSkew": 2, "topologyKey": "galaxy", "whenUnsatisfiable": "ScheduleAnyway"}
                ],
            },
            RS1_FOO,
        ),
        [("planet", 2, _sel(label_selector(baz="sup")))],
        (set(), [{"mars": 0}], [1]),
    ),
]


@pytest.mark.parametrize(
    ("p", "nodes", "setup", "want_constraints", "want_state"),
    [c[1:] for c in STATE_CASES],
    ids=[c[0] for c in STATE_CASES],
)
def test_pre_score_state_empty_nodes(
    p: Pod,
    nodes: list[Node],
    setup: tuple[dict[str, Any], list[dict[str, Any]]],
    want_constraints: list[tuple[str, int, Selector]],
    want_state: tuple[set[str], list[dict[str, int]], list[int]],
) -> None:
    """PreScore over nodes holding no pods: the state's constraints, ignored nodes, domains
    (hostname domains are left to Score) and weights ln(domains + 2)."""
    args, objects = setup
    snapshot = Snapshot(node_infos(nodes))
    pl = plugin(args, objects, snapshot)
    state = CycleState()
    assert pl.pre_score(state, p, snapshot.list()) is None
    got = state.read(PRE_SCORE_STATE_KEY)
    assert isinstance(got, PreScoreState)
    assert [(c.topology_key, c.max_skew, c.selector) for c in got.constraints] == want_constraints
    assert all(
        (c.min_domains, c.node_affinity_policy, c.node_taints_policy) == (1, "Honor", "Ignore")
        for c in got.constraints
    )
    ignored, counts, sizes = want_state
    assert got.ignored_nodes == ignored
    assert got.topology_value_to_pod_counts == counts
    assert got.topology_normalizing_weight == [topology_normalizing_weight(n) for n in sizes]
