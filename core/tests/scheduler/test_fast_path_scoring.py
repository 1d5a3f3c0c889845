"""The fast path's Score to selectHost (`Framework.score_rows`, array sums and the seeded
tie-break) decides what the per-node path decides: the same host, counts, per-node scores,
the same failure, and the random number generator left in the same state.

Hypothesis draws clusters of up to 300 nodes and Score plugins answering from tables (per
node, batch or array form; with NormalizeScore per node or as an array; weights; many
ties; a failing or out-of-range score now and then); four cycles in a row.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.config import ResolvedProfile
from kubesched.framework import (
    CycleState,
    FilterPlugin,
    NodeColumns,
    NodeInfo,
    NodeScore,
    Rows,
    RowScores,
    ScorePlugin,
    Snapshot,
    Status,
)
from kubesched.runtime import Framework
from kubesched.scheduler import SchedulingAlgorithm, StatusError
from kubesched.testing import make_node, make_pod


class Recorder:
    def event(self, *args: Any) -> None:
        pass


class Some(FilterPlugin):
    """Filter: rejects the nodes in `out`."""

    name: ClassVar[str] = "Some"
    out: ClassVar[frozenset[str]] = frozenset()

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("out") if node_info.name in self.out else None


class Scores(ScorePlugin):
    """Score from `table` (node → raw score, "fail" fails)."""

    name: ClassVar[str] = "Scores"
    table: ClassVar[dict[str, int | str]] = {}
    normalize_fails: ClassVar[bool] = False

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        value = self.table.get(node_info.name, 0)
        if value == "fail":
            return 0, Status.as_error(f"{self.name} failed on {node_info.name}")
        assert isinstance(value, int)
        return value, None


class NormalizingScores(Scores):
    """NormalizeScore halves, or fails when `normalize_fails`."""

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        if self.normalize_fails:
            return Status.as_error("normalize failed")
        for s in scores:
            s.score //= 2
        return None


class BatchScores(NormalizingScores):
    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        out = []
        for n in nodes:
            value, s = self.score(state, pod, n)
            if s is not None:
                return [], s
            out.append(value)
        return out, None


class RawArrayScores(Scores):
    def score_array(
        self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> tuple[RowScores, Status | None]:
        names = [columns.names[r] for r in rows.tolist()]
        for n in names:
            if self.table.get(n) == "fail":
                return np.zeros(0, np.int64), Status.as_error(f"{self.name} failed on {n}")
        return np.array([self.table.get(n, 0) for n in names], np.int64), None


class ArrayScoresNormalizedPerNode(RawArrayScores, NormalizingScores):
    pass


class ArrayScores(RawArrayScores, NormalizingScores):
    def normalize_score_array(
        self, state: CycleState, pod: Pod, scores: RowScores
    ) -> tuple[RowScores, Status | None]:
        if self.normalize_fails:
            return scores, Status.as_error("normalize failed")
        return scores // 2, None


@dataclass
class Case:
    infos: list[NodeInfo]
    plugins: list[type[Any]]
    weights: dict[str, int]
    seed: int


@st.composite
def cases(draw: st.DrawFn) -> Case:
    count = draw(st.sampled_from([2, 3, 50, 101, 150, 300]))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    infos = [
        NodeInfo(make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods=10).obj())
        for i in range(count)
    ]
    names = [i.name for i in infos]
    out = frozenset(n for n in names if rng.random() < draw(st.sampled_from([0.0, 0.3])))
    plugins: list[type[Any]] = [type("F", (Some,), {"out": out})]
    weights: dict[str, int] = {}
    for k in range(draw(st.integers(1, 3))):
        top = draw(st.sampled_from([1, 3, 100, 250]))
        fail = draw(st.sampled_from([0.0, 0.0, 0.01]))
        table: dict[str, int | str] = {
            n: "fail" if rng.random() < fail else rng.randint(0, top) for n in names
        }
        base = draw(
            st.sampled_from(
                [
                    Scores,
                    NormalizingScores,
                    BatchScores,
                    RawArrayScores,
                    ArrayScoresNormalizedPerNode,
                    ArrayScores,
                ]
            )
        )
        attrs = {
            "name": f"S{k}",
            "table": table,
            "normalize_fails": draw(st.sampled_from([False, False, False, True])),
        }
        plugins.append(type(f"S{k}", (base,), attrs))
        weights[f"S{k}"] = draw(st.integers(1, 3))
    return Case(infos, plugins, weights, draw(st.integers(0, 2**16)))


def framework(case: Case) -> Framework:
    points: dict[str, list[str]] = {"Filter": [], "Score": []}
    for p in case.plugins:
        points["Score" if issubclass(p, ScorePlugin) else "Filter"].append(p.name)
    spec = ResolvedProfile("s", points, weights=case.weights, args={})
    return Framework(
        spec,
        {p.name: p for p in case.plugins},
        cluster=None,
        clock=VirtualClock(),
        snapshot=Snapshot(case.infos),
        event_recorder=Recorder(),
    )


def run(case: Case, fast_path: bool) -> list[Any]:
    fwk = framework(case)
    rng = random.Random(case.seed)
    algorithm = SchedulingAlgorithm(fwk.snapshot, rng, None, fast_path)
    seen: list[Any] = []
    for _ in range(4):
        try:
            result = algorithm.schedule_pod(fwk, CycleState(), make_pod("p").obj())
        except StatusError as exc:
            seen.append(("error", exc.status.code, exc.status.message(), exc.status.plugin))
        except Exception as exc:
            seen.append(("raised", type(exc).__name__, str(exc)))
        else:
            scores = [(s.name, s.scores, s.total_score) for s in result.scores]
            seen.append((result.suggested_host, result.evaluated_nodes, result.feasible_nodes))
            seen.append(scores)
        seen.append((algorithm.next_start_node_index, rng.getstate()))
    return seen


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_fast_path_scores_and_selects_the_host_as_the_per_node_path(case: Case) -> None:
    assert run(case, fast_path=True) == run(case, fast_path=False)


def test_ties_draw_from_the_generator_exactly_as_the_per_node_path() -> None:
    infos = [NodeInfo(make_node(f"n{i}").alloc(cpu="4", pods=10).obj()) for i in range(40)]
    table: dict[str, int | str] = {f"n{i}": 7 if i % 3 else 9 for i in range(40)}
    plugin = type("S0", (ArrayScores,), {"name": "S0", "table": table})
    case = Case(infos, [Some, plugin], {"S0": 2}, seed=11)
    fast = run(case, fast_path=True)
    assert fast == run(case, fast_path=False)
    hosts = {fast[i][0] for i in range(0, len(fast), 3)}
    # 14 nodes tie at 9 // 2 * 2 = 8: the host is drawn among them
    assert hosts <= {f"n{i}" for i in range(0, 40, 3)}


def test_an_out_of_range_score_fails_the_cycle_as_the_per_node_path() -> None:
    infos = [NodeInfo(make_node(f"n{i}").alloc(cpu="4", pods=10).obj()) for i in range(5)]
    table: dict[str, int | str] = {f"n{i}": 50 * i for i in range(5)}
    plugin = type("S0", (RawArrayScores,), {"name": "S0", "table": table})
    case = Case(infos, [Some, plugin], {"S0": 1}, seed=1)
    fast = run(case, fast_path=True)
    assert fast == run(case, fast_path=False)
    assert fast[0][0] == "error" and "invalid score 150" in fast[0][2]
