"""PodTopologySpread's batch Score (`score_nodes`) equals its Score node by node: on the
inputs of upstream's TestPodTopologySpreadScore (and, normalized, gives its results), on
generated clusters (nodes missing topology labels, scored subsets of the nodes), and in
failing the same way (Score without PreScore)."""

from __future__ import annotations

from typing import Any

import pytest
from builtin_helpers import node_infos
from hypothesis import given, settings
from hypothesis import strategies as st
from podtopologyspread_helpers import BAR, FOO, HOSTNAME, node, plugin, pod
from test_spread_scoring import SCORE_CASES

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeScore, Snapshot, is_success
from kubesched.testing import batch_score_mismatch

ZONE = "topology.kubernetes.io/zone"


@pytest.mark.parametrize(
    ("pod_", "feasible", "failed", "existing", "want", "objects"),
    [c[1:] for c in SCORE_CASES],
    ids=[c[0] for c in SCORE_CASES],
)
def test_batch_score_on_upstream_table(
    pod_: Pod,
    feasible: list[Node],
    failed: list[Node],
    existing: list[Pod],
    want: dict[str, int],
    objects: list[dict[str, Any]] | None,
) -> None:
    snapshot = Snapshot(node_infos([*feasible, *failed], list(existing)))
    pl = plugin({"defaultingType": "System"}, objects or (), snapshot)
    infos = [snapshot.node_info_map[n.metadata.name] for n in feasible]
    state = CycleState()
    assert is_success(pl.pre_score(state, pod_, infos))
    assert batch_score_mismatch(pl, state, pod_, infos) is None
    assert batch_score_mismatch(pl, state, pod_, infos[::-1]) is None
    raw, status = pl.score_nodes(state, pod_, infos)
    assert status is None
    scores = [NodeScore(i.name, v) for i, v in zip(infos, raw, strict=True)]
    assert is_success(pl.normalize_score(state, pod_, scores))
    assert {s.name: s.score for s in scores} == want


def test_batch_score_without_pre_score_fails_as_score_does() -> None:
    pod_, feasible, failed, existing = SCORE_CASES[0][1:5]
    snapshot = Snapshot(node_infos([*feasible, *failed], list(existing)))
    pl = plugin({"defaultingType": "System"}, (), snapshot)
    for infos in (snapshot.list(), []):
        assert batch_score_mismatch(pl, CycleState(), pod_, infos) is None
    _, status = pl.score_nodes(CycleState(), pod_, snapshot.list())
    assert status is not None and "PreScorePodTopologySpread" in status.message()


@st.composite
def clusters(draw: st.DrawFn) -> tuple[Pod, list[Node], list[Pod], int]:
    """Nodes in zones (some without the zone or hostname label), pods labelled foo and/or
    bar on them, and a pod spreading foo or bar pods over zones and hosts (ScheduleAnyway)."""
    nodes = []
    for i in range(draw(st.integers(1, 7))):
        n = node(f"node-{i}")
        if draw(st.integers(0, 5)):
            n.label(**{ZONE: draw(st.sampled_from(["z1", "z2", "z3"]))})
        if draw(st.integers(0, 5)):
            n.label(**{HOSTNAME: f"node-{i}"})
        nodes.append(n.obj())
    existing = []
    for j in range(draw(st.integers(0, 12))):
        p = pod(f"e{j}").node(draw(st.sampled_from(nodes)).metadata.name)
        for key in draw(st.lists(st.sampled_from(["foo", "bar"]), unique=True)):
            p.label(**{key: ""})
        existing.append(p.obj())
    target = pod().label(foo="")
    keys = draw(st.lists(st.sampled_from([ZONE, HOSTNAME]), min_size=1, max_size=2, unique=True))
    for key in keys:
        target.spread_constraint(
            draw(st.integers(1, 3)), key, "ScheduleAnyway", draw(st.sampled_from([FOO, BAR]))
        )
    return target.obj(), nodes, existing, draw(st.integers(1, len(nodes)))


@settings(max_examples=150, deadline=None)
@given(drawn=clusters())
def test_batch_score_equals_per_node_score(drawn: tuple[Pod, list[Node], list[Pod], int]) -> None:
    target, nodes, existing, feasible = drawn
    snapshot = Snapshot(node_infos(nodes, existing))
    pl = plugin({"defaultingType": "List"}, (), snapshot)
    infos = snapshot.list()[:feasible]
    state = CycleState()
    assert is_success(pl.pre_score(state, target, infos))
    assert batch_score_mismatch(pl, state, target, infos) is None
    assert batch_score_mismatch(pl, state, target, infos[::-1]) is None
