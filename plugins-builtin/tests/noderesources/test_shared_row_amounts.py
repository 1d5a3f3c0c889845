"""NodeResourcesFit and BalancedAllocation scoring the same rows in one cycle share what
they gather (`helper.row_amounts`): each still equals its Score node by node whichever of
them gathers first, on random clusters (amounts beyond int64 arithmetic among them, which
each plugin judges against its own bound); a new rows array or columns is gathered anew."""

from __future__ import annotations

from typing import Any

import numpy as np
from builtin_helpers import PodBuilder
from fakes import fake_handle
from fit_helpers import fit_plugin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_vectorized import fit_args, pods
from test_vectorized import node_infos as random_node_infos

from kubesched.framework import CycleState, NodeInfo, Snapshot
from kubesched_builtin.balancedallocation import NodeResourcesBalancedAllocation
from kubesched_builtin.balancedallocation.args import NodeResourcesBalancedAllocationArgs
from kubesched_builtin.helper.row_amounts import row_amounts


def _balanced(snapshot: Snapshot) -> NodeResourcesBalancedAllocation:
    args = NodeResourcesBalancedAllocationArgs.model_validate({})
    return NodeResourcesBalancedAllocation(args, fake_handle(snapshot=snapshot))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    args=fit_args(),
    pod=pods("incoming"),
    nodes=st.lists(random_node_infos(), min_size=1, max_size=6, unique_by=lambda n: n.name),
    balanced_first=st.booleans(),
    huge=st.booleans(),
)
def test_fit_and_balanced_allocation_share_the_rows_amounts(
    args: dict[str, Any],
    pod: PodBuilder,
    nodes: list[NodeInfo],
    balanced_first: bool,
    huge: bool,
) -> None:
    if huge:  # between the two plugins' bounds (2**54 and 2**62): Fit falls back, BA not
        nodes[0].allocatable.memory = 2**60
    snapshot = Snapshot(nodes)
    fit, balanced = fit_plugin(args), _balanced(snapshot)
    the_pod = pod.obj()
    state = CycleState()
    infos = snapshot.list()
    fit.pre_score(state, the_pod, infos)
    balanced.pre_score(state, the_pod, infos)
    columns = snapshot.columns
    rows = np.arange(len(infos), dtype=np.intp)[::-1].copy()
    ordered = [infos[r] for r in rows.tolist()]
    answers = {}
    for plugin in (balanced, fit) if balanced_first else (fit, balanced):
        try:
            found, status = plugin.score_array(state, the_pod, columns, rows)
        except OverflowError:
            assert huge  # amounts too large for exact int64: Score answers node by node
            continue
        assert status is None
        answers[plugin.name] = found.tolist()
        assert found.tolist() == [plugin.score(state, the_pod, n)[0] for n in ordered]
    if not huge:
        assert set(answers) == {fit.name, balanced.name}
    assert row_amounts(state, columns, rows) is row_amounts(state, columns, rows)


def test_other_rows_or_columns_are_gathered_anew() -> None:
    snapshot = Snapshot([NodeInfo(), NodeInfo()])
    state = CycleState()
    columns = snapshot.columns
    rows = np.arange(2, dtype=np.intp)
    first = row_amounts(state, columns, rows)
    assert row_amounts(state, columns, rows) is first
    assert row_amounts(state, columns, rows.copy()) is not first
    other = Snapshot([NodeInfo()]).columns
    assert row_amounts(state, other, rows[:1]).columns is other
