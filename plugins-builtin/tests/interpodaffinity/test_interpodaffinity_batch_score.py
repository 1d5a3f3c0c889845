"""InterPodAffinity's batch Score (`score_nodes`) equals its Score node by node: on the inputs
of upstream's TestPreferredAffinity and TestPreferredAffinityWithHardPodAffinitySymmetric
Weight (and, normalized, gives their results), on generated clusters with pod (anti-)
affinities, and in failing the same way (Score without PreScore, a node info without its
node)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from interpodaffinity_helpers import plugin_for
from test_interpodaffinity_scoring import (
    AZ1,
    CHINA,
    HARD_POD_AFFINITY,
    HARD_WEIGHT,
    INDIA,
    PREFERRED,
    S1,
    STAY_WITH_S1_IN_REGION,
    incoming,
    nodes,
    on,
)

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeInfo, NodeScore, Snapshot, Status, is_success
from kubesched.testing import Scenario, batch_score_mismatch
from kubesched.testing import strategies as kst
from kubesched_builtin.interpodaffinity import InterPodAffinity


def normalized(plugin: InterPodAffinity, snapshot: Snapshot, pod: Pod) -> Status | list[int]:
    """PreScore's failure, or the batch scores normalized, after checking them against
    Score node by node."""
    state = CycleState()
    status = plugin.pre_score(state, pod, snapshot.list())
    if not is_success(status):
        assert status is not None
        return status
    infos = snapshot.list()
    assert batch_score_mismatch(plugin, state, pod, infos) is None
    assert batch_score_mismatch(plugin, state, pod, infos[::-1]) is None
    raw, failed = plugin.score_nodes(state, pod, infos)
    assert failed is None
    scores = [NodeScore(i.name, v) for i, v in zip(infos, raw, strict=True)]
    assert is_success(plugin.normalize_score(state, pod, scores))
    return [s.score for s in scores]


@pytest.mark.parametrize(
    ("pod", "pods", "node_list", "want", "ignore"),
    [c[1:] for c in PREFERRED],
    ids=[c[0] for c in PREFERRED],
)
def test_batch_score_on_upstream_preferred_affinity(
    pod: Pod, pods: list[Pod], node_list: list[Node], want: list[int] | Status, ignore: bool
) -> None:
    plugin, snapshot = plugin_for(
        pods, node_list, hardPodAffinityWeight=1, ignorePreferredTermsOfExistingPods=ignore
    )
    assert normalized(plugin, snapshot, pod) == want


@pytest.mark.parametrize(
    ("namespace", "weight", "want"), [c[1:] for c in HARD_WEIGHT], ids=[c[0] for c in HARD_WEIGHT]
)
def test_batch_score_on_upstream_hard_pod_affinity_weight(
    namespace: str, weight: int, want: list[int] | Status
) -> None:
    pods = [on(1, None, HARD_POD_AFFINITY), on(2, None, HARD_POD_AFFINITY)]
    plugin, snapshot = plugin_for(pods, nodes(CHINA, INDIA, AZ1), hardPodAffinityWeight=weight)
    assert normalized(plugin, snapshot, incoming({"service": "S1"}, ns=namespace)) == want


def test_batch_score_fails_as_score_does() -> None:
    plugin, snapshot = plugin_for([on(1, S1)], nodes(CHINA, INDIA))
    pod = incoming(S1, STAY_WITH_S1_IN_REGION)
    infos = snapshot.list()
    for candidates in (infos, []):  # no PreScore: the state error
        assert batch_score_mismatch(plugin, CycleState(), pod, candidates) is None
    state = CycleState()
    assert is_success(plugin.pre_score(state, pod, infos))
    assert batch_score_mismatch(plugin, state, pod, [*infos, NodeInfo()]) is None
    _, status = plugin.score_nodes(state, pod, [*infos, NodeInfo()])
    assert status is not None and status.message() == "node not found"


NAMESPACES = [("default", {"team": "a"}), ("team-a", {"team": "b"})]


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    """Generated clusters where the pod to place mostly has preferred pod (anti-)affinity,
    so that PreScore has topology scores to give."""
    scenario = draw(kst.scenarios(max_nodes=6, max_existing=8))
    if draw(st.integers(0, 3)) == 0:
        return scenario
    kind = draw(st.sampled_from(["podAffinity", "podAntiAffinity"]))
    weighted = {
        "weight": draw(st.integers(1, 100)),
        "podAffinityTerm": draw(kst.pod_affinity_terms()),
    }
    data = scenario.pod.model_dump(by_alias=True, exclude_none=True)
    data["spec"]["affinity"] = {
        kind: {"preferredDuringSchedulingIgnoredDuringExecution": [weighted]}
    }
    return Scenario(scenario.nodes, scenario.existing, Pod.model_validate(data), scenario.other)


@settings(max_examples=100, deadline=None)
@given(
    scenario=scenarios(),
    args=st.sampled_from(
        [{}, {"hardPodAffinityWeight": 0}, {"ignorePreferredTermsOfExistingPods": True}]
    ),
)
def test_batch_score_equals_per_node_score(scenario: Scenario, args: dict[str, Any]) -> None:
    plugin, snapshot = plugin_for(scenario.existing, scenario.nodes, NAMESPACES, **args)
    state = CycleState()
    if not is_success(plugin.pre_score(state, scenario.pod, snapshot.list())):
        return  # Skip: nothing to score
    assert batch_score_mismatch(plugin, state, scenario.pod, snapshot.list()) is None
