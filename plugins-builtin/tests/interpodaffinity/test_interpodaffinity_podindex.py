"""The grouped walk of `podindex` gives what the per-pod walk of upstream gives.

A hypothesis check compares PreFilter's three counts and PreScore's topology scores, computed
over pods grouped by (namespace, labels) and by terms, with the straight per-pod loops
(filtering.existing_anti_affinity_counts / incoming_affinity_counts,
scoring.PreScoreState.process_existing_pod), keys included; and the node summaries follow
their NodeInfo as pods come and go.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from interpodaffinity_helpers import affinity, make_node, make_pod, plugin_for, term, weighted

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeInfo
from kubesched_builtin.interpodaffinity import filtering, podindex
from kubesched_builtin.interpodaffinity.scoring import PreScoreState
from kubesched_builtin.interpodaffinity.terms import TermCache

_KEYS = ["a", "b"]
_VALUES = ["x", "y"]
_TOPOLOGY = ["zone", "host"]

_labels = st.dictionaries(st.sampled_from(_KEYS), st.sampled_from(_VALUES), max_size=2)
_term = st.builds(
    lambda key, op, values, topo: term(key, op, values if op in ("In", "NotIn") else [], topo),
    st.sampled_from(_KEYS),
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]),
    st.lists(st.sampled_from(_VALUES), min_size=1, max_size=2, unique=True),
    st.sampled_from([*_TOPOLOGY, "missing"]),
)
_terms = st.lists(_term, max_size=2)
_weighted = st.lists(st.builds(weighted, st.integers(1, 5), _term), max_size=2)


@st.composite
def affinity_pods(draw: st.DrawFn, nodes: list[str]) -> Pod:
    """A pod with generated labels and terms of all four kinds, on one of `nodes`."""
    return make_pod(
        namespace=draw(st.sampled_from(["default", "other"])),
        labels=draw(_labels),
        node=draw(st.sampled_from(nodes)) if nodes else "",
        aff=affinity(
            required=draw(_terms),
            anti=draw(_terms),
            preferred=draw(_weighted),
            preferred_anti=draw(_weighted),
        ),
    )


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[Node], list[Pod], Pod]:
    """Up to 3 nodes with `zone`/`host` labels, the pods on them and the pod to place."""
    nodes = [
        make_node(
            f"n{i}",
            **draw(st.dictionaries(st.sampled_from(_TOPOLOGY), st.sampled_from(["1", "2"]))),
        )
        for i in range(draw(st.integers(1, 3)))
    ]
    # few distinct labels, so groups hold several pods
    existing = draw(st.lists(affinity_pods([n.metadata.name for n in nodes]), max_size=8))
    return nodes, existing, draw(affinity_pods([]))


def _reference_scores(
    s: PreScoreState, nodes: list[NodeInfo], incoming: Pod, cache: TermCache
) -> dict[str, dict[str, int]]:
    for info in nodes:
        assert info.node is not None
        for existing in info.pods:
            s.process_existing_pod(existing.pod, cache.terms(existing.pod), info.node, incoming)
    return s.topology_scores


@settings(max_examples=200, deadline=None)
@given(clusters(), st.integers(0, 3))
def test_grouped_walk_equals_per_pod_walk(
    scenario: tuple[list[Node], list[Pod], Pod], hard_weight: int
) -> None:
    nodes, existing, incoming = scenario
    _, snapshot = plugin_for(existing, nodes)
    infos = snapshot.list()
    cache = TermCache()
    index = podindex.PodIndex(cache)
    terms = cache.terms(incoming)
    ns_labels: dict[str, str] = {}

    want_existing = filtering.existing_anti_affinity_counts(
        incoming, ns_labels, snapshot.have_pods_with_required_anti_affinity, cache
    )
    got_existing = podindex.existing_anti_affinity_counts(
        index, incoming, ns_labels, snapshot.have_pods_with_required_anti_affinity
    )
    assert got_existing == want_existing

    want = filtering.incoming_affinity_counts(
        terms.required_affinity, terms.required_anti_affinity, infos
    )
    got = podindex.incoming_affinity_counts(
        index, terms.required_affinity, terms.required_anti_affinity, infos
    )
    assert got == want

    s = PreScoreState(terms.preferred_affinity, terms.preferred_anti_affinity, {}, hard_weight)
    want_scores = _reference_scores(s, infos, incoming, cache)
    got_scores = podindex.topology_scores(
        index,
        incoming,
        terms.preferred_affinity,
        terms.preferred_anti_affinity,
        {},
        hard_weight,
        infos,
        all_pods=True,
    )
    assert got_scores == want_scores


def test_summary_follows_node_info_changes() -> None:
    a = make_pod("a", labels={"app": "web"}, aff=affinity(anti=[term("app", "In", ["web"], "h")]))
    b = make_pod("b", labels={"app": "web"}, aff=affinity(anti=[term("app", "In", ["web"], "h")]))
    c = make_pod("c", labels={"app": "db"})
    info = NodeInfo(make_node("n1", h="n1"))
    index = podindex.PodIndex(TermCache())

    info.add_pod(a)
    info.add_pod(b)
    summary = index.node(info)
    assert [g.count for g in summary.by_labels] == [2]
    assert [g.count for g in summary.with_required_anti_affinity] == [2]
    assert index.node(info) is summary  # same generation: reused

    info.add_pod(c)
    summary = index.node(info)
    assert sorted(g.count for g in summary.by_labels) == [1, 2]
    assert [g.count for g in summary.with_affinity] == [2]

    info.remove_pod(a)
    clone = info.clone()
    summary = index.node(clone)  # a clone keeps the generation and the pods
    assert index.node(info) is summary
    assert sorted(g.count for g in summary.by_labels) == [1, 1]
    assert [g.count for g in summary.with_required_anti_affinity] == [1]


def test_id_tables_are_emptied_past_the_limit() -> None:
    index = podindex.PodIndex(TermCache(), limit=2)
    infos = []
    for i in range(4):
        info = NodeInfo(make_node(f"n{i}"))
        info.add_pod(make_pod(labels={"i": str(i)}))
        infos.append(info)
        index.node(info)
    assert len(index) <= 3
    # summaries built after a reset still count right
    for info in infos:
        assert [g.count for g in index.node(info).by_labels] == [1]


def test_prescore_uses_namespace_selector_resolution() -> None:
    """The plugin's PreScore over the index still resolves the incoming pod's namespace
    selectors (upstream scoring_test.go "Affinity: ... namespaceSelector")."""
    sel: dict[str, Any] = {"matchLabels": {"team": "team1"}}
    incoming = make_pod(
        "in",
        namespace="subteam1.team1",
        aff=affinity(
            preferred=[weighted(5, term("app", "Exists", [], "zone", namespaceSelector=sel))]
        ),
    )
    nodes = [make_node("n1", zone="z1"), make_node("n2", zone="z2")]
    pods = [
        make_pod("p1", namespace="subteam2.team1", labels={"app": "x"}, node="n1"),
        make_pod("p2", namespace="subteam1.team2", labels={"app": "x"}, node="n2"),
    ]
    plugin, snapshot = plugin_for(pods, nodes)
    state = CycleState()
    assert plugin.pre_score(state, incoming, snapshot.list()) is None
    s = state.read("PreScoreInterPodAffinity")
    assert s.topology_scores == {"zone": {"z1": 5}}
