"""TaintToleration's batch Score (`score_nodes`) equals its Score node by node: on the inputs
of upstream's TestTaintTolerationScore (and, normalized, gives its results), on generated
pods and nodes, and in failing the same way (no PreScore, a node info without its node)."""

from __future__ import annotations

import pytest
from fakes import fake_handle
from hypothesis import given, settings
from test_taint_toleration import SCORE_CASES, _plugin, node_with_taints, pod_with_tolerations

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NoArgs, NodeInfo, NodeScore, is_success
from kubesched.testing import Scenario, batch_score_mismatch
from kubesched.testing import strategies as kst
from kubesched_builtin.tainttoleration import TaintToleration


@pytest.mark.parametrize(
    ("name", "pod", "nodes", "want"), SCORE_CASES, ids=[c[0][:60] for c in SCORE_CASES]
)
def test_batch_score_on_upstream_table(
    name: str, pod: Pod, nodes: list[Node], want: list[int]
) -> None:
    plugin = _plugin()
    state = CycleState()
    infos = [NodeInfo(n) for n in nodes]
    assert is_success(plugin.pre_score(state, pod, infos))
    assert batch_score_mismatch(plugin, state, pod, infos) is None
    assert batch_score_mismatch(plugin, state, pod, infos[::-1]) is None
    raw, status = plugin.score_nodes(state, pod, infos)
    assert status is None
    scores = [NodeScore(i.name, v) for i, v in zip(infos, raw, strict=True)]
    assert is_success(plugin.normalize_score(state, pod, scores))
    assert [s.score for s in scores] == want


def test_batch_score_fails_as_score_does() -> None:
    plugin = _plugin()
    pod = pod_with_tolerations("p", [])
    tainted = NodeInfo(
        node_with_taints("n", [{"key": "a", "value": "", "effect": "PreferNoSchedule"}])
    )
    without_node = NodeInfo()
    # no PreScore: the state error; a node info without its node: "node not found" first
    for infos in ([tainted], [without_node, tainted], [tainted, without_node], []):
        assert batch_score_mismatch(plugin, CycleState(), pod, infos) is None
    state = CycleState()
    plugin.pre_score(state, pod, [tainted])
    assert batch_score_mismatch(plugin, state, pod, [tainted, without_node]) is None
    _, status = plugin.score_nodes(state, pod, [tainted, without_node])
    assert status is not None and status.message() == "node not found"


@settings(max_examples=100, deadline=None)
@given(scenario=kst.scenarios(max_nodes=6))
def test_batch_score_equals_per_node_score(scenario: Scenario) -> None:
    snapshot = scenario.snapshot()
    plugin = TaintToleration(NoArgs(), fake_handle(snapshot=snapshot))
    state = CycleState()
    plugin.pre_score(state, scenario.pod, snapshot.list())
    assert batch_score_mismatch(plugin, state, scenario.pod, snapshot.list()) is None
