"""InterPodAffinity's PreFilter state and its AddPod/RemovePod updates, from upstream
filtering_test.go (TestPreFilterStateAddRemovePod, TestPreFilterStateClone,
TestGetTPMapMatchingIncomingAffinityAntiAffinity), plus a hypothesis check that adding a pod
equals recomputing with it and removing it again restores the state."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interpodaffinity_helpers import affinity, make_node, make_pod, plugin_for, term

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, PodInfo
from kubesched_builtin.interpodaffinity import PRE_FILTER_STATE_KEY, PreFilterState
from kubesched_builtin.interpodaffinity.filtering import incoming_affinity_counts
from kubesched_builtin.interpodaffinity.terms import parse_pod_terms

FOO_BAR = {"foo": "bar"}
ANTI_FOO_BAR = [term("foo", "In", ["bar"], "region")]
COMPLEX = [
    term("foo", "In", ["bar", "buzz"], "region"),
    term("service", "NotIn", ["bar", "security", "test"], "zone"),
]


def three_nodes() -> list[Node]:
    return [
        make_node("nodeA", region="r1", zone="z11"),
        make_node("nodeB", region="r1", zone="z12"),
        make_node("nodeC", region="r2", zone="z21"),
    ]


def prefilter(pending: Pod, pods: list[Pod], nodes: list[Node]) -> tuple[Any, CycleState, Any]:
    plugin, snapshot = plugin_for(pods, nodes)
    state = CycleState()
    _, status = plugin.pre_filter(state, pending, snapshot.list())
    assert status is None, status
    return plugin, state, snapshot


def counts(s: PreFilterState) -> tuple[dict[Any, int], dict[Any, int], dict[Any, int]]:
    return (
        dict(s.existing_anti_affinity_counts),
        dict(s.affinity_counts),
        dict(s.anti_affinity_counts),
    )


# (name, pending pod, existing pods, added pod, anti-affinity counts, affinity counts) after adding
ADD_REMOVE: list[tuple[str, Pod, list[Pod], Pod, dict[Any, int], dict[Any, int]]] = [
    (
        "anti-affinity terms",
        make_pod("pending", labels=FOO_BAR, aff=affinity(anti=ANTI_FOO_BAR)),
        [
            make_pod("p1", labels=FOO_BAR, node="nodeA"),
            make_pod("p2", node="nodeC", aff=affinity(anti=ANTI_FOO_BAR)),
        ],
        make_pod("addedPod", labels=FOO_BAR, node="nodeB", aff=affinity(anti=ANTI_FOO_BAR)),
        {("region", "r1"): 2},
        {},
    ),
    (
        "several anti-affinity terms",
        make_pod("pending", labels=FOO_BAR, aff=affinity(anti=COMPLEX)),
        [
            make_pod("p1", labels=FOO_BAR, node="nodeA"),
            make_pod("p2", node="nodeC", aff=affinity(anti=ANTI_FOO_BAR)),
        ],
        make_pod("addedPod", labels=FOO_BAR, node="nodeA", aff=affinity(anti=COMPLEX)),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1},
        {},
    ),
    (
        "affinity and anti-affinity terms",
        make_pod("pending", labels=FOO_BAR, aff=affinity(required=COMPLEX)),
        [
            make_pod("p1", labels=FOO_BAR, node="nodeA"),
            make_pod("p2", node="nodeC", aff=affinity(required=COMPLEX, anti=ANTI_FOO_BAR)),
        ],
        make_pod("addedPod", labels=FOO_BAR, node="nodeA", aff=affinity(anti=COMPLEX)),
        {},
        {("region", "r1"): 2, ("zone", "z11"): 2},
    ),
]


@pytest.mark.parametrize(
    ("pending", "pods", "added", "want_anti", "want_affinity"),
    [c[1:] for c in ADD_REMOVE],
    ids=[c[0] for c in ADD_REMOVE],
)
def test_pre_filter_state_add_remove_pod(
    pending: Pod,
    pods: list[Pod],
    added: Pod,
    want_anti: dict[Any, int],
    want_affinity: dict[Any, int],
) -> None:
    nodes = three_nodes()
    _, all_state, _ = prefilter(pending, [*pods, added], nodes)
    plugin, state, snapshot = prefilter(pending, pods, nodes)
    s = state.read(PRE_FILTER_STATE_KEY)
    original = counts(s)
    node_info = snapshot.get(added.spec.node_name)
    assert node_info is not None

    assert plugin.add_pod(state, pending, PodInfo(added), node_info) is None
    assert s.anti_affinity_counts == want_anti
    assert s.affinity_counts == want_affinity
    assert counts(s) == counts(all_state.read(PRE_FILTER_STATE_KEY))

    assert plugin.remove_pod(state, pending, PodInfo(added), node_info) is None
    assert counts(s) == original


def test_pre_filter_state_clone_is_a_deep_copy() -> None:
    """upstream TestPreFilterStateClone, plus: changing the clone leaves the source alone."""
    source = PreFilterState(
        make_pod(),
        (),
        (),
        {},
        {("name", "node1"): 1, ("name", "node2"): 1},
        {("name", "nodeA"): 1, ("name", "nodeC"): 2},
        {("name", "nodeN"): 3, ("name", "nodeM"): 1},
    )
    clone = source.clone()
    assert isinstance(clone, PreFilterState) and clone is not source
    assert counts(clone) == counts(source)
    clone.affinity_counts[("name", "nodeA")] += 1
    clone.existing_anti_affinity_counts.clear()
    assert source.affinity_counts[("name", "nodeA")] == 1
    assert source.existing_anti_affinity_counts


def test_add_pod_without_pre_filter_is_an_error() -> None:
    plugin, snapshot = plugin_for([], three_nodes())
    status = plugin.add_pod(CycleState(), make_pod(), PodInfo(make_pod()), snapshot.list()[0])
    assert status is not None and not status.is_success
    assert "PreFilterInterPodAffinity" in status.message()


def _normal(*labels: str) -> Pod:
    return make_pod("normal", labels=dict.fromkeys(labels, ""), node="nodeA")


HOST = "hostname"
A = ("hostname", "nodeA")
# (name, existing pods, incoming pod's affinity, want affinity counts, want anti counts)
INCOMING: list[tuple[str, list[Pod], dict[str, Any], dict[Any, int], dict[Any, int]]] = [
    ("nil test", [], {}, {}, {}),
    ("incoming pod without affinity is a no-op", [_normal("aaa")], {}, {}, {}),
    (
        "no pod violates the incoming pod's affinity and anti-affinity",
        [_normal("bbb")],
        affinity(
            required=[term("aaa", "Exists", [], HOST)], anti=[term("aaa", "Exists", [], HOST)]
        ),
        {},
        {},
    ),
    (
        "existing pod matches affinity and anti-affinity, single term",
        [_normal("aaa")],
        affinity(
            required=[term("aaa", "Exists", [], HOST)], anti=[term("aaa", "Exists", [], HOST)]
        ),
        {A: 1},
        {A: 1},
    ),
    (
        "existing pod matches affinity and anti-affinity, several terms",
        [_normal("aaa", "bbb")],
        affinity(
            required=[term("aaa", "Exists", [], HOST), term("bbb", "Exists", [], HOST)],
            anti=[term("aaa", "Exists", [], HOST)],
        ),
        {A: 2},
        {A: 1},
    ),
    (
        "existing pod matches anti-affinity but not all affinity terms",
        [_normal("aaa")],
        affinity(
            required=[term("aaa", "Exists", [], HOST), term("bbb", "Exists", [], HOST)],
            anti=[term("aaa", "Exists", [], HOST), term("bbb", "Exists", [], HOST)],
        ),
        {},
        {A: 1},
    ),
    (
        "existing pod violates one of several anti-affinity terms",
        [_normal("bbb")],
        affinity(
            required=[term("aaa", "Exists", [], HOST), term("bbb", "Exists", [], HOST)],
            anti=[term("aaa", "Exists", [], HOST), term("bbb", "Exists", [], HOST)],
        ),
        {},
        {A: 1},
    ),
]


@pytest.mark.parametrize(
    ("pods", "aff", "want_affinity", "want_anti"),
    [c[1:] for c in INCOMING],
    ids=[c[0] for c in INCOMING],
)
def test_incoming_affinity_counts(
    pods: list[Pod], aff: dict[str, Any], want_affinity: dict[Any, int], want_anti: dict[Any, int]
) -> None:
    """upstream TestGetTPMapMatchingIncomingAffinityAntiAffinity."""
    _, snapshot = plugin_for(pods, [make_node("nodeA", hostname="nodeA")])
    terms = parse_pod_terms(make_pod("incoming", aff=aff))
    got = incoming_affinity_counts(
        terms.required_affinity, terms.required_anti_affinity, snapshot.list()
    )
    assert got == (want_affinity, want_anti)


# -- hypothesis: AddPod equals recomputing with the pod; RemovePod undoes AddPod ------------

_KEYS = ["a", "b", "c"]
_VALUES = ["x", "y"]
_TOPOLOGY = ["zone", "region", "host"]

_labels = st.dictionaries(st.sampled_from(_KEYS), st.sampled_from(_VALUES), max_size=3)
_term = st.builds(
    lambda key, op, values, topo: term(key, op, values if op in ("In", "NotIn") else [], topo),
    st.sampled_from(_KEYS),
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]),
    st.lists(st.sampled_from(_VALUES), min_size=1, max_size=2, unique=True),
    st.sampled_from([*_TOPOLOGY, "missing"]),
)
_terms = st.lists(_term, max_size=2)
_namespace = st.sampled_from(["default", "other"])


@st.composite
def _pod(draw: st.DrawFn, nodes: list[str], *, at_least_one_term: bool = False) -> Pod:
    required = draw(_terms)
    anti = draw(_terms)
    if at_least_one_term and not required and not anti:
        required = [draw(_term)]
    return make_pod(
        namespace=draw(_namespace),
        labels=draw(_labels),
        node=draw(st.sampled_from(nodes)) if nodes else "",
        aff=affinity(required=required, anti=anti),
    )


@st.composite
def _scenario(draw: st.DrawFn) -> tuple[list[Node], list[Pod], Pod, Pod]:
    nodes = [
        make_node(
            f"n{i}",
            **draw(st.dictionaries(st.sampled_from(_TOPOLOGY), st.sampled_from(["1", "2"]))),
        )
        for i in range(draw(st.integers(1, 3)))
    ]
    names = [n.metadata.name for n in nodes]
    existing = draw(st.lists(_pod(names), max_size=4))
    incoming = draw(_pod([], at_least_one_term=True))  # required terms: PreFilter never skips
    added = draw(_pod(names))
    return nodes, existing, incoming, added


@settings(max_examples=150, deadline=None)
@given(_scenario())
def test_add_pod_matches_recompute_and_remove_pod_restores(
    scenario: tuple[list[Node], list[Pod], Pod, Pod],
) -> None:
    nodes, existing, incoming, added = scenario
    plugin, state, snapshot = prefilter(incoming, existing, nodes)
    s = state.read(PRE_FILTER_STATE_KEY)
    before = counts(s)
    node_info = snapshot.get(added.spec.node_name)
    assert node_info is not None

    assert plugin.add_pod(state, incoming, PodInfo(added), node_info) is None
    _, with_added, _ = prefilter(incoming, [*existing, added], nodes)
    assert counts(s) == counts(with_added.read(PRE_FILTER_STATE_KEY))

    assert plugin.remove_pod(state, incoming, PodInfo(added), node_info) is None
    assert counts(s) == before
