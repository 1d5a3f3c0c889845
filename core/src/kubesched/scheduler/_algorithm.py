"""The node search of one scheduling cycle: PreFilter, Filter, PreScore, Score, selectHost.

Upstream: pkg/scheduler/schedule_one.go (schedulePod, findNodesThatFitPod,
findNodesThatPassFilters, numFeasibleNodesToFind, prioritizeNodes, selectHost). Filter runs
sequentially in round-robin order from where the last cycle stopped, and stops once enough
feasible nodes were found, so results repeat exactly for the same seed.

Filter goes through the nodes a chunk at a time (`Framework.run_filter_plugins_on_nodes`,
one call per plugin and chunk, see BatchFilterPlugin), then walks the chunk's answers in
order exactly as the node-by-node search would: the same feasible nodes, rejections,
first Error and round-robin advance. Answers past the point where the walk stops are
discarded (Filter is pure, so computing them changes nothing).

The fast path (the default; `fast_path_enabled`) does the same search on rows of the
snapshot's NodeColumns: round-robin order, the chunks, percentageOfNodesToScore, the next
start index, Score, NormalizeScore, weights, the range check, the sum and selectHost's
seeded tie-break as array operations (`Framework.filter_rows`, `Framework.score_rows`),
with Status objects only for rejected nodes and per-node score objects only when read
(`ScheduleResult.scores`). Its decisions, diagnosis and random draws are the per-node
path's; a recorded cycle (`--explain`) takes the per-node path.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import overload

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.features import FAST_PATH_ENV, fast_path_enabled
from kubesched.framework import (
    Code,
    CycleState,
    Diagnosis,
    FitError,
    NodeInfo,
    NodeToStatus,
    RowMask,
    Rows,
    Snapshot,
    Status,
    StatusBuilder,
)
from kubesched.runtime import Framework, NodePluginScores, RowScoring, recorder_of

__all__ = [
    "FAST_PATH_ENV",
    "FILTER_CHUNK_MIN",
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "NO_NODES_AVAILABLE",
    "NoNodesAvailableError",
    "ScheduleResult",
    "SchedulingAlgorithm",
    "fast_path_enabled",
    "num_feasible_nodes_to_find",
]

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
FILTER_CHUNK_MIN = 32
"""Nodes filtered per chunk: the feasible nodes still wanted, and at least this many."""
NO_NODES_AVAILABLE = "no nodes available to schedule pods"
"""Upstream ErrNoNodesAvailable (pkg/scheduler/schedule_one.go)."""


class NoNodesAvailableError(Exception):
    def __str__(self) -> str:
        return NO_NODES_AVAILABLE


def num_feasible_nodes_to_find(percentage: int | None, num_all_nodes: int) -> int:
    """How many feasible nodes to look for before scoring (upstream numFeasibleNodesToFind):
    all of them below 100 nodes, else an adaptive 50 - N/125 percent (at least 5), and never
    fewer than 100."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = percentage or 0
    if pct == 0:
        pct = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    n = num_all_nodes * pct // 100
    return max(n, MIN_FEASIBLE_NODES_TO_FIND)


@dataclass
class ScheduleResult:
    suggested_host: str
    evaluated_nodes: int
    feasible_nodes: int
    _scores: list[NodePluginScores] = field(default_factory=list)
    _build_scores: Callable[[], list[NodePluginScores]] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def scores(self) -> list[NodePluginScores]:
        """Each scored node's weighted score per plugin and total (built when first read
        on the fast path)."""
        if self._build_scores is not None:
            self._scores = self._build_scores()
            self._build_scores = None
        return self._scores


class SchedulingAlgorithm:
    """Finds a node for a pod; keeps the round-robin start index between cycles."""

    def __init__(
        self,
        snapshot: Snapshot,
        rng: random.Random,
        percentage_of_nodes_to_score: int | None,
        fast_path: bool | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.rng = rng
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.next_start_node_index = 0
        self.fast_path = fast_path_enabled(fast_path)
        # the current cycle's feasible rows (fast path), for scoring
        self._feasible_rows: Rows | None = None

    def schedule_pod(self, fwk: Framework, state: CycleState, pod: Pod) -> ScheduleResult:
        """The chosen host; raises FitError when no node fits, NoNodesAvailableError for an
        empty cluster, and StatusError (with the Status) for plugin errors."""
        if len(self.snapshot) == 0:
            raise NoNodesAvailableError()
        self._feasible_rows = None
        feasible, diagnosis = self.find_nodes_that_fit_pod(fwk, state, pod)
        if not feasible:
            raise FitError(pod, len(self.snapshot), diagnosis)
        if len(feasible) == 1:
            return ScheduleResult(feasible[0].name, 1 + len(diagnosis.node_to_status), 1)
        rows = self._feasible_rows
        if rows is not None and fwk.has_score_plugins():
            return self._prioritize_and_select(fwk, state, pod, feasible, rows, diagnosis)
        scores = self.prioritize_nodes(fwk, state, pod, feasible)
        host = self.select_host(scores)
        return ScheduleResult(
            host, len(feasible) + len(diagnosis.node_to_status), len(feasible), scores
        )

    # -- filtering ----------------------------------------------------------------------
    def find_nodes_that_fit_pod(
        self, fwk: Framework, state: CycleState, pod: Pod
    ) -> tuple[Sequence[NodeInfo], Diagnosis]:
        all_nodes = self.snapshot.node_info_list
        diagnosis = Diagnosis()
        pre_res, status, rejectors = fwk.run_pre_filter_plugins(state, pod, all_nodes)
        diagnosis.unschedulable_plugins = set(rejectors)
        if not status.is_success:
            if not status.is_rejected:
                raise StatusError(status)
            # every node gets PreFilter's status, so PostFilter (preemption) can read it
            diagnosis.node_to_status.absent_status = status
            diagnosis.pre_filter_msg = status.message()
            if status.plugin:
                diagnosis.unschedulable_plugins.add(status.plugin)
            return [], diagnosis

        if pod.status.nominated_node_name:
            on_nominated = self._evaluate_nominated_node(fwk, state, pod, diagnosis)
            if on_nominated:
                return on_nominated, diagnosis

        nodes: Sequence[NodeInfo] = all_nodes
        if pre_res is not None and pre_res.node_names is not None:
            wanted = pre_res.node_names
            nodes = [n for n in all_nodes if n.name in wanted]
            names = " ".join(sorted(rejectors))
            diagnosis.node_to_status.absent_status = Status.unresolvable(
                f"node(s) didn't satisfy plugin(s) [{names}]"
            )
        feasible: Sequence[NodeInfo] = []
        try:
            feasible = self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes)
            if not feasible:
                _build_deferred(diagnosis.node_to_status)
        finally:
            # always advance the round-robin start, even when a plugin failed
            processed = len(feasible) + len(diagnosis.node_to_status)
            self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        return feasible, diagnosis

    def _evaluate_nominated_node(
        self, fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis
    ) -> Sequence[NodeInfo]:
        info = self.snapshot.get(pod.status.nominated_node_name)
        if info is None:
            return []
        return self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, [info])

    def _find_nodes_that_pass_filters(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        nodes: Sequence[NodeInfo],
    ) -> Sequence[NodeInfo]:
        n = len(nodes)
        if n == 0:
            return []
        pct = fwk.percentage_of_nodes_to_score
        if pct is None:
            pct = self.percentage_of_nodes_to_score
        to_find = num_feasible_nodes_to_find(pct, n)
        if not fwk.has_score_plugins():
            to_find = 1
        start = self.next_start_node_index
        if not fwk.has_filter_plugins():
            return [nodes[(start + i) % n] for i in range(min(to_find, n))]
        if self.fast_path and recorder_of(state) is None:
            rows = self._rows_of(nodes)
            if rows is not None:
                return self._filter_rows_by_chunks(
                    fwk, state, pod, diagnosis, rows, start % n, to_find
                )
        return self._filter_by_chunks(fwk, state, pod, diagnosis, nodes, start % n, to_find)

    def _rows_of(self, nodes: Sequence[NodeInfo]) -> Rows | None:
        """The snapshot rows of `nodes` (all of them, or a PreFilterResult's subset)."""
        if nodes is self.snapshot.node_info_list:
            return np.arange(len(nodes), dtype=np.intp)
        return self.snapshot.columns.positions(nodes)

    def _filter_rows_by_chunks(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        rows: Rows,
        start: int,
        to_find: int,
    ) -> RowNodes:
        """`_filter_by_chunks` on the snapshot's rows (the fast path): the same chunks,
        walk and stopping rules, the chunk's answers from `Framework.filter_rows_deferring`.
        The statuses an exact mask gave are deferred (built when the diagnosis is read).
        Keeps the feasible rows for Score."""
        n = len(rows)
        found: list[Rows] = []
        count = 0
        nominated = self._nominated_rows(fwk, rows)
        builders: dict[int, StatusBuilder] = {}
        done = 0
        while done < n:
            chunk = _wrapped(rows, start, done, max(to_find - count, FILTER_CHUNK_MIN))
            done += len(chunk)
            passed, rejected, deferred = fwk.filter_rows_deferring(
                state, pod, chunk, None if nominated is None else nominated[chunk]
            )
            wanted = to_find - count
            passing = np.flatnonzero(passed)
            # the walk ends after the wanted-th feasible row, or at the chunk's end
            enough = len(passing) >= wanted
            cut = int(passing[wanted - 1]) + 1 if enough else len(chunk)
            # an Error before that aborts the cycle, after the rejections before it
            errors = [i for i, s in rejected.items() if i < cut and not s.is_rejected]
            stop = min(errors) if errors else cut
            before = chunk[:stop], passed[:stop]
            self._note_rejected(fwk, state, pod, diagnosis, *before, rejected, deferred, builders)
            if errors:
                found.append(chunk[passing[passing < stop]])
                self._feasible(found)
                raise StatusError(rejected[stop])
            if enough:
                found.append(chunk[passing[:wanted]])
                return self._feasible(found)
            found.append(chunk[passing])
            count += len(passing)
        return self._feasible(found)

    def _nominated_rows(self, fwk: Framework, rows: Rows) -> RowMask | None:
        """Which snapshot rows have nominated pods (None: none has), for the search of
        `rows`: from the nominator's listing by node in one call, looked up by name from
        whichever side is shorter (one row for the nominated-node shortcut, thousands of
        nominated nodes while preemptors wait)."""
        nominator = fwk.nominator
        if nominator is None or not nominator.has_nominated_pods():
            return None
        names = nominator.nodes_with_nominated_pods()
        columns = self.snapshot.columns
        if len(rows) < len(names):
            known = columns.names
            at = [r for r in rows.tolist() if known[r] in names]
        else:
            index = columns.index
            at = [index[name] for name in names if name in index]
        if not at:
            return None
        flags = np.zeros(len(self.snapshot), np.bool_)
        flags[at] = True
        return flags

    def _note_rejected(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        chunk: Rows,
        passed: RowMask,
        rejected: dict[int, Status],
        deferred: npt.NDArray[np.intp] | None,
        builders: dict[int, StatusBuilder],
    ) -> None:
        """The statuses of the rows of `chunk` that failed, in the walk's order: the known
        ones set, the deferred ones listed for `Framework.deferred_statuses` (their plugin
        joins the unschedulable plugins now: an exact mask promises no Pending)."""
        failed = np.flatnonzero(~passed)
        if not failed.size:
            return
        names = self.snapshot.columns.names
        failed_names = [names[r] for r in chunk[failed].tolist()]
        statuses = diagnosis.node_to_status
        plugin_of = np.full(len(failed), -1, np.intp) if deferred is None else deferred[failed]
        # runs of rows alike: known statuses (-1), or deferred by one plugin
        edges = (np.flatnonzero(plugin_of[1:] != plugin_of[:-1]) + 1).tolist()
        for a, b in zip([0, *edges], [*edges, len(failed)], strict=True):
            index = int(plugin_of[a])
            if index < 0:
                for i, name in zip(failed[a:b].tolist(), failed_names[a:b], strict=True):
                    status = rejected[i]
                    statuses.set(name, status)
                    diagnosis.add_plugin_status(status)
                continue
            build = builders.get(index)
            if build is None:
                build = builders[index] = partial(fwk.deferred_statuses, index, state, pod)
            statuses.defer(failed_names[a:b], build)
            diagnosis.unschedulable_plugins.add(fwk.filter_plugins[index].name)

    def _feasible(self, found: list[Rows]) -> RowNodes:
        rows = found[0] if len(found) == 1 else np.concatenate(found) if found else _NO_ROWS
        self._feasible_rows = rows
        return RowNodes(self.snapshot.node_info_list, rows)

    def _filter_by_chunks(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        nodes: Sequence[NodeInfo],
        start: int,
        to_find: int,
    ) -> list[NodeInfo]:
        """Upstream's node-by-node search (findNodesThatPassFilters, run sequentially), a
        chunk of nodes per Framework call: each chunk
        holds as many nodes as feasible ones are still wanted (at least FILTER_CHUNK_MIN),
        and its answers are walked in round-robin order with the same stopping rules."""
        ordered = list(nodes[start:]) + list(nodes[:start]) if start else list(nodes)
        n = len(ordered)
        feasible: list[NodeInfo] = []
        statuses: NodeToStatus = diagnosis.node_to_status
        success = Code.Success
        done = 0
        while done < n:
            chunk = ordered[done : done + max(to_find - len(feasible), FILTER_CHUNK_MIN)]
            done += len(chunk)
            answers = fwk.run_filter_plugins_on_nodes(state, pod, chunk)
            failed = [i for i, s in enumerate(answers) if s.code is not success]
            passed_from = 0
            for i in [*failed, len(chunk)]:
                # chunk[passed_from:i] passed: take what is still wanted
                wanted = to_find - len(feasible)
                if i - passed_from >= wanted:
                    feasible += chunk[passed_from : passed_from + wanted]
                    return feasible
                feasible += chunk[passed_from:i]
                if i == len(chunk):
                    break
                status = answers[i]
                if not status.is_rejected:
                    raise StatusError(status)
                statuses.set(chunk[i].name, status)
                diagnosis.add_plugin_status(status)
                passed_from = i + 1
        return feasible

    # -- scoring ------------------------------------------------------------------------
    def prioritize_nodes(
        self, fwk: Framework, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[NodePluginScores]:
        if not fwk.has_score_plugins():
            return [NodePluginScores(n.name, [], 1) for n in nodes]
        status = fwk.run_pre_score_plugins(state, pod, nodes)
        if not status.is_success:
            raise StatusError(status)
        scores, status = fwk.run_score_plugins(state, pod, nodes)
        if not status.is_success:
            raise StatusError(status)
        return scores

    def _prioritize_and_select(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        feasible: Sequence[NodeInfo],
        rows: Rows,
        diagnosis: Diagnosis,
    ) -> ScheduleResult:
        """PreScore, then Score to selectHost on arrays (the fast path)."""
        status = fwk.run_pre_score_plugins(state, pod, feasible)
        if not status.is_success:
            raise StatusError(status)
        scoring, failed = fwk.score_rows(state, pod, rows)
        if failed is not None or scoring is None:
            raise StatusError(failed or Status.as_error("no scores"))
        total = scoring.total
        tied = np.flatnonzero(total == total.max())
        infos = self.snapshot.node_info_list
        # one draw among the tied, as select_host's rng.choice makes (same length, same
        # call; on the array itself, not a list of it)
        at = int(tied[0]) if len(tied) == 1 else int(self.rng.choice(tied))
        return ScheduleResult(
            infos[rows[at]].name,
            len(feasible) + len(diagnosis.node_to_status),
            len(feasible),
            _build_scores=lambda: _node_plugin_scores(feasible, scoring),
        )

    def select_host(self, scores: Sequence[NodePluginScores]) -> str:
        """The highest total; ties broken uniformly at random (as upstream's reservoir
        sampling, with one draw)."""
        top = max(s.total_score for s in scores)
        tied = [s for s in scores if s.total_score == top]
        return tied[0].name if len(tied) == 1 else self.rng.choice(tied).name


def _node_plugin_scores(nodes: Sequence[NodeInfo], scoring: RowScoring) -> list[NodePluginScores]:
    """The per-node score objects of the fast path's arrays (what `run_score_plugins`
    returns)."""
    if not scoring.plugins:
        return [NodePluginScores(n.name, []) for n in nodes]
    rows = zip(*(w.tolist() for w in scoring.weighted), strict=True)
    return [
        NodePluginScores(info.name, None, total, plugins=scoring.plugins, row=row)
        for info, row, total in zip(nodes, rows, scoring.total.tolist(), strict=True)
    ]


_NO_ROWS: Rows = np.zeros(0, np.intp)


def _build_deferred(statuses: NodeToStatus) -> None:
    """An unschedulable pod's deferred statuses built while the cycle's state is current
    (its diagnosis is read next: the message, PostFilter); an Error among them (a broken
    `filter_mask_exact` promise) aborts the cycle as one found in the search would."""
    if not statuses.has_deferred:
        return
    for _, status in statuses.items():
        if not status.is_rejected:
            raise StatusError(status)


def _wrapped(rows: Rows, start: int, done: int, size: int) -> Rows:
    """The next `size` of `rows` in round-robin order from `start` (< len(rows)) once
    round, `done` of them already taken: a chunk, without laying out the whole order."""
    n = len(rows)
    begin = start + done
    end = min(begin + size, start + n)
    if end <= n:
        return rows[begin:end]
    if begin >= n:
        return rows[begin - n : end - n]
    return np.concatenate((rows[begin:], rows[: end - n]))


class RowNodes(Sequence[NodeInfo]):
    """The snapshot's NodeInfos at `rows` (the fast path's feasible nodes), gathered into
    a list only when first read node by node: PreScore plugins that work on the columns,
    and the cycle's result, read only how many there are."""

    __slots__ = ("_infos", "_list", "rows")

    def __init__(self, infos: list[NodeInfo], rows: Rows) -> None:
        self._infos = infos
        self._list: list[NodeInfo] | None = None
        self.rows = rows

    def _nodes(self) -> list[NodeInfo]:
        if self._list is None:
            infos = self._infos
            self._list = [infos[r] for r in self.rows.tolist()]
        return self._list

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> NodeInfo: ...
    @overload
    def __getitem__(self, index: slice) -> list[NodeInfo]: ...
    def __getitem__(self, index: int | slice) -> NodeInfo | list[NodeInfo]:
        return self._nodes()[index]

    def __iter__(self) -> Iterator[NodeInfo]:
        return iter(self._nodes())

    def __repr__(self) -> str:
        return f"RowNodes({[n.name for n in self]!r})"


class StatusError(Exception):
    """A non-rejection status (an Error) that aborts the scheduling cycle."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message())
        self.status = status
