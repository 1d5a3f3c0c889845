"""The Score runner with batch scoring (BatchScorePlugin.score_nodes): the same results and
the same errors as the per-node path, which is upstream's RunScorePlugins.

The reference below is the per-node runner as it was before batch scoring, written out
plainly; hypothesis draws plugins, weights, normalizers and scores and both must agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.framework import (
    BatchScorePlugin,
    Code,
    CycleState,
    NodeInfo,
    NodeScore,
    PreScorePlugin,
    ScorePlugin,
    Status,
)
from kubesched.runtime import Framework, NodePluginScores
from kubesched.testing import make_node, make_pod

FrameworkFactory = Callable[..., Framework]
Table = dict[str, int]

CALLS: list[str] = []


@pytest.fixture(autouse=True)
def _reset_calls() -> None:
    CALLS.clear()


def pod() -> Pod:
    return make_pod("p").req(cpu="1").obj()


def nodes(*names: str) -> list[NodeInfo]:
    return [NodeInfo(make_node(n).alloc(cpu="4", memory="8Gi", pods=10).obj()) for n in names]


def per_node_plugin(
    name: str,
    table: Table,
    *,
    normalize: bool = False,
    fail_on: str | None = None,
) -> type[ScorePlugin]:
    """Scores from `table`; fails (Unschedulable "no") on node `fail_on`; with `normalize`,
    scales so the best node gets 100."""

    class P(PreScorePlugin, ScorePlugin):
        def pre_score(self, state: CycleState, pod: Pod, infos: Any) -> Status | None:
            return None

        def score(self, state: CycleState, pod: Pod, info: NodeInfo) -> tuple[int, Status | None]:
            CALLS.append(f"{name}.score")
            if info.name == fail_on:
                return 0, Status.unschedulable("no")
            return table[info.name], None

    if normalize:

        def normalize_score(self: Any, state: CycleState, p: Pod, s: list[NodeScore]) -> None:
            top = max(x.score for x in s) or 1
            for x in s:
                x.score = x.score * 100 // top

        P.normalize_score = normalize_score  # type: ignore[method-assign,assignment]
    P.name = name
    return P


def batch_plugin(name: str, table: Table, **kw: Any) -> type[ScorePlugin]:
    """The same plugin with a `score_nodes` that answers as `score` would."""
    base = per_node_plugin(name, table, **kw)
    fail_on = kw.get("fail_on")

    class B(base):  # type: ignore[valid-type,misc]
        def score_nodes(
            self, state: CycleState, pod: Pod, infos: Sequence[NodeInfo]
        ) -> tuple[list[int], Status | None]:
            CALLS.append(f"{name}.score_nodes")
            for info in infos:
                if info.name == fail_on:
                    return [], Status.unschedulable("no")
            return [table[i.name] for i in infos], None

    B.name = name
    return B


def view(scores: list[NodePluginScores]) -> list[tuple[str, list[tuple[str, int]], int]]:
    return [(s.name, s.scores, s.total_score) for s in scores]


def run(fwk: Framework, infos: list[NodeInfo]) -> tuple[list[NodePluginScores], Status]:
    state = CycleState()
    assert fwk.run_pre_score_plugins(state, pod(), infos).is_success
    return fwk.run_score_plugins(state, pod(), infos)


def test_batch_plugin_is_called_once_instead_of_per_node(
    make_framework: FrameworkFactory,
) -> None:
    a = batch_plugin("A", {"n1": 10, "n2": 5}, normalize=True)
    b = per_node_plugin("B", {"n1": 0, "n2": 40})
    fwk = make_framework({"PreScore": [a, b], "Score": [a, b]}, weights={"A": 2, "B": 1})
    scores, status = run(fwk, nodes("n1", "n2"))
    assert status.is_success
    assert CALLS == ["A.score_nodes", "B.score", "B.score"]
    # the table of the per-node runner test: normalized, weighted and summed alike
    assert view(scores) == [
        ("n1", [("A", 200), ("B", 0)], 200),
        ("n2", [("A", 100), ("B", 40)], 140),
    ]
    assert isinstance(fwk.plugins["A"], BatchScorePlugin)
    assert not isinstance(fwk.plugins["B"], BatchScorePlugin)


def test_batch_failure_has_the_per_node_error(make_framework: FrameworkFactory) -> None:
    outcomes = []
    for make in (per_node_plugin, batch_plugin):
        plugin = make("A", {"n1": 1, "n2": 2}, fail_on="n2")
        scores, status = run(make_framework({"Score": [plugin]}), nodes("n1", "n2"))
        outcomes.append((scores, status.code, status.plugin, status.message()))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1] == (
        [],
        Code.Error,
        "A",
        'running Score plugins: plugin "A" failed with: no',
    )


def test_batch_out_of_range_has_the_per_node_error(make_framework: FrameworkFactory) -> None:
    messages = []
    for make in (per_node_plugin, batch_plugin):
        plugin = make("Big", {"n1": 7, "n2": 150, "n3": -1})
        _, status = run(make_framework({"Score": [plugin]}), nodes("n1", "n2", "n3"))
        assert status.code is Code.Error and status.plugin == "Big"
        messages.append(status.message())
    assert (
        messages[0]
        == messages[1]
        == (
            'applying score defaultWeights on Score plugins: plugin "Big" returns an invalid '
            "score 150, it should in the range of [0, 100] after normalizing"
        )
    )


def test_pre_score_skip_disables_the_batch_score(make_framework: FrameworkFactory) -> None:
    class Skipping(batch_plugin("A", {"n1": 1})):  # type: ignore[misc]
        def pre_score(self, state: CycleState, pod: Pod, infos: Any) -> Status | None:
            return Status.skip()

    fwk = make_framework({"PreScore": [Skipping], "Score": [Skipping]})
    scores, status = run(fwk, nodes("n1"))
    assert status.is_success and CALLS == []
    assert view(scores) == [("n1", [], 0)]


class _Odd(ScorePlugin):
    name = "Odd"
    answer: Any = None

    def score(self, state: CycleState, pod: Pod, info: NodeInfo) -> tuple[int, Status | None]:
        return 1, None

    def score_nodes(
        self, state: CycleState, pod: Pod, infos: Sequence[NodeInfo]
    ) -> tuple[Sequence[int], Status | None]:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer, None


def test_a_numpy_array_gives_plain_ints(make_framework: FrameworkFactory) -> None:
    _Odd.answer = np.array([3, 4], dtype=np.int64)
    scores, status = run(make_framework({"Score": [_Odd]}, weights={"Odd": 2}), nodes("a", "b"))
    assert status.is_success
    assert view(scores) == [("a", [("Odd", 6)], 6), ("b", [("Odd", 8)], 8)]
    assert {type(v) for s in scores for _, v in s.scores} == {int}
    assert {type(s.total_score) for s in scores} == {int}


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ([1], 'running Score plugins: plugin "Odd" failed with: score_nodes returned 1 scores '
              "for 2 nodes"),
        (ZeroDivisionError("boom"), "plugin Odd raised ZeroDivisionError: boom"),
        (None, "plugin Odd raised TypeError"),
    ],
)  # fmt: skip
def test_a_broken_batch_is_an_error_naming_the_plugin(
    make_framework: FrameworkFactory, answer: Any, says: str
) -> None:
    _Odd.answer = answer
    scores, status = run(make_framework({"Score": [_Odd]}), nodes("a", "b"))
    assert scores == [] and status.code is Code.Error and status.plugin == "Odd"
    assert says in status.message()


def test_no_nodes(make_framework: FrameworkFactory) -> None:
    a = batch_plugin("A", {})
    scores, status = run(make_framework({"Score": [a]}), [])
    assert status.is_success and scores == []


def test_node_plugin_scores_equality_and_repr() -> None:
    lazy = NodePluginScores("n", None, 5, plugins=["A", "B"], row=(2, 3))
    eager = NodePluginScores("n", [("A", 2), ("B", 3)], 5)
    assert lazy == eager and lazy != NodePluginScores("n", [("A", 2)], 2)
    assert repr(lazy) == "NodePluginScores(name='n', scores=[('A', 2), ('B', 3)], total_score=5)"
    assert NodePluginScores("m").scores == []


# -- the per-node reference -------------------------------------------------------------


def reference(
    plugins: list[tuple[str, Table, bool, int]], names: list[str]
) -> list[tuple[str, list[tuple[str, int]], int]] | str:
    """Upstream's rules, node by node: score, normalize, range check, weight, sum."""
    rows: list[tuple[str, list[tuple[str, int]], int]] = [(n, [], 0) for n in names]
    for name, table, normalize, weight in plugins:
        values = [table[n] for n in names]
        if normalize:
            top = max(values) or 1
            values = [v * 100 // top for v in values]
        for v in values:
            if not 0 <= v <= 100:
                return f"invalid score {v}"
        rows = [
            (n, [*s, (name, v * weight)], t + v * weight)
            for (n, s, t), v in zip(rows, values, strict=True)
        ]
    return rows


@st.composite
def profiles(draw: st.DrawFn) -> tuple[list[tuple[str, Table, bool, int, bool]], list[str]]:
    names = [f"n{i}" for i in range(draw(st.integers(1, 6)))]
    plugins = []
    for i in range(draw(st.integers(1, 4))):
        normalize = draw(st.booleans())
        low, high = (0, 50) if normalize else (-2, 102)
        table = {n: draw(st.integers(low, high)) for n in names}
        weight = draw(st.integers(1, 5))
        plugins.append((f"P{i}", table, normalize, weight, draw(st.booleans())))
    return plugins, names


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(drawn=profiles())
def test_batch_and_per_node_runners_agree_with_the_reference(
    make_framework: FrameworkFactory,
    drawn: tuple[list[tuple[str, Table, bool, int, bool]], list[str]],
) -> None:
    plugins, names = drawn
    classes = [
        (batch_plugin if batch else per_node_plugin)(name, table, normalize=norm)
        for name, table, norm, _, batch in plugins
    ]
    weights = {name: w for name, _, _, w, _ in plugins}
    fwk = make_framework({"PreScore": classes, "Score": classes}, weights=weights)
    scores, status = run(fwk, nodes(*names))
    want = reference([(n, t, norm, w) for n, t, norm, w, _ in plugins], names)
    if isinstance(want, str):
        assert status.code is Code.Error and want in status.message()
    else:
        assert status.is_success and view(scores) == want
