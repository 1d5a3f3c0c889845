"""The node search by chunks (`SchedulingAlgorithm`) gives what the node-by-node search
gives (upstream findNodesThatPassFilters, run sequentially; `NodeByNode` below):
the same feasible nodes in the same order, the same diagnosis (each rejected node's status,
the rejecting plugins), the same Error aborting the cycle, and the same round-robin start
for the next cycle.

Hypothesis draws clusters of up to 260 nodes (past the 100 feasible nodes a cycle looks
for), Filter plugins answering from verdict tables (per node, batch or array form; rejections, Error
statuses and exceptions at random nodes), PreFilter narrowing and Skip, nominated pods,
a nominated node, percentageOfNodesToScore and the start index; three cycles in a row.
"""

from __future__ import annotations

import itertools
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
    Code,
    CycleState,
    Diagnosis,
    FilterPlugin,
    NodeColumns,
    NodeInfo,
    PodInfo,
    PreFilterPlugin,
    PreFilterResult,
    RowMask,
    Rows,
    ScorePlugin,
    Snapshot,
    Status,
)
from kubesched.runtime import Framework
from kubesched.scheduler import SchedulingAlgorithm, StatusError
from kubesched.scheduler._algorithm import _wrapped
from kubesched.testing import make_node, make_pod


class Recorder:
    def event(self, *args: Any) -> None:
        pass


def answer(plugin: str, verdict: str) -> Status | None:
    if verdict == "unschedulable":
        return Status.unschedulable(f"{plugin} says no")
    if verdict == "unresolvable":
        return Status.unresolvable(f"{plugin} says never")
    if verdict == "pending":
        return Status.pending(f"{plugin} waits")
    if verdict == "error":
        return Status.as_error(f"{plugin} broke")
    if verdict == "raise":
        raise ValueError(f"{plugin} raised")
    return None


class Table(FilterPlugin):
    """Answers from `table`; a node holding `crowded` pods or more is Unschedulable."""

    name: ClassVar[str] = "Table"
    table: ClassVar[dict[str, str]] = {}
    crowded: ClassVar[int] = 1_000

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if len(node_info.pods) >= self.crowded:
            return Status.unschedulable(f"{self.name}: crowded")
        return answer(self.name, self.table.get(node_info.name, "ok"))


class BatchTable(Table):
    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        if any(self.table.get(n.name) == "raise" for n in nodes):
            raise ValueError(f"{self.name} raised")
        return [self.filter(state, pod, n) for n in nodes]


class ArrayTable(Table):
    """The array form (filter_mask) of the table: rejects the table's nodes, crowded nodes
    and, wrongly but allowed, the nodes in `over` (the framework asks `filter` on them);
    raises when a row would raise."""

    over: ClassVar[frozenset[str]] = frozenset()

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        names = [columns.names[r] for r in rows.tolist()]
        if any(self.table.get(n) == "raise" for n in names):
            raise ValueError(f"{self.name} raised")
        ok = [self.table.get(n, "ok") == "ok" and n not in self.over for n in names]
        return np.array(ok, np.bool_) & (columns.pod_count[rows] < self.crowded)


class ExactArrayTable(ArrayTable):
    """An exact mask (`filter_mask_exact`): its table holds rejections only (no Pending,
    Error or raise) and `over` is empty, so every row it rejects, `filter` rejects. Counts
    the nodes `filter` is asked about."""

    filter_mask_exact: ClassVar[bool] = True
    asked: ClassVar[list[str]] = []

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.asked.append(node_info.name)
        return super().filter(state, pod, node_info)


class Narrow(PreFilterPlugin):
    """PreFilter: narrows the cycle to `names` (None: every node) and skips `skip`'s Filter."""

    name: ClassVar[str] = "Narrow"
    names: ClassVar[set[str] | None] = None
    skip: ClassVar[set[str]] = set()

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        # the runner sets skip_filter_plugins from Skip statuses of PreFilter plugins of
        # the same name; here a direct write does the same for the Table plugins
        state.skip_filter_plugins = set(self.skip)
        return (None if self.names is None else PreFilterResult.of(self.names)), None


class Zero(ScorePlugin):
    name: ClassVar[str] = "Zero"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return 0, None


class Nominator:
    def __init__(self, by_node: dict[str, list[PodInfo]]) -> None:
        self.by_node = by_node

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return list(self.by_node.get(node_name, ()))

    def has_nominated_pods(self) -> bool:
        return any(self.by_node.values())

    def nodes_with_nominated_pods(self) -> set[str]:
        return {name for name, pods in self.by_node.items() if pods}

    def nominated_pods_by_node(self) -> dict[str, list[PodInfo]]:
        return {name: pods for name, pods in self.by_node.items() if pods}


@dataclass
class Search:
    infos: list[NodeInfo]
    plugins: list[type[Any]]
    nominated: dict[str, list[PodInfo]]
    pct: int | None
    start: int
    pod: Pod


VERDICTS = ("unschedulable", "unresolvable", "pending")
EXACT_VERDICTS = ("unschedulable", "unresolvable")
FAULTS = ("error", "raise")


@st.composite
def searches(draw: st.DrawFn) -> Search:
    count = draw(st.sampled_from([1, 2, 3, 31, 33, 64, 99, 100, 101, 150, 260]))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    infos = [
        NodeInfo(make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods=10).obj())
        for i in range(count)
    ]
    names = [i.name for i in infos]
    plugins: list[type[Any]] = []
    tables: list[type[Table]] = []
    for k in range(draw(st.integers(0, 3))):
        base: type[Table] = draw(st.sampled_from([Table, BatchTable, ArrayTable, ExactArrayTable]))
        exact = base is ExactArrayTable
        reject = draw(st.sampled_from([0.0, 0.1, 0.5, 0.95, 1.0]))
        fault = 0.0 if exact else draw(st.sampled_from([0.0, 0.0, 0.002, 0.02]))
        table: dict[str, str] = {}
        for name in names:
            x = rng.random()
            if x < fault:
                table[name] = rng.choice(FAULTS)
            elif x < fault + reject:
                table[name] = rng.choice(EXACT_VERDICTS if exact else VERDICTS)
        crowded = draw(st.sampled_from([1_000, 1]))
        over = frozenset() if exact else frozenset(n for n in names if rng.random() < 0.1)
        attrs = {"name": f"T{k}", "table": table, "crowded": crowded, "over": over}
        tables.append(type(f"T{k}", (base,), attrs))
    narrowed = draw(st.booleans())
    skip = {t.name for t in tables if draw(st.booleans()) and rng.random() < 0.3}
    if narrowed or skip:
        subset = set(rng.sample(names, rng.randint(1, count))) if narrowed else None
        plugins.append(type("N", (Narrow,), {"names": subset, "skip": skip}))
    plugins += tables
    if draw(st.booleans()):
        plugins.append(Zero)
    nominated: dict[str, list[PodInfo]] = {}
    if draw(st.booleans()):
        for name in rng.sample(names, rng.randint(1, count)):
            nominated[name] = [PodInfo(make_pod(f"nom-{name}").priority(rng.randint(0, 2)).obj())]
    pod = make_pod("p").priority(1)
    if draw(st.booleans()):
        pod = pod.nominated(rng.choice([*names, "gone"]))
    pct = draw(st.sampled_from([None, 0, 10, 50, 100]))
    return Search(infos, plugins, nominated, pct, draw(st.integers(0, count - 1)), pod.obj())


def framework(search: Search) -> Framework:
    points: dict[str, list[str]] = {}
    for p in search.plugins:
        for point, base in (("PreFilter", PreFilterPlugin), ("Filter", FilterPlugin)):
            if issubclass(p, base):
                points.setdefault(point, []).append(p.name)
        if issubclass(p, ScorePlugin):
            points.setdefault("Score", []).append(p.name)
    spec = ResolvedProfile("s", points, {}, {})
    return Framework(
        spec,
        {p.name: p for p in search.plugins},
        cluster=None,
        clock=VirtualClock(),
        snapshot=Snapshot(search.infos),
        event_recorder=Recorder(),
        nominator=Nominator(search.nominated),
    )


class NodeByNode(SchedulingAlgorithm):
    """The reference: upstream's search one node at a time, with the same stopping rules
    (what SchedulingAlgorithm did before it filtered by chunks)."""

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
        n = len(nodes)
        feasible: list[NodeInfo] = []
        nominator = fwk.nominator
        filter_node = (
            fwk.run_filter_plugins_with_nominated_pods
            if nominator is not None and nominator.has_nominated_pods()
            else fwk.run_filter_plugins
        )
        for i in range(n):
            info = nodes[(start + i) % n]
            status = filter_node(state, pod, info)
            if status.is_success:
                feasible.append(info)
                if len(feasible) >= to_find:
                    break
            elif status.is_rejected:
                diagnosis.node_to_status.set(info.name, status)
                diagnosis.add_plugin_status(status)
            else:
                raise StatusError(status)
        return feasible


def run(search: Search, batch: bool, fast_path: bool = False) -> list[Any]:
    """Three cycles: each one's outcome and the next start index."""
    fwk = framework(search)
    kind = SchedulingAlgorithm if batch else NodeByNode
    algorithm = kind(fwk.snapshot, random.Random(0), search.pct, fast_path)
    algorithm.next_start_node_index = search.start
    seen: list[Any] = []
    for _ in range(3):
        try:
            feasible, d = algorithm.find_nodes_that_fit_pod(fwk, CycleState(), search.pod)
        except StatusError as exc:
            seen.append(("error", exc.status.code, exc.status.message(), exc.status.plugin))
        else:
            statuses = [(n, s.code, s.message(), s.plugin) for n, s in d.node_to_status.items()]
            seen.append(
                (
                    [n.name for n in feasible],
                    statuses,
                    sorted(d.unschedulable_plugins),
                    sorted(d.pending_plugins),
                    d.node_to_status.absent_status,
                )
            )
        seen.append(algorithm.next_start_node_index)
    return seen


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(searches())
def test_search_by_chunks_equals_node_by_node(search: Search) -> None:
    reference = run(search, batch=False)
    assert run(search, batch=True) == reference
    assert run(search, batch=True, fast_path=True) == reference


def search_of(count: int, table: dict[str, str], *, scored: bool = True, start: int = 0) -> Search:
    infos = [
        NodeInfo(make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods=10).obj())
        for i in range(count)
    ]
    plugin = type("T", (BatchTable,), {"name": "T", "table": table})
    plugins: list[type[Any]] = [plugin, Zero] if scored else [plugin]
    return Search(infos, plugins, {}, None, start, make_pod("p").obj())


def test_an_error_past_the_last_feasible_node_needed_does_not_count() -> None:
    # 200 nodes: a cycle wants 100 feasible ones; n150 is in the first chunk's reach only
    # when nodes are rejected, so here it is never reached
    search = search_of(200, {"n150": "error"})
    batch = run(search, batch=True)
    assert batch == run(search, batch=False)
    assert batch[0][0] == [f"n{i}" for i in range(100)] and batch[1] == 100


def test_an_error_before_the_cut_off_aborts_the_cycle_after_the_rejections_before_it() -> None:
    table = {"n3": "unschedulable", "n5": "error", "n7": "unschedulable"}
    search = search_of(200, table, start=2)
    batch = run(search, batch=True)
    assert batch == run(search, batch=False)
    assert batch[0] == ("error", Code.Error, 'running "T" filter plugin: T broke', "T")
    # the round-robin start still moves on, past the rejected n3 (an aborted search counts
    # its rejections only, as it did node by node)
    assert batch[1] == 3


def test_without_score_plugins_the_first_feasible_node_ends_the_search() -> None:
    search = search_of(50, {"n0": "unschedulable", "n2": "raise"}, scored=False)
    batch = run(search, batch=True)
    assert batch == run(search, batch=False)
    # n1 is taken; n2's exception, in the same chunk, is never looked at
    assert batch[0][0] == ["n1"] and batch[0][1] == [("n0", Code.Unschedulable, "T says no", "T")]
    assert batch[1] == 2


def test_an_error_before_the_first_feasible_node_aborts_the_search() -> None:
    search = search_of(50, {"n0": "unschedulable", "n1": "raise"}, scored=False)
    batch = run(search, batch=True)
    assert batch == run(search, batch=False)
    assert batch[0] == (
        "error",
        Code.Error,
        'running "T" filter plugin: plugin T raised ValueError: T raised',
        "T",
    )


def test_wrapped_chunks_follow_the_round_robin_order() -> None:
    """The fast path's chunks (`_wrapped`) are, one after the other, the rows in round-robin
    order from the start index, once round, whatever the chunk sizes."""
    for n in range(1, 8):
        rows = np.arange(n, dtype=np.intp)[::-1].copy()
        for start in range(n):
            want = [*rows[start:].tolist(), *rows[:start].tolist()]
            for sizes in itertools.product(range(1, 5), repeat=3):
                got: list[int] = []
                for size in sizes:
                    if len(got) == n:
                        break
                    chunk = _wrapped(rows, start, len(got), size)
                    assert len(chunk) == min(size, n - len(got))
                    got += chunk.tolist()
                assert got == want[: len(got)]


def exact_search(
    count: int, table: dict[str, str], *, broken: frozenset[str] = frozenset()
) -> Search:
    """`count` nodes, one ExactArrayTable "T" (asked: a fresh list) scored by Zero; its
    mask also rejects the nodes in `broken`, which `filter` passes (a broken promise)."""
    infos = [
        NodeInfo(make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods=10).obj())
        for i in range(count)
    ]

    def filter_mask(
        self: Table, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> RowMask:
        names = [columns.names[r] for r in rows.tolist()]
        return np.array([table.get(n) is None and n not in broken for n in names], np.bool_)

    attrs = {"name": "T", "table": table, "asked": [], "filter_mask": filter_mask}
    plugin = type("T", (ExactArrayTable,), attrs)
    return Search(infos, [plugin, Zero], {}, None, 0, make_pod("p").obj())


def fast_search(search: Search) -> tuple[Sequence[NodeInfo], Diagnosis]:
    fwk = framework(search)
    algorithm = SchedulingAlgorithm(fwk.snapshot, random.Random(0), search.pct, True)
    return algorithm.find_nodes_that_fit_pod(fwk, CycleState(), search.pod)


def test_a_placed_pod_asks_filter_about_no_row_an_exact_mask_rejected() -> None:
    search = exact_search(200, {f"n{i}": "unschedulable" for i in range(0, 100, 2)})
    asked: list[str] = search.plugins[0].asked
    feasible, diagnosis = fast_search(search)
    assert len(feasible) == 100 and feasible[-1].name == "n149"
    # rejected: the 50 even nodes before n100, listed and their plugin known, not built
    assert len(diagnosis.node_to_status) == 50 and "n98" in diagnosis.node_to_status
    assert diagnosis.unschedulable_plugins == {"T"} and asked == []
    # read, they are built in one go, and are what the node-by-node search gives
    assert diagnosis.node_to_status.get("n0").message() == "T says no"
    assert asked == [f"n{i}" for i in range(0, 100, 2)]
    assert run(search, batch=True, fast_path=True) == run(search, batch=False)


def test_an_unschedulable_pod_gets_its_deferred_statuses_before_the_search_returns() -> None:
    table = {f"n{i}": "unresolvable" if i % 3 else "unschedulable" for i in range(40)}
    search = exact_search(40, table)
    asked: list[str] = search.plugins[0].asked
    feasible, diagnosis = fast_search(search)
    assert list(feasible) == [] and len(asked) == 40
    assert diagnosis.node_to_status.get("n3").code is Code.Unschedulable
    assert diagnosis.node_to_status.get("n4").code is Code.UnschedulableAndUnresolvable
    # nodes rejected alike share one status object
    assert diagnosis.node_to_status.get("n4") is diagnosis.node_to_status.get("n5")
    assert run(search, batch=True, fast_path=True) == run(search, batch=False)


def test_with_nominated_pods_deferred_and_per_node_statuses_keep_the_walk_order() -> None:
    table = {f"n{i}": "unschedulable" for i in range(30) if i not in (4, 9)}
    search = exact_search(30, table)
    # n4 and n9 pass the mask but hold a nominated pod of higher priority: crowded there
    search.plugins[0].crowded = 1
    search.nominated = {
        name: [PodInfo(make_pod(f"nom-{name}").priority(5).obj())] for name in ("n4", "n9", "n20")
    }
    reference = run(search, batch=False)
    assert run(search, batch=True, fast_path=True) == reference
    statuses = reference[0][1]
    assert [s[0] for s in statuses] == [f"n{i}" for i in range(30)]
    # the nominated nodes' statuses (the pass with their pods) among the mask's, in order
    assert [s[2] for s in statuses[3:6]] == ["T says no", "T: crowded", "T says no"]
    assert statuses[20][2] == "T: crowded" and statuses[21][2] == "T says no"


def test_an_exact_mask_rejecting_a_node_filter_passes_is_an_error_for_an_unschedulable_pod() -> (
    None
):
    search = exact_search(
        10, {f"n{i}": "unschedulable" for i in range(9)}, broken=frozenset({"n9"})
    )
    outcome = run(search, batch=True, fast_path=True)
    assert outcome[0] == (
        "error",
        Code.Error,
        '"T" filter_mask rejected node n9, where its Filter answers Success '
        "(filter_mask_exact promises a rejection)",
        "T",
    )
    # node by node, n9 is feasible
    assert run(search, batch=False)[0][0] == ["n9"]
