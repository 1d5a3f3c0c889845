"""TaintToleration's array Filter and Score on a cluster whose nodes share one taint list
(`helper.arrays.per_distinct_at` answers every row at once without reading them), then
after a node gains taints (a second list): each row still answers as Filter and Score do
node by node."""

from __future__ import annotations

import numpy as np
from builtin_helpers import make_node, make_pod
from fakes import fake_handle

from kubesched.framework import CycleState, NoArgs, NodeInfo, Snapshot
from kubesched_builtin.helper.arrays import per_distinct_at
from kubesched_builtin.tainttoleration import TaintToleration


def _answers(plugin: TaintToleration, snapshot: Snapshot) -> tuple[list[bool], list[int]]:
    pod = make_pod("p").obj()
    infos = snapshot.list()
    rows = np.arange(len(infos), dtype=np.intp)[::-1].copy()
    state = CycleState()
    plugin.pre_score(state, pod, infos)
    mask = plugin.filter_mask(state, pod, snapshot.columns, rows).tolist()
    scores, status = plugin.score_array(state, pod, snapshot.columns, rows)
    assert status is None
    ordered = [infos[r] for r in rows.tolist()]
    assert mask == [plugin.filter(state, pod, n) is None for n in ordered]
    assert scores.tolist() == [plugin.score(state, pod, n)[0] for n in ordered]
    return mask, scores.tolist()


def test_rows_answer_alike_until_a_node_gains_taints() -> None:
    snapshot = Snapshot([NodeInfo(make_node(f"n{i}").obj()) for i in range(4)])
    plugin = TaintToleration(NoArgs(), fake_handle(snapshot=snapshot))
    assert len(snapshot.columns.taint_sets) == 1
    assert _answers(plugin, snapshot) == ([True] * 4, [0] * 4)
    tainted = NodeInfo(
        make_node("n1")
        .taint(key="a", value="b", effect="NoSchedule")
        .taint(key="c", value="d", effect="PreferNoSchedule")
        .obj()
    )
    snapshot.replace(1, tainted)
    assert len(snapshot.columns.taint_sets) == 2
    # rows in reverse order: n1 is the third
    assert _answers(plugin, snapshot) == ([True, True, False, True], [0, 0, 1, 0])


def test_one_id_answers_once_without_reading_the_rows() -> None:
    asked: list[int] = []

    def answer(i: int) -> int:
        asked.append(i)
        return 7

    empty = np.zeros(0, np.int64)  # would fail to index, were it read
    found = per_distinct_at(empty, np.array([3, 5, 9], np.intp), 1, answer, np.int64)
    assert found.tolist() == [7, 7, 7] and asked == [0]
    column = np.array([0, 1, 1, 2], np.int64)
    found = per_distinct_at(column, np.array([3, 1, 2], np.intp), 3, answer, np.int64)
    assert found.tolist() == [7, 7, 7] and sorted(asked) == [0, 1, 2]
