"""PodTopologySpread's batch Filter (`filter_nodes`) equals its Filter node by node (and,
on generated inputs, its array Filter `filter_mask` passes exactly what Filter passes): on the
inputs of upstream's filtering_test.go (TestSingleConstraint, TestMultipleConstraints),
after AddPod/RemovePod, without PreFilter, and on generated pods and nodes
(hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from podtopologyspread_helpers import plugin, pre_filter
from test_spread_array_filter import exact_filter_mask
from test_spread_filter import MULTIPLE, SINGLE

from kubesched.api import Node, Pod
from kubesched.framework import Code, CycleState, NodeInfo, PodInfo, is_success
from kubesched.testing import Scenario, batch_filter_mismatch
from kubesched.testing import strategies as kst

TABLE = SINGLE + MULTIPLE


@pytest.mark.parametrize(
    ("pod_", "nodes", "existing", "want"), [c[1:] for c in TABLE], ids=[c[0] for c in TABLE]
)
def test_filter_nodes_on_upstream_tables(
    pod_: Pod, nodes: list[Node], existing: list[Pod], want: dict[str, Code]
) -> None:
    pl = plugin()
    state, snapshot, status = pre_filter(pl, pod_, nodes, existing)
    assert is_success(status), status
    infos = [*snapshot.list(), NodeInfo()]
    assert batch_filter_mismatch(pl, state, pod_, infos) is None
    assert batch_filter_mismatch(pl, state, pod_, infos[::-1]) is None
    got = pl.filter_nodes(state, pod_, snapshot.list())
    assert {
        info.name: Code.Success if s is None else s.code
        for info, s in zip(snapshot.list(), got, strict=True)
    } == want
    # after a hypothetical pod on the first node (a preemption dry run's AddPod/RemovePod)
    if existing:
        trial = state.clone()
        ext = pl.pre_filter_extensions()
        assert ext is not None
        ext.add_pod(trial, pod_, PodInfo(existing[0]), snapshot.list()[0])
        assert batch_filter_mismatch(pl, trial, pod_, infos) is None
        ext.remove_pod(trial, pod_, PodInfo(existing[-1]), snapshot.list()[-1])
        assert batch_filter_mismatch(pl, trial, pod_, infos) is None


def test_without_pre_filter_every_node_gets_filters_error() -> None:
    pod_, nodes = SINGLE[0][1], SINGLE[0][2]
    pl = plugin()
    _, snapshot, _ = pre_filter(pl, pod_, nodes)
    infos = [*snapshot.list(), NodeInfo()]
    assert batch_filter_mismatch(pl, CycleState(), pod_, infos) is None
    got = pl.filter_nodes(CycleState(), pod_, infos)
    assert got[0] is not None and "PreFilterPodTopologySpread" in got[0].message()
    assert got[-1] is not None and got[-1].message() == "node not found"


@settings(max_examples=100, deadline=None)
@given(scenario=kst.scenarios(max_nodes=6, max_existing=8))
def test_filter_nodes_equals_filter(scenario: Scenario) -> None:
    snapshot = scenario.snapshot()
    pl = plugin(snapshot=snapshot)
    state = CycleState()
    _, status = pl.pre_filter(state, scenario.pod, snapshot.list())
    if status is not None:
        return  # Skip: Filter does not run
    assert batch_filter_mismatch(pl, state, scenario.pod, snapshot.list()) is None
    exact_filter_mask(pl, state, scenario.pod, snapshot)
