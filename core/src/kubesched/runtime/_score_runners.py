"""The PreScore and Score runners of a Framework, and each node's scores (upstream
framework.go RunPreScorePlugins and RunScorePlugins)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kubesched.api import Pod
from kubesched.framework import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Code,
    CycleState,
    NodeInfo,
    NodeScore,
    PreScorePlugin,
    ScorePlugin,
    Status,
)
from kubesched.runtime._cycle_recording import CycleRecorder, recorder_of
from kubesched.runtime._plugin_status import SUCCESS, invalid_score, raised, wrap_error

__all__ = ["NodePluginScores", "ScoreRunners"]


class NodePluginScores:
    """A feasible node's weighted score per plugin (`scores`: (plugin, score) in the
    profile's order) and their sum (`total_score`).

    The Score runner gives each node its row of the plugins' weighted scores, and
    `scores` pairs it with the plugin names when first read: selecting the host needs only
    the totals."""

    __slots__ = ("_plugins", "_row", "_scores", "name", "total_score")

    def __init__(
        self,
        name: str,
        scores: list[tuple[str, int]] | None = None,
        total_score: int = 0,
        *,
        plugins: Sequence[str] = (),
        row: Sequence[int] = (),
    ) -> None:
        self.name = name
        self.total_score = total_score
        self._scores = scores
        self._plugins = plugins
        self._row = row

    @property
    def scores(self) -> list[tuple[str, int]]:
        if self._scores is None:
            self._scores = list(zip(self._plugins, self._row, strict=True))
        return self._scores

    @scores.setter
    def scores(self, value: list[tuple[str, int]]) -> None:
        self._scores = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NodePluginScores):
            return NotImplemented
        return (self.name, self.scores, self.total_score) == (
            other.name,
            other.scores,
            other.total_score,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it replaces

    def __repr__(self) -> str:
        return (
            f"NodePluginScores(name={self.name!r}, scores={self.scores!r}, "
            f"total_score={self.total_score!r})"
        )


class ScoreRunners:
    """Mixed into Framework, which sets the attributes below."""

    pre_score_plugins: list[PreScorePlugin]
    score_plugins: list[ScorePlugin]
    score_weights: dict[str, int]
    _normalizers: set[str]
    _batch_scorers: dict[
        str, Callable[[CycleState, Pod, Sequence[NodeInfo]], tuple[Sequence[int], Status | None]]
    ]

    def run_pre_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Status:
        skip: set[str] = set()
        for p in self.pre_score_plugins:
            try:
                s = p.pre_score(state, pod, nodes)
            except Exception as exc:
                s = raised(p, exc)
            if s is not None and s.code is Code.Skip:
                skip.add(p.name)
                continue
            if s is not None and not s.is_success:
                return wrap_error(f'running PreScore plugin "{p.name}"', p.name, s)
        state.skip_score_plugins = skip
        return SUCCESS

    def run_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[NodePluginScores], Status]:
        """Score, NormalizeScore, range check [0, 100] and weights, per upstream
        RunScorePlugins: plugin by plugin, the first failure ends the cycle.

        A plugin with `score_nodes` (BatchScorePlugin) is called once for all nodes, the
        others once per node; the weighted scores are then gathered column-wise, so the
        per-node work left is building each node's NodePluginScores."""
        recorder = recorder_of(state)
        scores, status = self._run_score_plugins(state, pod, nodes, recorder)
        if recorder is not None and status.is_success:
            recorder.scores_finished(nodes, scores)
        return scores, status

    def _run_score_plugins(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        recorder: CycleRecorder | None,
    ) -> tuple[list[NodePluginScores], Status]:
        plugin_names: list[str] = []
        columns: list[Sequence[int]] = []
        for p in self.score_plugins:
            if p.name in state.skip_score_plugins:
                continue
            values, s = self._score_one_plugin(p, state, pod, nodes)
            if s is not None:
                return [], s
            if recorder is not None:
                recorder.plugin_scored(p.name, nodes, values)
            if p.name in self._normalizers:
                scores = [NodeScore(info.name, v) for info, v in zip(nodes, values, strict=True)]
                try:
                    s = p.normalize_score(state, pod, scores)
                except Exception as exc:
                    s = raised(p, exc)
                if s is not None and not s.is_success:
                    msg = f'running Normalize on Score plugins: plugin "{p.name}" failed with'
                    return [], wrap_error(msg, p.name, s)
                values = [ns.score for ns in scores]
            if nodes and (min(values) < MIN_NODE_SCORE or max(values) > MAX_NODE_SCORE):
                bad = next(v for v in values if not MIN_NODE_SCORE <= v <= MAX_NODE_SCORE)
                return [], invalid_score(p.name, bad)
            weight = self.score_weights[p.name]
            plugin_names.append(p.name)
            columns.append(values if weight == 1 else [v * weight for v in values])
        if not columns:
            return [NodePluginScores(n.name, []) for n in nodes], SUCCESS
        return [
            NodePluginScores(info.name, None, sum(row), plugins=plugin_names, row=row)
            for info, row in zip(nodes, zip(*columns, strict=True), strict=True)
        ], SUCCESS

    def _score_one_plugin(
        self, p: ScorePlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Sequence[int], Status | None]:
        """One plugin's raw scores of `nodes`, or the Error status that ends the cycle."""
        msg = f'running Score plugins: plugin "{p.name}" failed with'
        batch = self._batch_scorers.get(p.name)
        if batch is not None:
            try:
                values, s = batch(state, pod, nodes)
                if not isinstance(values, list) and (s is None or s.is_success):
                    # e.g. a numpy array: plain ints, as `score` gives
                    tolist = getattr(values, "tolist", None)
                    values = tolist() if callable(tolist) else list(values)
            except Exception as exc:
                values, s = [], raised(p, exc)
            if s is not None and not s.is_success:
                return [], wrap_error(msg, p.name, s)
            if len(values) != len(nodes):
                wrong = Status.as_error(
                    f"score_nodes returned {len(values)} scores for {len(nodes)} nodes"
                )
                return [], wrap_error(msg, p.name, wrong)
            return values, None
        scored: list[int] = []
        score = p.score
        for info in nodes:
            try:
                value, s = score(state, pod, info)
            except Exception as exc:
                value, s = 0, raised(p, exc)
            if s is not None and not s.is_success:
                return [], wrap_error(msg, p.name, s)
            scored.append(value)
        return scored, None
