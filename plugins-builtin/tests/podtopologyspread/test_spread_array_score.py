"""PodTopologySpread's PreScore, Score and NormalizeScore on the snapshot's columns
(`scoring_columns`) are the node-by-node forms' (`compute_pre_score_state`, `score_node`,
`normalize_scores`): on upstream's TestPodTopologySpreadScore table (System defaults, whose
nodes without a zone label join the "" domain), and on generated clusters with nodes missing
topology labels (ignored ones), inclusion policies, taints, node affinity and nodes changing
between cycles; and NormalizeScore without the array Score refuses rather than guess."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from builtin_helpers import node_infos
from hypothesis import given, settings
from hypothesis import strategies as st
from podtopologyspread_helpers import BAR, FOO, HOSTNAME, node, plugin, pod
from test_spread_scoring import SCORE_CASES

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeInfo, PodInfo, Snapshot, is_success
from kubesched.testing import array_score_mismatch, make_pod
from kubesched_builtin.podtopologyspread import PodTopologySpread
from kubesched_builtin.podtopologyspread.plugin import PRE_SCORE_STATE_KEY
from kubesched_builtin.podtopologyspread.scoring import PreScoreState, compute_pre_score_state

ZONE = "topology.kubernetes.io/zone"
POLICIES = st.sampled_from([None, "Honor", "Ignore"])


def walked(pl: PodTopologySpread, target: Pod, infos: list[NodeInfo]) -> PreScoreState:
    """PreScore's state by the node-by-node walk."""
    require_all = bool(target.spec.topology_spread_constraints) or not pl.system_defaulted
    constraints = pl.constraints_for(target, "ScheduleAnyway")
    all_nodes = pl.handle.snapshot.list()
    return compute_pre_score_state(target, constraints, infos, all_nodes, require_all)


def same_state(a: PreScoreState, b: PreScoreState) -> None:
    assert a.constraints == b.constraints
    assert a.ignored_nodes == b.ignored_nodes
    assert a.topology_value_to_pod_counts == b.topology_value_to_pod_counts
    assert a.topology_normalizing_weight == b.topology_normalizing_weight


def check(pl: PodTopologySpread, target: Pod, infos: list[NodeInfo]) -> None:
    """PreScore from the columns is the walk's, and Score/NormalizeScore on arrays equal
    the per-node forms, in the snapshot's order and reversed."""
    state = CycleState()
    status = pl.pre_score(state, target, infos)
    if not is_success(status):
        assert not pl.constraints_for(target, "ScheduleAnyway")
        return
    found = state.read(PRE_SCORE_STATE_KEY)
    assert isinstance(found, PreScoreState)
    same_state(found, walked(pl, target, infos))
    snapshot = pl.handle.snapshot
    for order in (infos, infos[::-1]):
        assert array_score_mismatch(pl, state, target, snapshot, order) is None


@pytest.mark.parametrize("case", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_array_score_on_upstream_table(case: tuple[Any, ...]) -> None:
    pod_, feasible, failed, existing, want, objects = case[1:]
    snapshot = Snapshot(node_infos([*feasible, *failed], list(existing)))
    pl = plugin({"defaultingType": "System"}, objects or (), snapshot)
    infos = [snapshot.node_info_map[n.metadata.name] for n in feasible]
    check(pl, pod_, infos)
    state = CycleState()
    assert is_success(pl.pre_score(state, pod_, infos))
    rows = snapshot.columns.positions(infos)
    assert rows is not None
    raw, status = pl.score_array(state, pod_, snapshot.columns, rows)
    assert status is None
    normalized, status = pl.normalize_score_array(state, pod_, raw)
    assert status is None
    assert dict(zip([i.name for i in infos], normalized.tolist(), strict=True)) == want


@st.composite
def clusters(draw: st.DrawFn) -> tuple[Pod, list[Node], list[Pod], list[int]]:
    """Nodes in zones (some without the zone or hostname label, some tainted), pods
    labelled foo and/or bar on them (some terminating), and a pod spreading foo or bar pods
    over zones and hosts (ScheduleAnyway, drawn inclusion policies, maybe a nodeSelector),
    with the positions of its feasible nodes."""
    nodes = []
    for i in range(draw(st.integers(1, 8))):
        n = node(f"node-{i}")
        if draw(st.integers(0, 5)):
            n.label(**{ZONE: draw(st.sampled_from(["z1", "z2", "z3", ""]))})
        if draw(st.integers(0, 5)):
            n.label(**{HOSTNAME: f"node-{i}"})
        if draw(st.booleans()):
            n.label(disk="ssd")
        if draw(st.integers(0, 3)) == 0:
            n.taint("dedicated", "x", "NoSchedule")
        nodes.append(n.obj())
    existing = []
    for j in range(draw(st.integers(0, 14))):
        p = pod(f"e{j}").node(draw(st.sampled_from(nodes)).metadata.name)
        for key in draw(st.lists(st.sampled_from(["foo", "bar"]), unique=True)):
            p.label(**{key: ""})
        if draw(st.integers(0, 6)) == 0:
            p.terminating()
        existing.append(p.obj())
    target = pod().label(foo="")
    if draw(st.booleans()):
        target.node_selector(disk="ssd")
    keys = draw(st.lists(st.sampled_from([ZONE, HOSTNAME]), min_size=1, max_size=2, unique=True))
    for key in keys:
        target.spread_constraint(
            draw(st.integers(1, 3)),
            key,
            "ScheduleAnyway",
            draw(st.sampled_from([FOO, BAR])),
            node_affinity_policy=draw(POLICIES),
            node_taints_policy=draw(POLICIES),
        )
    feasible = draw(st.lists(st.integers(0, len(nodes) - 1), min_size=1, unique=True))
    return target.obj(), nodes, existing, sorted(feasible)


@settings(max_examples=200, deadline=None)
@given(drawn=clusters(), data=st.data())
def test_array_score_equals_per_node_score(
    drawn: tuple[Pod, list[Node], list[Pod], list[int]], data: st.DataObject
) -> None:
    target, nodes, existing, feasible = drawn
    snapshot = Snapshot(node_infos(nodes, existing))
    pl = plugin({"defaultingType": "List"}, (), snapshot)
    infos = snapshot.list()
    check(pl, target, [infos[i] for i in feasible])
    # the next cycle: some nodes gain a foo pod (new clones, as the cache swaps them in)
    for i in data.draw(st.sets(st.integers(0, len(infos) - 1), max_size=3)):
        clone = infos[i].clone()
        clone.add_pod_info(PodInfo(make_pod(f"added-{i}").label(foo="").node(clone.name).obj()))
        snapshot.replace(i, clone)
    infos = snapshot.list()
    check(pl, target, [infos[i] for i in feasible])


@settings(max_examples=150, deadline=None)
@given(drawn=clusters())
def test_array_score_equals_per_node_score_with_system_defaults(
    drawn: tuple[Pod, list[Node], list[Pod], list[int]],
) -> None:
    """A pod without constraints of its own, a Service selecting it: the System default
    constraints (hostname and zone), where a node without a zone label still counts, in the
    domain "" (with the nodes labelled "")."""
    _, nodes, existing, feasible = drawn
    snapshot = Snapshot(node_infos(nodes, existing))
    service = {"kind": "Service", "spec": {"selector": {"foo": ""}}}
    pl = plugin({"defaultingType": "System"}, [service], snapshot)
    infos = snapshot.list()
    check(pl, pod().label(foo="").obj(), [infos[i] for i in feasible])


def test_a_node_labelled_empty_counts_in_the_domain_of_nodes_without_the_label() -> None:
    """System defaults: feasible node a has no zone label (its domain is ""), node b is
    labelled zone "" and not feasible; b's matching pod counts toward a's domain, as in
    the walk (and upstream, whose map lookup gives "" for a missing label)."""
    nodes = [
        node("a").label(**{HOSTNAME: "a"}).obj(),
        node("b").label(**{ZONE: "", HOSTNAME: "b"}).obj(),
        node("c").label(**{ZONE: "z1", HOSTNAME: "c"}).obj(),
    ]
    existing = [pod("e1").label(foo="").node("b").obj()]
    snapshot = Snapshot(node_infos(nodes, existing))
    service = {"kind": "Service", "spec": {"selector": {"foo": ""}}}
    pl = plugin({"defaultingType": "System"}, [service], snapshot)
    infos = snapshot.list()
    target = pod().label(foo="").obj()
    check(pl, target, [infos[0], infos[2]])
    state = CycleState()
    assert is_success(pl.pre_score(state, target, [infos[0], infos[2]]))
    found = state.read(PRE_SCORE_STATE_KEY)
    assert isinstance(found, PreScoreState)
    assert found.topology_value_to_pod_counts[1] == {"": 1, "z1": 0}


def test_normalize_score_array_refuses_scores_of_unknown_rows() -> None:
    """With ignored nodes, normalize_score_array needs score_array's note of which rows
    they are: without it (or for another number of rows) it raises, and the framework
    normalizes NodeScores instead."""
    nodes = [node("a").label(**{ZONE: "z1"}).obj(), node("b").obj()]
    snapshot = Snapshot(node_infos(nodes, []))
    pl = plugin({"defaultingType": "List"}, (), snapshot)
    target = pod().label(foo="").spread_constraint(1, ZONE, "ScheduleAnyway", FOO).obj()
    state = CycleState()
    assert is_success(pl.pre_score(state, target, snapshot.list()))
    with pytest.raises(ValueError, match="score_array"):
        pl.normalize_score_array(state, target, np.array([3, 0], np.int64))
    raw, _ = pl.score_array(state, target, snapshot.columns, np.arange(2, dtype=np.intp))
    assert raw.tolist() == [0, 0]  # b is ignored: it lacks the zone label
    with pytest.raises(ValueError, match="score_array"):
        pl.normalize_score_array(state, target, np.array([3, 0, 1], np.int64))
    out, status = pl.normalize_score_array(state, target, raw)
    assert status is None and out.tolist() == [100, 0]


def test_array_score_without_pre_score_fails_as_score_does() -> None:
    snapshot = Snapshot(node_infos([node("a").label(**{ZONE: "z1"}).obj()], []))
    pl = plugin({"defaultingType": "List"}, (), snapshot)
    target = pod().label(foo="").spread_constraint(1, ZONE, "ScheduleAnyway", FOO).obj()
    assert array_score_mismatch(pl, CycleState(), target, snapshot, snapshot.list()) is None
    _, status = pl.normalize_score_array(CycleState(), target, np.zeros(1, np.int64))
    assert status is not None and "PreScorePodTopologySpread" in status.message()
