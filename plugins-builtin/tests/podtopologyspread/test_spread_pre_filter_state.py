"""PodTopologySpread PreFilter state and its AddPod/RemovePod updates, from upstream
podtopologyspread/filtering_test.go (TestPreFilterState, TestPreFilterStateAddPod,
TestPreFilterStateRemovePod, TestPreFilterDisabled)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from podtopologyspread_helpers import (
    BAR,
    FOO,
    UNSCHEDULABLE_TAINT,
    label_selector,
    node,
    paths,
    plugin,
    pod,
    pre_filter,
)

from kubesched.api import LabelSelector, Node, Pod
from kubesched.framework import Code, CycleState, NodeInfo, PodInfo
from kubesched_builtin.podtopologyspread import (
    PRE_FILTER_STATE_KEY,
    PreFilterState,
    Selector,
)

MAX = 2**31 - 1


def zone_nodes() -> list[Node]:
    """node-a, node-b in zone1 and node-x, node-y in zone2, each with a `node` label."""
    return [
        node(n).label(zone=z).label(node=n).obj()
        for n, z in (
            ("node-a", "zone1"),
            ("node-b", "zone1"),
            ("node-x", "zone2"),
            ("node-y", "zone2"),
        )
    ]


def foo_pods(**per_node: int) -> list[Pod]:
    """`n` pods labelled foo on each node given as node_a=2 ..."""
    out = []
    for key, n in per_node.items():
        name = key.replace("_", "-")
        out += [pod(f"p-{name[-1]}{i}").node(name).label(foo="").obj() for i in range(1, n + 1)]
    return out


@dataclass
class Case:
    name: str
    pod: Pod
    nodes: list[Node] = field(default_factory=zone_nodes)
    existing: list[Pod] = field(default_factory=list)
    args: dict[str, Any] | None = None
    objects: list[dict[str, Any]] = field(default_factory=list)
    # expected: topology key -> (maxSkew, selector, counts per value, critical paths)
    want: dict[str, tuple[int, dict[str, Any] | None, dict[str, int], Any]] | None = None
    want_skip: bool = False


def sel(data: dict[str, Any] | None) -> Selector:
    return Selector.from_label_selector(
        None if data is None else LabelSelector.model_validate(data)
    )


CASES = [
    Case(
        "clean cluster with one spreadConstraint",
        pod()
        .label(foo="")
        .spread_constraint(5, "zone", "DoNotSchedule", label_selector(foo="bar"))
        .obj(),
        want={
            "zone": (
                5,
                label_selector(foo="bar"),
                {"zone1": 0, "zone2": 0},
                (("zone1", 0), ("zone2", 0)),
            )
        },
    ),
    Case(
        "normal case with one spreadConstraint",
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj(),
        existing=foo_pods(node_a=2, node_b=1, node_y=2),
        want={"zone": (1, FOO, {"zone1": 3, "zone2": 2}, (("zone2", 2), ("zone1", 3)))},
    ),
    Case(
        "normal case with null label selector",
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", None).obj(),
        existing=foo_pods(node_a=2, node_b=1, node_y=2),
        want={"zone": (1, None, {"zone1": 0, "zone2": 0}, (("zone1", 0), ("zone2", 0)))},
    ),
    Case(
        "normal case with one spreadConstraint, on a 3-zone cluster",
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj(),
        nodes=[
            *zone_nodes(),
            node("node-o").label(zone="zone3").label(node="node-o").obj(),
            node("node-p").label(zone="zone3").label(node="node-p").obj(),
        ],
        existing=foo_pods(node_a=2, node_b=1, node_y=2),
        want={"zone": (1, FOO, {"zone1": 3, "zone2": 2, "zone3": 0}, (("zone3", 0), ("zone2", 2)))},
    ),
    Case(
        "namespace mismatch doesn't count",
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj(),
        existing=[
            pod("p-a1").node("node-a").label(foo="").obj(),
            pod("p-a2").namespace("ns1").node("node-a").label(foo="").obj(),
            pod("p-b1").node("node-b").label(foo="").obj(),
            pod("p-y1").namespace("ns2").node("node-y").label(foo="").obj(),
            pod("p-y2").node("node-y").label(foo="").obj(),
        ],
        want={"zone": (1, FOO, {"zone1": 2, "zone2": 1}, (("zone2", 1), ("zone1", 2)))},
    ),
    Case(
        "normal case with two spreadConstraints",
        pod()
        .label(foo="")
        .spread_constraint(1, "zone", "DoNotSchedule", FOO)
        .spread_constraint(1, "node", "DoNotSchedule", FOO)
        .obj(),
        existing=foo_pods(node_a=2, node_b=1, node_y=4),
        want={
            "zone": (1, FOO, {"zone1": 3, "zone2": 4}, (("zone1", 3), ("zone2", 4))),
            "node": (
                1,
                FOO,
                {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4},
                (("node-x", 0), ("node-b", 1)),
            ),
        },
    ),
    Case(
        "soft spreadConstraints should be bypassed",
        pod()
        .label(foo="")
        .spread_constraint(1, "zone", "ScheduleAnyway", FOO)
        .spread_constraint(1, "zone", "DoNotSchedule", FOO)
        .spread_constraint(1, "node", "ScheduleAnyway", FOO)
        .spread_constraint(1, "node", "DoNotSchedule", FOO)
        .obj(),
        nodes=[n for n in zone_nodes() if n.metadata.name != "node-x"],
        existing=foo_pods(node_a=2, node_b=1, node_y=4),
        want={
            "zone": (1, FOO, {"zone1": 3, "zone2": 4}, (("zone1", 3), ("zone2", 4))),
            "node": (
                1,
                FOO,
                {"node-a": 2, "node-b": 1, "node-y": 4},
                (("node-b", 1), ("node-a", 2)),
            ),
        },
    ),
    Case(
        "two spreadConstraints, and with podAffinity",  # upstream's name; it is node affinity
        pod()
        .label(foo="")
        .node_affinity_not_in("node", ["node-x"])
        .spread_constraint(1, "zone", "DoNotSchedule", FOO)
        .spread_constraint(1, "node", "DoNotSchedule", FOO)
        .obj(),
        existing=foo_pods(node_a=2, node_b=1, node_y=4),
        want={
            "zone": (1, FOO, {"zone1": 3, "zone2": 4}, (("zone1", 3), ("zone2", 4))),
            "node": (
                1,
                FOO,
                {"node-a": 2, "node-b": 1, "node-y": 4},
                (("node-b", 1), ("node-a", 2)),
            ),
        },
    ),
    Case(
        "default constraints and a service",
        pod().label(foo="bar").label(baz="kar").obj(),
        nodes=[],
        args={
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"},
                {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": "ScheduleAnyway"},
                {"maxSkew": 5, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"},
            ],
        },
        objects=[{"kind": "Service", "spec": {"selector": {"foo": "bar"}}}],
        want={
            "node": (3, label_selector(foo="bar"), {}, (("", MAX), ("", MAX))),
            "rack": (5, label_selector(foo="bar"), {}, (("", MAX), ("", MAX))),
        },
    ),
    Case(
        "default constraints and a service that doesn't match",
        pod().label(foo="bar").obj(),
        nodes=[],
        args={
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"}
            ],
        },
        objects=[{"kind": "Service", "spec": {"selector": {"baz": "kep"}}}],
        want_skip=True,
    ),
    Case(
        "default constraints and a service, but pod has constraints",
        pod()
        .label(foo="bar")
        .label(baz="tar")
        .spread_constraint(1, "zone", "DoNotSchedule", label_selector(baz="tar"))
        .spread_constraint(2, "planet", "ScheduleAnyway", label_selector(fot="rok"))
        .obj(),
        nodes=[],
        args={
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"}
            ],
        },
        objects=[{"kind": "Service", "spec": {"selector": {"foo": "bar"}}}],
        want={"zone": (1, label_selector(baz="tar"), {}, (("", MAX), ("", MAX)))},
    ),
    Case(
        "default soft constraints and a service",
        pod().label(foo="bar").obj(),
        nodes=[],
        args={
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": "ScheduleAnyway"}
            ],
        },
        objects=[{"kind": "Service", "spec": {"selector": {"foo": "bar"}}}],
        want_skip=True,
    ),
    Case(
        "NodeAffinityPolicy honored with labelSelectors",
        pod()
        .label(foo="")
        .node_selector(foo="")
        .spread_constraint(1, "node", "DoNotSchedule", BAR)
        .obj(),
        nodes=[
            node("node-a").label(node="node-a").label(foo="").obj(),
            node("node-b").label(node="node-b").label(foo="").obj(),
            node("node-c").label(node="node-c").label(bar="").obj(),
        ],
        existing=[
            pod("p-a").node("node-a").label(bar="").obj(),
            pod("p-b").node("node-b").label(bar="").obj(),
            pod("p-c").node("node-b").label(bar="").obj(),
            pod("p-d").node("node-c").obj(),
        ],
        want={"node": (1, BAR, {"node-a": 1, "node-b": 2}, (("node-a", 1), ("node-b", 2)))},
    ),
    Case(
        "NodeAffinityPolicy ignored with labelSelectors",
        pod()
        .label(foo="")
        .node_selector(foo="")
        .spread_constraint(1, "node", "DoNotSchedule", BAR, None, "Ignore")
        .obj(),
        nodes=[
            node("node-a").label(node="node-a").label(foo="").obj(),
            node("node-b").label(node="node-b").label(foo="").obj(),
            node("node-c").label(node="node-c").label(bar="").obj(),
        ],
        existing=[
            pod("p-a").node("node-a").label(bar="").obj(),
            pod("p-b").node("node-b").label(bar="").obj(),
            pod("p-c").node("node-b").label(bar="").obj(),
            pod("p-d").node("node-c").obj(),
        ],
        want={
            "node": (
                1,
                BAR,
                {"node-a": 1, "node-b": 2, "node-c": 0},
                (("node-c", 0), ("node-a", 1)),
            )
        },
    ),
    Case(
        "NodeTaintsPolicy honored",
        pod()
        .label(foo="")
        .spread_constraint(1, "node", "DoNotSchedule", BAR, None, None, "Honor")
        .obj(),
        nodes=[
            node("node-a").label(node="node-a").label(foo="").obj(),
            node("node-b").label(node="node-b").label(foo="").obj(),
            node("node-c").label(node="node-c").label(bar="").taint(UNSCHEDULABLE_TAINT).obj(),
        ],
        existing=[
            pod("p-a").node("node-a").label(bar="").obj(),
            pod("p-b").node("node-b").label(bar="").obj(),
            pod("p-c").node("node-b").label(bar="").obj(),
            pod("p-d").node("node-c").obj(),
        ],
        want={"node": (1, BAR, {"node-a": 1, "node-b": 2}, (("node-a", 1), ("node-b", 2)))},
    ),
    Case(
        "matchLabelKeys add the pod's own label values to the selector",  # ours
        pod()
        .label(foo="")
        .label(bar="a")
        .spread_constraint(1, "zone", "DoNotSchedule", FOO, match_label_keys=["bar"])
        .obj(),
        existing=[
            pod("p-a1").node("node-a").label(foo="").label(bar="a").obj(),
            pod("p-a2").node("node-a").label(foo="").obj(),
            pod("p-x1").node("node-x").label(foo="").label(bar="b").obj(),
        ],
        want={
            "zone": (
                1,
                {
                    "matchLabels": {"bar": "a"},
                    "matchExpressions": [{"key": "foo", "operator": "Exists"}],
                },
                {"zone1": 1, "zone2": 0},
                (("zone2", 0), ("zone1", 1)),
            )
        },
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_pre_filter_state(case: Case) -> None:
    pl = plugin(case.args, case.objects)
    state, _, status = pre_filter(pl, case.pod, case.nodes, case.existing)
    if case.want_skip:
        assert status is not None and status.code is Code.Skip
        assert PRE_FILTER_STATE_KEY not in state
        return
    assert status is None
    got = state.read(PRE_FILTER_STATE_KEY)
    assert isinstance(got, PreFilterState)
    assert case.want is not None
    assert [c.topology_key for c in got.constraints] == list(case.want)
    for c, counts in zip(got.constraints, got.tp_value_to_match_num, strict=True):
        max_skew, selector, want_counts, _ = case.want[c.topology_key]
        assert (c.max_skew, c.min_domains) == (max_skew, 1)
        assert c.selector == sel(selector)
        assert counts == want_counts
    assert paths(got) == {k: v[3] for k, v in case.want.items()}


def test_defaults_of_node_inclusion_policies_and_min_domains() -> None:
    pl = plugin()
    state, _, _ = pre_filter(
        pl,
        pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj(),
        zone_nodes(),
    )
    (c,) = state.read(PRE_FILTER_STATE_KEY).constraints
    assert (c.min_domains, c.node_affinity_policy, c.node_taints_policy) == (1, "Honor", "Ignore")


# -- AddPod / RemovePod (TestPreFilterStateAddPod / TestPreFilterStateRemovePod) -------------


def _update(
    preemptor: Pod, nodes: list[Node], existing: list[Pod], changed: Pod, node_idx: int, add: bool
) -> PreFilterState:
    pl = plugin()
    state, snapshot, status = pre_filter(pl, preemptor, nodes, existing)
    assert status is None
    info = snapshot.get(nodes[node_idx].metadata.name)
    assert info is not None
    fn = pl.add_pod if add else pl.remove_pod
    assert fn(state, preemptor, PodInfo(changed), info) is None
    got = state.read(PRE_FILTER_STATE_KEY)
    assert isinstance(got, PreFilterState)
    return got


def test_add_pod_to_a_zone_node_moves_the_critical_path() -> None:
    # upstream "node a and b both impact current min match": zone spread 1/1 → 2/1
    nodes = [
        node("node-a").label(zone="zone1").label(node="node-a").obj(),
        node("node-b").label(zone="zone2").label(node="node-b").obj(),
    ]
    preemptor = pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj()
    got = _update(
        preemptor,
        nodes,
        [
            pod("p-a1").node("node-a").label(foo="").obj(),
            pod("p-b1").node("node-b").label(foo="").obj(),
        ],
        pod("p-a2").node("node-a").label(foo="").obj(),
        0,
        add=True,
    )
    assert got.tp_value_to_match_num == [{"zone1": 2, "zone2": 1}]
    assert paths(got) == {"zone": (("zone2", 1), ("zone1", 2))}


def test_add_pod_of_another_namespace_or_not_matching_changes_nothing() -> None:
    preemptor = pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj()
    existing = [pod("p-a1").node("node-a").label(foo="").obj()]
    for changed in (
        pod("p-a2").namespace("ns1").node("node-a").label(foo="").obj(),
        pod("p-a2").node("node-a").label(bar="").obj(),
    ):
        got = _update(preemptor, zone_nodes(), existing, changed, 0, add=True)
        assert got.tp_value_to_match_num == [{"zone1": 1, "zone2": 0}]


def test_remove_pod_two_constraints() -> None:
    # upstream "two spreadConstraints": remove p-x1 from node-x
    nodes = zone_nodes()[:3]
    preemptor = (
        pod()
        .label(foo="")
        .spread_constraint(1, "zone", "DoNotSchedule", FOO)
        .spread_constraint(1, "node", "DoNotSchedule", FOO)
        .obj()
    )
    existing = foo_pods(node_a=2, node_b=1, node_x=2)
    got = _update(preemptor, nodes, existing, existing[3], 2, add=False)
    assert got.tp_value_to_match_num == [
        {"zone1": 3, "zone2": 1},
        {"node-a": 2, "node-b": 1, "node-x": 1},
    ]
    assert paths(got) == {
        "zone": (("zone2", 1), ("zone1", 3)),
        "node": (("node-b", 1), ("node-x", 1)),
    }


def test_remove_pod_on_a_node_the_preemptor_affinity_excludes() -> None:
    # upstream "remove a pod when scheduling node affinity unmatched pod ... enabled"
    nodes = [
        node("node-a").label(zone="zone1").label(node="node-a").label(foo="bar").obj(),
        node("node-b").label(zone="zone2").label(node="node-b").label(foo="").obj(),
    ]
    preemptor = (
        pod()
        .label(foo="")
        .node_affinity_not_in("foo", ["bar"])
        .spread_constraint(1, "zone", "DoNotSchedule", FOO)
        .obj()
    )
    existing = [
        pod("p-a2").node("node-a").label(foo="").obj(),
        pod("p-b1").node("node-b").label(foo="").obj(),
    ]
    got = _update(
        preemptor, nodes, existing, pod("p-a1").node("node-a").label(foo="").obj(), 0, False
    )
    assert got.tp_value_to_match_num == [{"zone2": 1}]
    assert got.critical_paths[0].paths == [("zone2", 1), ("", MAX)]


def test_clone_is_independent() -> None:
    pl = plugin()
    preemptor = pod().label(foo="").spread_constraint(1, "zone", "DoNotSchedule", FOO).obj()
    state, snapshot, _ = pre_filter(pl, preemptor, zone_nodes(), foo_pods(node_a=1))
    copy = state.clone()
    info = snapshot.get("node-x")
    assert info is not None
    pl.add_pod(copy, preemptor, PodInfo(pod("new").node("node-x").label(foo="").obj()), info)
    assert state.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"zone1": 1, "zone2": 0}]
    assert copy.read(PRE_FILTER_STATE_KEY).tp_value_to_match_num == [{"zone1": 1, "zone2": 1}]


# -- TestPreFilterDisabled ---------------------------------------------------------------------


def test_filter_without_pre_filter_is_an_error() -> None:
    info = NodeInfo(node("node-a").obj())
    status = plugin().filter(CycleState(), pod().obj(), info)
    assert status is not None and status.code is Code.Error
    assert status.message() == 'reading "PreFilterPodTopologySpread" from cycleState: not found'


def test_pre_filter_skips_a_pod_without_constraints() -> None:
    _, _, status = pre_filter(plugin(), pod().obj(), zone_nodes())
    assert status is not None and status.code is Code.Skip
