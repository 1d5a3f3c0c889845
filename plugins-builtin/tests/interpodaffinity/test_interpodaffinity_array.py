"""InterPodAffinity on the snapshot's columns gives what the walks and the per-node forms
give: PreFilter's counts and PreScore's topology scores (the same dict entries) and
statuses, Filter's mask (True exactly where Filter passes), Score's array and
NormalizeScore's array (the same ints). On the inputs of upstream's filtering_test.go and
scoring_test.go, on generated clusters (hypothesis), and as the cluster changes between
cycles, where the rows' tallies must follow the nodes whose pods changed, walking only
those again."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interpodaffinity_helpers import (
    NAMESPACES,
    affinity,
    make_node,
    make_pod,
    plugin_for,
    term,
)
from test_interpodaffinity_batch_score import NAMESPACES as SCORE_NAMESPACES
from test_interpodaffinity_batch_score import scenarios as score_scenarios
from test_interpodaffinity_filtering import MULTIPLE_NODES, NODE1, SINGLE_NODE
from test_interpodaffinity_podindex import affinity_pods, clusters
from test_interpodaffinity_scoring import (
    AZ1,
    CHINA,
    HARD_POD_AFFINITY,
    HARD_WEIGHT,
    INDIA,
    PREFERRED,
    incoming,
    nodes,
    on,
)

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeInfo, NodeScore, PodInfo, Snapshot, is_success
from kubesched.testing import Scenario, array_filter_mismatch, array_score_mismatch
from kubesched.testing import strategies as kst
from kubesched_builtin.interpodaffinity import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    InterPodAffinity,
    PreFilterState,
    PreScoreState,
)
from kubesched_builtin.interpodaffinity.podindex import NodePods, PodIndex
from kubesched_builtin.interpodaffinity.terms import TermCache

Namespaces = Sequence[tuple[str, Mapping[str, str]]]


def _pair(
    pods: list[Pod], node_list: list[Node], namespaces: Namespaces, **args: Any
) -> tuple[InterPodAffinity, InterPodAffinity, Snapshot]:
    """The plugin counting on the columns and one walking the nodes, on one snapshot."""
    fast, snapshot = plugin_for(pods, node_list, namespaces, **args)
    walk = InterPodAffinity(fast.args, fast.handle)
    walk.use_columns = False
    assert fast.use_columns
    return fast, walk, snapshot


def _orders(infos: list[NodeInfo]) -> list[list[NodeInfo]]:
    return [infos, infos[::-1], infos[::2]]


def check_filter(
    fast: InterPodAffinity, walk: InterPodAffinity, snapshot: Snapshot, pod: Pod
) -> None:
    """PreFilter on both plugins gives the same status and counts; then the columns
    plugin's mask is True exactly where the walking plugin's Filter passes."""
    infos = snapshot.list()
    state, want_state = CycleState(), CycleState()
    _, status = fast.pre_filter(state, pod, infos)
    _, want_status = walk.pre_filter(want_state, pod, infos)
    assert status == want_status
    if not is_success(status):
        return
    got = state.read(PRE_FILTER_STATE_KEY)
    want = want_state.read(PRE_FILTER_STATE_KEY)
    assert isinstance(got, PreFilterState) and isinstance(want, PreFilterState)
    assert got.domains is not None and want.domains is None
    for order in _orders(infos):
        want_statuses = [walk.filter(want_state, pod, i) for i in order]
        rows = snapshot.columns.positions(order)
        assert rows is not None
        mask = fast.filter_mask(state, pod, snapshot.columns, rows)
        assert mask.tolist() == [s is None for s in want_statuses]
        # the batch form on the snapshot's nodes reads the rows too
        assert fast.filter_nodes(state, pod, order) == want_statuses
        assert array_filter_mismatch(fast, state, pod, snapshot, order) is None
    # the dicts, made when read, are the walk's; Filter node by node reads them
    assert got.existing_anti_affinity_counts == want.existing_anti_affinity_counts
    assert got.affinity_counts == want.affinity_counts
    assert got.anti_affinity_counts == want.anti_affinity_counts
    assert got.domains is not None
    assert [fast.filter(state, pod, i) for i in infos] == [
        walk.filter(want_state, pod, i) for i in infos
    ]


def check_score(
    fast: InterPodAffinity, walk: InterPodAffinity, snapshot: Snapshot, pod: Pod
) -> None:
    """PreScore on both plugins gives the same status and topology scores; then Score's
    array and NormalizeScore's array equal the walking plugin's Score and NormalizeScore."""
    infos = snapshot.list()
    state, want_state = CycleState(), CycleState()
    status = fast.pre_score(state, pod, infos)
    assert status == walk.pre_score(want_state, pod, infos)
    if not is_success(status):
        return
    got = state.read(PRE_SCORE_STATE_KEY)
    want = want_state.read(PRE_SCORE_STATE_KEY)
    assert isinstance(got, PreScoreState) and isinstance(want, PreScoreState)
    assert got.topology_scores == want.topology_scores
    assert got.domains is not None
    for order in _orders(infos):
        rows = snapshot.columns.positions(order)
        assert rows is not None
        raw, s = fast.score_array(state, pod, snapshot.columns, rows)
        assert s is None
        want_raw = [walk.score(want_state, pod, i)[0] for i in order]
        assert raw.tolist() == want_raw
        normalized, s = fast.normalize_score_array(state, pod, raw.copy())
        assert s is None
        scores = [NodeScore(i.name, v) for i, v in zip(order, want_raw, strict=True)]
        assert walk.normalize_score(want_state, pod, scores) is None
        assert normalized.tolist() == [n.score for n in scores]
        assert array_score_mismatch(fast, state, pod, snapshot, order) is None


# -- upstream's tables ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod", "pods"), [c[1:3] for c in SINGLE_NODE], ids=[c[0] for c in SINGLE_NODE]
)
def test_filter_on_upstream_single_node_table(pod: Pod, pods: list[Pod]) -> None:
    check_filter(*_pair(pods, [NODE1], NAMESPACES), pod)


@pytest.mark.parametrize(
    ("pod", "pods", "node_list"),
    [c[1:4] for c in MULTIPLE_NODES],
    ids=[c[0] for c in MULTIPLE_NODES],
)
def test_filter_on_upstream_multiple_nodes_table(
    pod: Pod, pods: list[Pod], node_list: list[Node]
) -> None:
    check_filter(*_pair(pods, node_list, [("NS1", {})]), pod)


@pytest.mark.parametrize(
    ("pod", "pods", "node_list", "ignore"),
    [(*c[1:4], c[5]) for c in PREFERRED],
    ids=[c[0] for c in PREFERRED],
)
def test_score_on_upstream_preferred_affinity_table(
    pod: Pod, pods: list[Pod], node_list: list[Node], ignore: bool
) -> None:
    fast, walk, snapshot = _pair(
        pods,
        node_list,
        NAMESPACES,
        hardPodAffinityWeight=1,
        ignorePreferredTermsOfExistingPods=ignore,
    )
    check_score(fast, walk, snapshot, pod)


@pytest.mark.parametrize(
    ("namespace", "weight"), [c[1:3] for c in HARD_WEIGHT], ids=[c[0] for c in HARD_WEIGHT]
)
def test_score_on_upstream_hard_pod_affinity_weight_table(namespace: str, weight: int) -> None:
    pods = [on(1, None, HARD_POD_AFFINITY), on(2, None, HARD_POD_AFFINITY)]
    fast, walk, snapshot = _pair(
        pods, nodes(CHINA, INDIA, AZ1), NAMESPACES, hardPodAffinityWeight=weight
    )
    check_score(fast, walk, snapshot, incoming({"service": "S1"}, ns=namespace))


# -- generated clusters --------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(cluster=clusters(), hard_weight=st.integers(0, 3))
def test_generated_terms(cluster: tuple[list[Node], list[Pod], Pod], hard_weight: int) -> None:
    node_list, existing, pod = cluster
    fast, walk, snapshot = _pair(existing, node_list, [], hardPodAffinityWeight=hard_weight)
    check_filter(fast, walk, snapshot, pod)
    check_score(fast, walk, snapshot, pod)


@settings(max_examples=100, deadline=None)
@given(scenario=score_scenarios(), ignore=st.booleans())
def test_generated_scenarios(scenario: Scenario, ignore: bool) -> None:
    fast, walk, snapshot = _pair(
        scenario.existing,
        scenario.nodes,
        SCORE_NAMESPACES,
        ignorePreferredTermsOfExistingPods=ignore,
    )
    check_filter(fast, walk, snapshot, scenario.pod)
    check_score(fast, walk, snapshot, scenario.pod)


@settings(max_examples=100, deadline=None)
@given(scenario=kst.scenarios(max_nodes=6, max_existing=8))
def test_kit_scenarios(scenario: Scenario) -> None:
    fast, walk, snapshot = _pair(scenario.existing, scenario.nodes, SCORE_NAMESPACES)
    check_filter(fast, walk, snapshot, scenario.pod)
    check_score(fast, walk, snapshot, scenario.pod)


# -- the tallies across cycles -------------------------------------------------------------


class _Recording(PodIndex):
    """A PodIndex noting the nodes it is asked to summarize (the rows walked)."""

    __slots__ = ("summarized",)

    def __init__(self, terms: TermCache) -> None:
        super().__init__(terms)
        self.summarized: list[str] = []

    def node(self, info: NodeInfo) -> NodePods:
        self.summarized.append(info.name)
        return super().node(info)


def _swap(snapshot: Snapshot, at: int, change: Pod, add: bool) -> None:
    """The cache's patch of one node: a clone with `change` added or removed."""
    info = snapshot.list()[at].clone()
    if add:
        info.add_pod(change)
    else:
        info.remove_pod(change)
    snapshot.replace(at, info)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), cluster=clusters())
def test_tallies_follow_pods_coming_and_going(
    data: st.DataObject, cluster: tuple[list[Node], list[Pod], Pod]
) -> None:
    """Cycle after cycle, with pods added to and removed from nodes in between, the
    columns plugin (keeping its tallies) agrees with the walk; and only the rows whose
    node changed are walked again."""
    node_list, existing, pod = cluster
    fast, walk, snapshot = _pair(existing, node_list, [])
    fast.index = index = _Recording(fast.terms)
    summarized = index.summarized
    names = [n.metadata.name for n in node_list]
    for _ in range(data.draw(st.integers(1, 4))):
        check_filter(fast, walk, snapshot, pod)
        check_score(fast, walk, snapshot, pod)
        at = data.draw(st.integers(0, len(names) - 1))
        on_node = [p.pod for p in snapshot.list()[at].pods]
        if on_node and data.draw(st.booleans()):
            _swap(snapshot, at, data.draw(st.sampled_from(on_node)), add=False)
        else:
            _swap(snapshot, at, data.draw(affinity_pods([names[at]])), add=True)
        summarized.clear()
        check_filter(fast, walk, snapshot, pod)
        check_score(fast, walk, snapshot, pod)
        # the queries asked before were answered from the rows kept, but the changed one
        assert set(summarized) <= {names[at]}


def test_a_new_query_walks_every_busy_row_once_then_only_changed_rows() -> None:
    green = {"color": "green"}
    anti = affinity(anti=[term("color", "In", ["green"], "host")])
    node_list = [make_node(f"n{i}", host=f"n{i}", zone="z") for i in range(4)]
    existing = [make_pod(labels=green, node="n0", aff=anti), make_pod(labels=green, node="n2")]
    fast, walk, snapshot = _pair(existing, node_list, [])
    fast.index = index = _Recording(fast.terms)
    summarized = index.summarized
    pod = make_pod(labels=green, aff=anti)
    check_filter(fast, walk, snapshot, pod)
    # existing pods' anti-affinity: n0; the incoming pod's term: n0 and n2
    assert sorted(summarized) == ["n0", "n0", "n2"]
    summarized.clear()
    check_filter(fast, walk, snapshot, pod)
    assert summarized == []
    _swap(snapshot, 1, make_pod(labels=green, node="n1"), add=True)
    check_filter(fast, walk, snapshot, pod)
    assert summarized == ["n1"]
    state = CycleState()
    fast.pre_filter(state, pod, snapshot.list())
    rows = np.arange(4, dtype=np.intp)
    assert fast.filter_mask(state, pod, snapshot.columns, rows).tolist() == [
        False,
        False,
        False,
        True,
    ]


def test_filter_mask_raises_once_the_counts_moved_or_on_other_columns() -> None:
    """After AddPod (a preemption dry run, nominated pods) the per-domain totals no longer
    hold: the mask raises and the framework asks Filter, which reads the moved counts."""
    anti = affinity(anti=[term("app", "In", ["web"], "host")])
    node_list = [make_node("n0", host="n0"), make_node("n1", host="n1")]
    fast, _, snapshot = _pair([make_pod(labels={"app": "web"}, node="n0")], node_list, [])
    pod = make_pod(labels={"app": "web"}, aff=anti)
    state = CycleState()
    _, status = fast.pre_filter(state, pod, snapshot.list())
    assert is_success(status)
    rows = np.arange(2, dtype=np.intp)
    assert fast.filter_mask(state, pod, snapshot.columns, rows).tolist() == [False, True]
    trial = state.clone()
    with pytest.raises(RuntimeError):
        fast.filter_mask(trial, pod, snapshot.columns, rows)
    ext = fast.pre_filter_extensions()
    assert ext is not None
    ext.add_pod(state, pod, PodInfo(make_pod(labels={"app": "web"})), snapshot.list()[1])
    with pytest.raises(RuntimeError):
        fast.filter_mask(state, pod, snapshot.columns, rows)
    assert fast.filter(state, pod, snapshot.list()[1]) is not None
    other = Snapshot([NodeInfo(n) for n in node_list])
    fresh = CycleState()
    fast.pre_filter(fresh, pod, snapshot.list())
    with pytest.raises(RuntimeError):
        fast.filter_mask(fresh, pod, other.columns, rows)


def test_walks_when_not_given_the_snapshots_own_list() -> None:
    """PreFilter given another node list (a copy) walks it and keeps no totals."""
    node_list = [make_node("n0", host="n0")]
    fast, _, snapshot = _pair([], node_list, [])
    pod = make_pod(labels={"app": "web"}, aff=affinity(anti=[term("app", "In", ["web"], "host")]))
    state = CycleState()
    fast.pre_filter(state, pod, list(snapshot.list()))
    s = state.read(PRE_FILTER_STATE_KEY)
    assert isinstance(s, PreFilterState) and s.domains is None
