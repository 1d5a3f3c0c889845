"""The fast path's Filter and Score runners: the snapshot's rows in, arrays out.

Not in upstream. The scheduler's node search calls these instead of
`run_filter_plugins_on_nodes` and `run_score_plugins` (see `kubesched.scheduler`'s
`SchedulingAlgorithm`) when nothing needs the per-node objects: plugins with an array form
(ArrayFilterPlugin, ArrayScorePlugin, ArrayNormalizeScorePlugin) answer for a block of
rows of `Snapshot.columns` at once, the others are called on the candidate subset only (in
one call when they have a batch form). Statuses are built only for rejected nodes, the
per-plugin scores only as arrays; the answers are those of the per-node runners, plugin by
plugin in profile order (upstream framework.go RunFilterPlugins / RunScorePlugins).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.framework import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Code,
    CycleState,
    FilterPlugin,
    NodeColumns,
    NodeInfo,
    NodeScore,
    RowMask,
    Rows,
    RowScores,
    ScorePlugin,
    Snapshot,
    Status,
    mask_is_exact,
)
from kubesched.runtime._plugin_status import invalid_score, raised, wrap_error

__all__ = ["FastRunners", "RowScoring"]

_ArrayFilter = Callable[[CycleState, Pod, NodeColumns, Rows], RowMask]
_ArrayScore = Callable[[CycleState, Pod, NodeColumns, Rows], tuple[RowScores, Status | None]]
_ArrayNormalize = Callable[[CycleState, Pod, RowScores], tuple[RowScores, Status | None]]


class RowScoring:
    """The fast Score runner's answer for some rows: each scored plugin's weighted scores
    (`plugins[k]` ↔ `weighted[k]`, a plugin by row matrix, profile order) and their sum
    per row (`total`)."""

    __slots__ = ("plugins", "rows", "total", "weighted")

    def __init__(
        self,
        rows: Rows,
        plugins: list[str],
        weighted: npt.NDArray[np.int64],
        total: RowScores,
    ) -> None:
        self.rows = rows
        self.plugins = plugins
        self.weighted = weighted
        self.total = total


class FastRunners:
    """Mixed into Framework, which sets the attributes below."""

    filter_plugins: list[FilterPlugin]
    score_plugins: list[ScorePlugin]
    score_weights: dict[str, int]
    _normalizers: set[str]
    _array_filters: dict[str, _ArrayFilter]
    _array_scorers: dict[str, _ArrayScore]
    _array_normalizers: dict[str, _ArrayNormalize]

    @property
    def snapshot(self) -> Snapshot:
        raise NotImplementedError  # Framework's

    def _filter_one_plugin(
        self, p: FilterPlugin, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> list[Status | None]:
        raise NotImplementedError  # FilterRunners'

    def filter_nodes_with_nominated_pods(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status]:
        raise NotImplementedError  # FilterRunners'

    def _score_one_plugin(
        self, p: ScorePlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Sequence[int], Status | None]:
        raise NotImplementedError  # ScoreRunners'

    def filter_rows(
        self, state: CycleState, pod: Pod, rows: Rows, nominated: RowMask | None = None
    ) -> tuple[RowMask, dict[int, Status]]:
        """`run_filter_plugins_on_nodes` for the snapshot's nodes at `rows`: which pass
        (the mask) and, by position in `rows`, the status of each that does not.

        Plugin by plugin in profile order, each sees the rows every earlier plugin let
        through: its mask when it has an array form (and `filter` on the rows it rejects,
        for their statuses), else its batch form or `filter` on each. Rows flagged in
        `nominated` (nodes with nominated pods) take the per-node path with those pods."""
        passed, rejected, _ = self.filter_rows_deferring(state, pod, rows, nominated, defer=False)
        return passed, rejected

    def filter_rows_deferring(
        self,
        state: CycleState,
        pod: Pod,
        rows: Rows,
        nominated: RowMask | None = None,
        defer: bool = True,
    ) -> tuple[RowMask, dict[int, Status], npt.NDArray[np.intp] | None]:
        """`filter_rows`, leaving out the statuses of the rows an exact mask rejected
        (`mask_is_exact`; with `defer`): the third answer gives, by position in `rows`,
        the index in `filter_plugins` of the plugin that rejected such a row, -1 for the
        others (None when no row was left out); `deferred_statuses` builds them."""
        infos = self.snapshot.node_info_list
        passed = np.ones(len(rows), np.bool_)
        rejected: dict[int, Status] = {}
        deferred: npt.NDArray[np.intp] | None = None
        live = np.arange(len(rows))  # positions in `rows` still to filter
        live_rows = rows
        if nominated is not None and nominated.any():
            at = np.flatnonzero(nominated).tolist()
            nodes = [infos[r] for r in rows[at].tolist()]
            for i, s in zip(
                at, self.filter_nodes_with_nominated_pods(state, pod, nodes), strict=True
            ):
                if s.code is not Code.Success:
                    passed[i] = False
                    rejected[i] = s
            live = live[~nominated]
            live_rows = rows[live]
        skip = state.skip_filter_plugins
        columns: NodeColumns | None = None
        for index, p in enumerate(self.filter_plugins):
            if not live.size:
                break
            if skip and p.name in skip:
                continue
            mask: RowMask | None = None
            array_filter = self._array_filters.get(p.name)
            if array_filter is not None:
                if columns is None:
                    columns = self.snapshot.columns
                mask = _mask_of(array_filter, state, pod, columns, live_rows)
            if mask is not None:
                if mask.all():
                    continue
                if defer and p.name in self._exact_masks:
                    # certain rejections: their statuses wait until read
                    out_at = live[~mask]
                    passed[out_at] = False
                    if deferred is None:
                        deferred = np.full(len(rows), -1, np.intp)
                    deferred[out_at] = index
                    live = live[mask]
                    live_rows = live_rows[mask]
                    continue
                out = np.flatnonzero(~mask)
                # the statuses of the rows it rejects, in one call when it has a batch form
                answers = self._filter_one_plugin(
                    p, state, pod, [infos[r] for r in live_rows[out].tolist()]
                )
            else:
                out = np.arange(live.size)
                nodes = [infos[r] for r in live_rows.tolist()]
                answers = self._filter_one_plugin(p, state, pod, nodes)
                if answers.count(None) == len(answers):
                    continue
            keep = np.ones(live.size, np.bool_)
            for j, answer in zip(out.tolist(), answers, strict=True):
                if answer is None or answer.code is Code.Success:
                    continue
                i = int(live[j])
                keep[j] = False
                passed[i] = False
                rejected[i] = _attributed(p.name, answer)
            live = live[keep]
            live_rows = live_rows[keep]
        return passed, rejected, deferred

    @cached_property
    def _exact_masks(self) -> frozenset[str]:
        """The Filter plugins whose array form rejects only what `filter` rejects."""
        exact = [p.name for p in self.filter_plugins if mask_is_exact(p)]
        return frozenset(name for name in exact if name in self._array_filters)

    def deferred_statuses(
        self, index: int, state: CycleState, pod: Pod, node_names: list[str]
    ) -> list[Status]:
        """The statuses `filter_rows_deferring` left out: `filter` of the plugin at
        `index` in `filter_plugins` on each named node, attributed as the per-node runner
        does (nodes with the same rejection share one Status: nothing changes a status
        once made). An answer that is not a rejection of the kind `mask_is_exact`
        promises becomes an Error naming the plugin, so the search reports the broken
        promise rather than a rejection that did not happen."""
        p = self.filter_plugins[index]
        get = self.snapshot.get
        nodes: list[NodeInfo] = []
        for name in node_names:
            info = get(name)
            if info is None:
                raise LookupError(f"node {name} left the snapshot before its status was built")
            nodes.append(info)
        answers = self._filter_one_plugin(p, state, pod, nodes)
        out: list[Status] = []
        shared: dict[tuple[Code, tuple[str, ...]], Status] = {}
        for name, answer in zip(node_names, answers, strict=True):
            if answer is not None and answer.code in _SURE_REJECTIONS:
                if answer.error is not None:
                    out.append(answer.with_plugin(p.name))
                    continue
                key = (answer.code, answer.reasons)
                status = shared.get(key)
                if status is None:
                    status = shared[key] = answer.with_plugin(p.name)
                out.append(status)
            elif answer is not None and answer.code is Code.Error:
                out.append(_attributed(p.name, answer))
            else:
                said = "Success" if answer is None else answer.code.name
                out.append(
                    Status.as_error(
                        f'"{p.name}" filter_mask rejected node {name}, where its Filter '
                        f"answers {said} (filter_mask_exact promises a rejection)"
                    ).with_plugin(p.name)
                )
        return out

    def score_rows(
        self, state: CycleState, pod: Pod, rows: Rows
    ) -> tuple[RowScoring | None, Status | None]:
        """`run_score_plugins` for the snapshot's nodes at `rows`, as arrays: Score (the
        array form, else the batch form or `score` per node), NormalizeScore, the range
        check [0, 100] and the weights, plugin by plugin; the first failure ends the cycle
        (its status, and no scoring). The range check of array answers waits for the end
        (one check of all), or for a failure, which first looks at the scores before it:
        the first failure is still the per-node runner's."""
        infos = self.snapshot.node_info_list
        nodes: list[NodeInfo] | None = None
        columns: NodeColumns | None = None
        plugins: list[str] = []
        scores: list[RowScores] = []
        for p in self.score_plugins:
            if p.name in state.skip_score_plugins:
                continue
            values: RowScores | list[int] | None = None
            array_score = self._array_scorers.get(p.name)
            if array_score is not None:
                if columns is None:
                    columns = self.snapshot.columns
                try:
                    found, s = array_score(state, pod, columns, rows)
                except Exception:
                    pass  # `score` node by node says how it fails
                else:
                    if s is not None and not s.is_success:
                        msg = f'running Score plugins: plugin "{p.name}" failed with'
                        return None, _out_of_range(plugins, scores) or wrap_error(msg, p.name, s)
                    values = _checked_scores(found, len(rows))
            if values is None:
                if nodes is None:
                    nodes = [infos[r] for r in rows.tolist()]
                scored, s = self._score_one_plugin(p, state, pod, nodes)
                if s is not None:
                    return None, _out_of_range(plugins, scores) or s
                values = list(scored)
            if p.name in self._normalizers:
                values, s = self._normalize(p, state, pod, rows, values)
                if s is not None:
                    return None, _out_of_range(plugins, scores) or s
            if isinstance(values, list):
                array, s = _in_range(p.name, values)
                if s is not None:
                    return None, _out_of_range(plugins, scores) or s
                values = array
            plugins.append(p.name)
            scores.append(values)
        if not scores:
            return RowScoring(rows, [], np.zeros((0, len(rows)), np.int64), _zeros(rows)), None
        # filled row by row (np.stack's own checks cost more than the copies at this size)
        matrix = np.empty((len(scores), len(rows)), np.int64)
        for i, values in enumerate(scores):
            matrix[i] = values
        if matrix.size and (matrix.min() < MIN_NODE_SCORE or matrix.max() > MAX_NODE_SCORE):
            return None, _out_of_range(plugins, scores)
        weights = self.score_weights
        for i, name in enumerate(plugins):
            if weights[name] != 1:
                matrix[i] *= weights[name]
        total: RowScores = matrix.sum(axis=0)
        return RowScoring(rows, plugins, matrix, total), None

    def _normalize(
        self,
        p: ScorePlugin,
        state: CycleState,
        pod: Pod,
        rows: Rows,
        values: RowScores | list[int],
    ) -> tuple[RowScores | list[int], Status | None]:
        """NormalizeScore of one plugin: its array form when it has one (NormalizeScore
        per NodeScore when that raises), else `normalize_score` on NodeScores."""
        array_normalize = self._array_normalizers.get(p.name)
        if array_normalize is not None and not isinstance(values, list):
            try:
                out, s = array_normalize(state, pod, values.copy())
            except Exception:
                pass
            else:
                if s is not None and not s.is_success:
                    return values, _normalize_failed(p.name, s)
                checked = _checked_scores(out, len(values))
                if checked is not None:
                    return checked, None
        infos = self.snapshot.node_info_list
        nodes = [infos[r] for r in rows.tolist()]
        plain = values if isinstance(values, list) else values.tolist()
        scores = [NodeScore(info.name, v) for info, v in zip(nodes, plain, strict=True)]
        try:
            s = p.normalize_score(state, pod, scores)
        except Exception as exc:
            s = raised(p, exc)
        if s is not None and not s.is_success:
            return values, _normalize_failed(p.name, s)
        return [ns.score for ns in scores], None


_SURE_REJECTIONS = (Code.Unschedulable, Code.UnschedulableAndUnresolvable)
"""What `filter` answers on a row an exact mask rejected (`mask_is_exact`)."""


def _attributed(name: str, answer: Status) -> Status:
    """A Filter plugin's failing answer as the per-node runner gives it: a rejection
    naming the plugin, an Error wrapped with it."""
    if answer.is_rejected:
        return answer.with_plugin(name)
    return wrap_error(f'running "{name}" filter plugin', name, answer)


def _normalize_failed(name: str, s: Status) -> Status:
    msg = f'running Normalize on Score plugins: plugin "{name}" failed with'
    return wrap_error(msg, name, s)


def _mask_of(
    array_filter: _ArrayFilter, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
) -> RowMask | None:
    """An array Filter's mask of `rows`, or None when it raised or answered something else
    than one bool per row (the caller then asks the per-node form)."""
    try:
        mask = array_filter(state, pod, columns, rows)
    except Exception:
        return None
    if not isinstance(mask, np.ndarray) or mask.shape != rows.shape:
        return None
    return mask if mask.dtype == np.bool_ else mask.astype(np.bool_)


def _checked_scores(found: object, size: int) -> RowScores | None:
    """An array Score's answer as int64, or None when it is not one score per row."""
    if not isinstance(found, np.ndarray) or found.shape != (size,):
        return None
    if found.dtype == np.int64:
        return found
    if found.dtype.kind not in "iub":
        return None
    return found.astype(np.int64)


def _zeros(rows: Rows) -> RowScores:
    return np.zeros(len(rows), np.int64)


def _out_of_range(plugins: list[str], scores: list[RowScores]) -> Status | None:
    """The per-node runner's Error for the first of `scores` (plugin by plugin) with a
    score outside [MIN_NODE_SCORE, MAX_NODE_SCORE], or None when all lie within."""
    for name, array in zip(plugins, scores, strict=True):
        _, s = _in_range(name, array)
        if s is not None:
            return s
    return None


def _in_range(name: str, values: RowScores | list[int]) -> tuple[RowScores, Status | None]:
    """The scores as int64 when all lie in [MIN_NODE_SCORE, MAX_NODE_SCORE], else the
    per-node runner's Error naming the first one out of range."""
    if isinstance(values, list):
        ok = all(MIN_NODE_SCORE <= v <= MAX_NODE_SCORE for v in values)
        bad = None if ok else next(v for v in values if not MIN_NODE_SCORE <= v <= MAX_NODE_SCORE)
        array = np.array(values if ok else [], np.int64)
    else:
        array = values
        bad = None
        if len(array) and (array.min() < MIN_NODE_SCORE or array.max() > MAX_NODE_SCORE):
            out = (array < MIN_NODE_SCORE) | (array > MAX_NODE_SCORE)
            bad = int(array[np.flatnonzero(out)[0]])
    if bad is None:
        return array, None
    return array, invalid_score(name, bad)
