"""NodeResourcesFit and BalancedAllocation keep their array scores (and NodeResourcesFit
its Filter mask) per pod shape across cycles (`helper.row_scores`): a row is computed again
only when its node changed (its generation), node by node when few rows are stale. Over a
run of cycles on random clusters, with pods of a few shapes and nodes changing between
cycles, every answer still equals Score (Filter) node by node; and the cache computes
exactly the stale rows."""

from __future__ import annotations

from typing import Any

import numpy as np
from builtin_helpers import PodBuilder
from fakes import fake_handle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_vectorized import fit_args, pods
from test_vectorized import node_infos as random_node_infos

from kubesched.framework import CycleState, NodeInfo, Snapshot
from kubesched_builtin.balancedallocation import NodeResourcesBalancedAllocation
from kubesched_builtin.balancedallocation.args import NodeResourcesBalancedAllocationArgs
from kubesched_builtin.helper.row_scores import RowScoreCache
from kubesched_builtin.noderesources import NodeResourcesFit, NodeResourcesFitArgs


def _plugins(
    args: dict[str, Any], snapshot: Snapshot
) -> list[NodeResourcesFit | NodeResourcesBalancedAllocation]:
    handle = fake_handle(snapshot=snapshot)
    return [
        NodeResourcesFit(NodeResourcesFitArgs.model_validate(args), handle),
        NodeResourcesBalancedAllocation(
            NodeResourcesBalancedAllocationArgs.model_validate({}), handle
        ),
    ]


_ADDED = PodBuilder("added").req(cpu="300m", memory="300Mi", **{"example.com/gpu": "1"})
"""What each step adds to a node: enough to move its scores."""

_steps = st.lists(
    st.tuples(
        st.integers(0, 2),  # the pod shape of the cycle
        st.integers(0, 5),  # the node that gets a pod before it (modulo the node count)
        st.randoms(use_true_random=False),  # the rows scored
    ),
    min_size=2,
    max_size=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    args=fit_args(),
    shapes=st.lists(pods("incoming"), min_size=3, max_size=3),
    nodes=st.lists(random_node_infos(), min_size=1, max_size=6, unique_by=lambda n: n.name),
    steps=_steps,
)
def test_kept_scores_equal_score_node_by_node_as_nodes_change(
    args: dict[str, Any],
    shapes: list[PodBuilder],
    nodes: list[NodeInfo],
    steps: list[tuple[int, int, Any]],
) -> None:
    snapshot = Snapshot(nodes)
    # handles on the snapshot (stale rows scored node by node) and on another (by arrays)
    plugins = [*_plugins(args, snapshot), *_plugins(args, Snapshot())]
    columns = snapshot.columns
    pods_of_shape = [s.obj() for s in shapes]
    for number, (shape, node, rng) in enumerate(steps):
        at = node % len(snapshot)
        clone = snapshot.node_info_list[at].clone()
        clone.add_pod(_ADDED.uid(f"added-{number}").obj())
        snapshot.replace(at, clone)
        pod = pods_of_shape[shape]
        infos = snapshot.list()
        # the changed row among some others
        others = [r for r in range(len(infos)) if r != at]
        picked = [at, *rng.sample(others, rng.randint(0, len(others)))]
        rng.shuffle(picked)
        rows = np.array(picked, np.intp)
        for plugin in plugins:
            state = CycleState()
            plugin.pre_score(state, pod, infos)
            expected = [plugin.score(state, pod, infos[r])[0] for r in picked]
            try:
                found, status = plugin.score_array(state, pod, columns, rows)
            except OverflowError:
                continue  # amounts beyond int64 on the array form: Score answers node by node
            assert status is None
            assert found.tolist() == expected, (plugin.name, number)
            if isinstance(plugin, NodeResourcesFit):
                plugin.pre_filter(state, pod, infos)
                passes = [plugin.filter(state, pod, infos[r]) is None for r in picked]
                try:
                    mask = plugin.filter_mask(state, pod, columns, rows)
                except OverflowError:
                    continue  # beyond int64 on the array form: Filter answers node by node
                assert mask.tolist() == passes, ("filter_mask", number)


def test_only_rows_whose_node_changed_are_computed_again() -> None:
    snapshot = Snapshot([NodeInfo() for _ in range(10)])
    for i, info in enumerate(snapshot.list()):
        info.name = f"n{i}"
    snapshot.set_nodes(snapshot.list())
    columns = snapshot.columns
    cache = RowScoreCache()
    by_rows: list[list[int]] = []
    by_node: list[str] = []

    def array_form(at: Any) -> Any:
        by_rows.append(at.tolist())
        return at.astype(np.int64) * 10

    def node_form(info: NodeInfo) -> int:
        by_node.append(info.name)
        return int(info.name[1:]) * 10

    def scores(rows: list[int], nodes: list[NodeInfo], key: str = "a") -> list[int]:
        at = np.array(rows, np.intp)
        return list(cache.scores(key, columns, at, array_form, nodes, node_form).tolist())

    infos = snapshot.list()
    everything = list(range(10))
    assert scores(everything, infos) == [r * 10 for r in everything]
    assert by_rows == [everything] and by_node == []  # many rows: the array form
    assert scores([3, 1], infos) == [30, 10]
    assert by_rows == [everything] and by_node == []  # nothing changed: kept
    clone = infos[2].clone()
    clone.add_pod(PodBuilder("p").node("n2").obj())
    snapshot.replace(2, clone)
    assert scores([1, 2], snapshot.list()) == [10, 20]
    assert by_node == ["n2"]  # the changed row alone, on its node info
    clone = snapshot.list()[1].clone()
    clone.add_pod(PodBuilder("q").node("n1").obj())
    snapshot.replace(1, clone)
    assert scores([1, 2], []) == [10, 20]
    assert by_rows[-1] == [1]  # not the columns' node list: the array form
    assert scores([0, 4], infos, key="b") == [0, 40]
    assert by_node[-2:] == ["n0", "n4"]  # another pod shape: its own scores
    calls = len(by_rows), len(by_node)
    assert scores([0, 1, 4], snapshot.list()) == [0, 10, 40]
    assert (len(by_rows), len(by_node)) == calls  # shape "a" kept beside "b"
    other = Snapshot(snapshot.list()).columns
    assert list(cache.scores("a", other, np.array([3]), array_form, [], node_form)) == [30]
    assert by_rows[-1] == [3]  # columns laid out anew: everything again
