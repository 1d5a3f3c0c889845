"""PodTopologySpread's array Filter (`filter_mask`) passes exactly the nodes its Filter
passes: on the inputs of upstream's filtering_test.go (TestSingleConstraint,
TestMultipleConstraints) and after AddPod/RemovePod; on generated pods and nodes in
test_spread_batch_filter.py (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from podtopologyspread_helpers import plugin, pre_filter
from test_spread_filter import MULTIPLE, SINGLE

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NodeInfo, PodInfo, Snapshot, is_success
from kubesched.testing import array_filter_mismatch
from kubesched_builtin.podtopologyspread import PodTopologySpread

TABLE = SINGLE + MULTIPLE


def exact_filter_mask(
    pl: PodTopologySpread, state: CycleState, pod: Pod, snapshot: Snapshot
) -> None:
    """The mask is True exactly where Filter succeeds (no node left to Filter for speed),
    in the snapshot's order and reversed."""
    infos: list[NodeInfo] = snapshot.list()
    for order in (infos, infos[::-1]):
        assert array_filter_mismatch(pl, state, pod, snapshot, order) is None
        rows = snapshot.columns.positions(order)
        assert rows is not None
        mask = pl.filter_mask(state, pod, snapshot.columns, rows)
        assert mask.tolist() == [pl.filter(state, pod, i) is None for i in order]


@pytest.mark.parametrize(
    ("pod_", "nodes", "existing"), [c[1:4] for c in TABLE], ids=[c[0] for c in TABLE]
)
def test_filter_mask_on_upstream_tables(pod_: Pod, nodes: list[Node], existing: list[Pod]) -> None:
    pl = plugin()
    state, snapshot, status = pre_filter(pl, pod_, nodes, existing)
    assert is_success(status), status
    exact_filter_mask(pl, state, pod_, snapshot)
    # after a hypothetical pod on the first node (a preemption dry run's AddPod/RemovePod)
    if existing:
        trial = state.clone()
        ext = pl.pre_filter_extensions()
        assert ext is not None
        ext.add_pod(trial, pod_, PodInfo(existing[0]), snapshot.list()[0])
        exact_filter_mask(pl, trial, pod_, snapshot)
        ext.remove_pod(trial, pod_, PodInfo(existing[-1]), snapshot.list()[-1])
        exact_filter_mask(pl, trial, pod_, snapshot)


def test_filter_mask_without_pre_filter_raises() -> None:
    pod_, nodes = SINGLE[0][1], SINGLE[0][2]
    pl = plugin()
    _, snapshot, _ = pre_filter(pl, pod_, nodes)
    rows = np.arange(len(snapshot.list()), dtype=np.intp)
    with pytest.raises(RuntimeError):
        pl.filter_mask(CycleState(), pod_, snapshot.columns, rows)
