"""`array_filter_mismatch` and `array_score_mismatch`: what the ArrayFilter and ArrayScore
contracts and plugin tests use to hold the array forms (plugin API 0.4) to the per-node
forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pytest

from kubesched.api import Pod
from kubesched.framework import (
    CycleState,
    FilterPlugin,
    NoArgs,
    NodeColumns,
    NodeInfo,
    NodeScore,
    Rows,
    ScorePlugin,
    Snapshot,
    Status,
)
from kubesched.testing import array_filter_mismatch, array_score_mismatch, make_node, make_pod

Answer = Callable[[NodeColumns, Rows], Any]


def snapshot(*names: str) -> Snapshot:
    """Node `names[i]` runs i pods."""
    infos = []
    for i, name in enumerate(names):
        info = NodeInfo(make_node(name).alloc(cpu="1", pods=10).obj())
        for j in range(i):
            info.add_pod(make_pod(f"{name}-{j}").node(name).obj())
        infos.append(info)
    return Snapshot(infos)


class Busy(FilterPlugin, ScorePlugin):
    """Filter: Unschedulable on nodes running pods; Score: the pod count; NormalizeScore:
    times ten."""

    name: ClassVar[str] = "Busy"

    def __init__(self, mask: Answer | None = None, scores: Answer | None = None) -> None:
        super().__init__(NoArgs(), None)  # type: ignore[arg-type]
        self.mask = mask
        self.scores = scores

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("busy") if node_info.pods else None

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> Any:
        assert self.mask is not None
        return self.mask(columns, rows)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return len(node_info.pods), None

    def score_array(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> Any:
        assert self.scores is not None
        return self.scores(columns, rows)

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        for s in scores:
            s.score *= 10
        return None

    def normalize_score_array(self, state: CycleState, pod: Pod, scores: Any) -> Any:
        return scores * 10, None


def empty(columns: NodeColumns, rows: Rows) -> Any:
    return columns.pod_count[rows] == 0


def boom(columns: NodeColumns, rows: Rows) -> Any:
    raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("mask", "want"),
    [
        pytest.param(empty, None, id="exact"),
        pytest.param(lambda c, r: np.zeros(len(r), np.bool_), None, id="rejecting more is allowed"),
        pytest.param(boom, None, id="raising means: ask filter"),
        pytest.param(
            lambda c, r: np.ones(len(r), np.bool_),
            "filter_mask passed node b, where Filter answers ('Unschedulable', 'busy')",
            id="passing a node filter rejects",
        ),
        pytest.param(
            lambda c, r: [True] * len(r), "not one bool per row", id="not an array of bools"
        ),
        pytest.param(lambda c, r: np.ones(1, np.bool_), "not one bool per row", id="wrong length"),
    ],
)
def test_array_filter_mismatch(mask: Answer, want: str | None) -> None:
    snap = snapshot("a", "b", "c")
    got = array_filter_mismatch(
        Busy(mask=mask), CycleState(), make_pod("p").obj(), snap, snap.list()
    )
    if want is None:
        assert got is None
    else:
        assert got is not None and want in got


def counts(columns: NodeColumns, rows: Rows) -> Any:
    return columns.pod_count[rows].copy(), None


@pytest.mark.parametrize(
    ("scores", "want"),
    [
        pytest.param(counts, None, id="equal"),
        pytest.param(boom, None, id="raising means: score node by node"),
        pytest.param(
            lambda c, r: (c.pod_count[r] + 1, None), "score_array [1, 2, 3], node by node [0, 1, 2]"
        ),
        pytest.param(
            lambda c, r: (np.zeros(0, np.int64), Status.as_error("no")),
            "score_array failed with ('Error', 'no'), Score node by node with None",
            id="a failure Score does not have",
        ),
        pytest.param(
            lambda c, r: (c.pod_count[r].astype(np.float64), None),
            "float64 scores, not integers",
            id="floats",
        ),
    ],
)
def test_array_score_mismatch(scores: Answer, want: str | None) -> None:
    snap = snapshot("a", "b", "c")
    plugin = Busy(scores=scores)
    got = array_score_mismatch(plugin, CycleState(), make_pod("p").obj(), snap, snap.list())
    if want is None:
        assert got is None
    else:
        assert got is not None and want in got


def test_array_score_mismatch_holds_normalize_score_array_to_normalize_score() -> None:
    class Halving(Busy):
        def normalize_score_array(self, state: CycleState, pod: Pod, scores: Any) -> Any:
            return scores // 2, None

    snap = snapshot("a", "b", "c")
    got = array_score_mismatch(
        Halving(scores=counts), CycleState(), make_pod("p").obj(), snap, snap.list()
    )
    assert got == "normalize_score_array [0, 0, 1], normalize_score [0, 10, 20] (raw [0, 1, 2])"
