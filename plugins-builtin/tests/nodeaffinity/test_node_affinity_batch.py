"""NodeAffinity's batch Score (`score_nodes`) equals its Score node by node: on the inputs of
upstream's TestNodeAffinityPriority (and, normalized, gives its results), on generated pods
and nodes with and without added affinity, and in failing the same way (a broken affinity
without PreScore, a node info without its node)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nodeaffinity_helpers import (
    affinity_plugin,
    expr,
    make_affinity_node,
    pod_with,
    preferred,
    term,
)
from test_node_affinity_score import CASES

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeInfo, NodeScore, Status, is_success
from kubesched.testing import Scenario, batch_score_mismatch
from kubesched.testing import strategies as kst


@pytest.mark.parametrize(
    ("pod", "node_list", "want", "args", "run_pre_score", "want_pre_score"), CASES
)
def test_batch_score_on_upstream_table(
    pod: Pod,
    node_list: list[Node],
    want: list[int] | None,
    args: dict[str, Any] | None,
    run_pre_score: bool,
    want_pre_score: Status | None,
) -> None:
    plugin = affinity_plugin(args)
    infos = [NodeInfo(n) for n in node_list]
    state = CycleState()
    if run_pre_score and not is_success(plugin.pre_score(state, pod, infos)):
        # Score does not run; without PreScore, batch and per node still agree
        assert batch_score_mismatch(plugin, CycleState(), pod, infos) is None
        return
    assert batch_score_mismatch(plugin, state, pod, infos) is None
    assert batch_score_mismatch(plugin, state, pod, infos[::-1]) is None
    raw, status = plugin.score_nodes(state, pod, infos)
    assert status is None
    scores = [NodeScore(i.name, v) for i, v in zip(infos, raw, strict=True)]
    assert is_success(plugin.normalize_score(state, pod, scores))
    assert [s.score for s in scores] == want


def test_batch_score_fails_as_score_does() -> None:
    broken = pod_with(preferred((2, term(expr("invalid key", "In", "bar")))))
    good = pod_with(preferred((2, term(expr("foo", "In", "bar")))))
    node = NodeInfo(make_affinity_node("n", {"foo": "bar"}))
    plugin = affinity_plugin()
    for pod in (broken, good):
        for infos in ([node], [NodeInfo(), node], [node, NodeInfo()], []):
            assert batch_score_mismatch(plugin, CycleState(), pod, infos) is None
    _, status = plugin.score_nodes(CycleState(), broken, [node])
    assert status is not None and "invalid key" in status.message()


ADDED = [
    None,
    {
        "addedAffinity": preferred(
            (3, term(expr("app", "In", "a"))), (1, term(expr("tier", "Exists")))
        )
    },
]


@settings(max_examples=100, deadline=None)
@given(scenario=kst.scenarios(max_nodes=6), args=st.sampled_from(ADDED), pre_score=st.booleans())
def test_batch_score_equals_per_node_score(
    scenario: Scenario, args: dict[str, Any] | None, pre_score: bool
) -> None:
    snapshot = scenario.snapshot()
    plugin = affinity_plugin(args, snapshot)
    state = CycleState()
    if pre_score and not is_success(plugin.pre_score(state, scenario.pod, snapshot.list())):
        return
    assert batch_score_mismatch(plugin, state, scenario.pod, snapshot.list()) is None
