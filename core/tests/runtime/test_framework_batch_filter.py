"""The Filter runner over many nodes (`Framework.run_filter_plugins_on_nodes`, with
BatchFilterPlugin.filter_nodes): each node gets exactly what the per-node runner
(`run_filter_plugins_with_nominated_pods`, upstream RunFilterPluginsWithNominatedPods)
gives it, with one call per plugin instead of one per node and plugin.

Hypothesis draws verdict tables (success, each rejection code, Error statuses, exceptions,
codes a Filter must not return) for batch and per-node plugins, PreFilter skips and
nominated pods; both runners must agree node by node.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.config import ResolvedProfile
from kubesched.framework import (
    BatchFilterPlugin,
    Code,
    CycleState,
    FilterPlugin,
    NodeInfo,
    PodInfo,
    PreFilterPlugin,
    PreFilterResult,
    Snapshot,
    Status,
)
from kubesched.runtime import Framework
from kubesched.testing import make_node, make_pod

CALLS: list[tuple[str, str, int]] = []
"""(method, plugin, number of nodes) of each filter and filter_nodes call."""


class Recorder:
    def event(self, *args: Any) -> None:
        pass


def verdict_status(plugin: str, verdict: str) -> Status | None:
    """The answer a verdict stands for ("raise" raises)."""
    if verdict == "ok":
        return None
    if verdict == "success":
        return Status()
    if verdict == "unschedulable":
        return Status.unschedulable(f"{plugin} says no", "and why")
    if verdict == "unresolvable":
        return Status.unresolvable(f"{plugin} says never")
    if verdict == "pending":
        return Status.pending(f"{plugin} waits")
    if verdict == "error":
        return Status.as_error(f"{plugin} broke")
    if verdict == "wait":  # not a Filter code: the runner reports it as an Error
        return Status.wait(f"{plugin} holds")
    raise ValueError(f"{plugin} raised on purpose")


class TableFilter(FilterPlugin):
    """Answers from `table` (node name → verdict); nodes holding at least `crowded` pods
    are Unschedulable (so nominated pods matter)."""

    name: ClassVar[str] = "TableFilter"
    table: ClassVar[dict[str, str]] = {}
    crowded: ClassVar[int | None] = None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        CALLS.append(("filter", self.name, 1))
        if self.crowded is not None and len(node_info.pods) >= self.crowded:
            return Status.unschedulable(f"{self.name}: crowded")
        return verdict_status(self.name, self.table.get(node_info.name, "ok"))


class BatchTableFilter(TableFilter):
    """The same answers through filter_nodes, which raises when `filter` would raise on
    one of the nodes (as BatchFilterPlugin asks)."""

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        CALLS.append(("filter_nodes", self.name, len(nodes)))
        if any(self.table.get(n.name) == "raise" for n in nodes):
            raise ValueError(f"{self.name} raised on purpose")
        out: list[Status | None] = []
        for info in nodes:
            if self.crowded is not None and len(info.pods) >= self.crowded:
                out.append(Status.unschedulable(f"{self.name}: crowded"))
            else:
                out.append(verdict_status(self.name, self.table.get(info.name, "ok")))
        return out


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


def table_plugin(name: str, table: dict[str, str], batch: bool, crowded: int | None) -> type:
    base = BatchTableFilter if batch else TableFilter
    return type(name, (base,), {"name": name, "table": table, "crowded": crowded})


HIGH = PodInfo(make_pod("high").priority(10).obj())


class Extended(PreFilterPlugin):
    """A PreFilter plugin with AddPod/RemovePod extensions: records (pod, node) added."""

    name: ClassVar[str] = "Extended"
    added: ClassVar[list[tuple[str, str]]] = []

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        return None, None

    def pre_filter_extensions(self) -> Extended:
        return self

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        self.added.append((pod_info_to_add.pod.metadata.name, node_info.name))
        return None

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        return None


def framework(
    filters: Sequence[type[Any]],
    infos: Sequence[NodeInfo],
    nominator: Nominator | None = None,
) -> Framework:
    classes: dict[str, type[Any]] = {p.name: p for p in filters}
    points = {"Filter": [p.name for p in filters if issubclass(p, FilterPlugin)]}
    points["PreFilter"] = [p.name for p in filters if issubclass(p, PreFilterPlugin)]
    spec = ResolvedProfile("s", points, {}, {})
    return Framework(
        spec,
        classes,
        cluster=None,
        clock=VirtualClock(),
        snapshot=Snapshot(infos),
        event_recorder=Recorder(),
        nominator=nominator,
    )


def node_infos(count: int) -> list[NodeInfo]:
    return [
        NodeInfo(make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods=10).obj())
        for i in range(count)
    ]


def answers(statuses: Sequence[Status]) -> list[tuple[Code, str, str]]:
    return [(s.code, s.message(), s.plugin) for s in statuses]


VERDICTS = ("unschedulable", "unresolvable", "pending", "success")
FAULTS = ("error", "raise", "wait")


@dataclass
class Setup:
    filters: list[type[FilterPlugin]]
    infos: list[NodeInfo]
    nominator: Nominator | None
    skipped: set[str]
    pod: Pod


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    count = draw(st.integers(0, 40))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    infos = node_infos(count)
    filters: list[type[FilterPlugin]] = []
    for k in range(draw(st.integers(0, 4))):
        reject = draw(st.sampled_from([0.0, 0.1, 0.5, 0.9]))
        fault = draw(st.sampled_from([0.0, 0.0, 0.05, 0.3]))
        table: dict[str, str] = {}
        for info in infos:
            x = rng.random()
            if x < fault:
                table[info.name] = rng.choice(FAULTS)
            elif x < fault + reject:
                table[info.name] = rng.choice(VERDICTS)
        crowded = draw(st.sampled_from([None, None, 1, 2]))
        filters.append(table_plugin(f"F{k}", table, draw(st.booleans()), crowded))
    skipped = {p.name for p in filters if draw(st.booleans()) and rng.random() < 0.3}
    priority = draw(st.integers(0, 2))
    nominator = None
    if count and draw(st.booleans()):
        by_node: dict[str, list[PodInfo]] = {}
        for info in rng.sample(infos, rng.randint(1, count)):
            by_node[info.name] = [
                PodInfo(make_pod(f"nom-{info.name}-{j}").priority(rng.randint(0, 2)).obj())
                for j in range(rng.randint(0, 2))
            ]
        nominator = Nominator(by_node)
    return Setup(filters, infos, nominator, skipped, make_pod("p").priority(priority).obj())


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(setups())
def test_batched_runner_equals_per_node_runner(setup: Setup) -> None:
    fwk = framework(setup.filters, setup.infos, setup.nominator)
    state = CycleState()
    state.skip_filter_plugins = set(setup.skipped)
    want = [fwk.run_filter_plugins_with_nominated_pods(state, setup.pod, n) for n in setup.infos]
    got = fwk.run_filter_plugins_on_nodes(state, setup.pod, setup.infos)
    assert answers(got) == answers(want)
    # and on any part of the nodes, in any order
    part = setup.infos[1::2][::-1]
    want_part = [fwk.run_filter_plugins_with_nominated_pods(state, setup.pod, n) for n in part]
    assert answers(fwk.run_filter_plugins_on_nodes(state, setup.pod, part)) == answers(want_part)
    # the fast path's runner for nodes with nominated pods (one call per plugin and pass,
    # kept copies): twice, so the second call meets the copies the first kept
    for _ in range(2):
        batched = fwk.filter_nodes_with_nominated_pods(state, setup.pod, setup.infos)
        assert answers(batched) == answers(want)


def test_one_call_per_plugin_and_later_plugins_see_only_the_survivors() -> None:
    infos = node_infos(6)
    first = table_plugin("First", {"n1": "unschedulable", "n4": "unresolvable"}, True, None)
    second = table_plugin("Second", {"n2": "error"}, True, None)
    third = table_plugin("Third", {}, False, None)
    fwk = framework([first, second, third], infos)
    CALLS.clear()
    got = fwk.run_filter_plugins_on_nodes(CycleState(), make_pod("p").obj(), infos)
    assert [
        ("filter_nodes", "First", 6),
        ("filter_nodes", "Second", 4),
        *[("filter", "Third", 1)] * 3,
    ] == CALLS
    assert answers(got) == [
        (Code.Success, "", ""),
        (Code.Unschedulable, "First says no, and why", "First"),
        (Code.Error, 'running "Second" filter plugin: Second broke', "Second"),
        (Code.Success, "", ""),
        (Code.UnschedulableAndUnresolvable, "First says never", "First"),
        (Code.Success, "", ""),
    ]


def test_a_raising_filter_nodes_falls_back_to_filter_node_by_node() -> None:
    infos = node_infos(3)
    plugin = table_plugin("Raiser", {"n1": "raise"}, True, None)
    fwk = framework([plugin], infos)
    CALLS.clear()
    got = fwk.run_filter_plugins_on_nodes(CycleState(), make_pod("p").obj(), infos)
    assert [("filter_nodes", "Raiser", 3), *[("filter", "Raiser", 1)] * 3] == CALLS
    assert [s.code for s in got] == [Code.Success, Code.Error, Code.Success]
    assert got[1].message() == (
        'running "Raiser" filter plugin: plugin Raiser raised ValueError: Raiser raised on purpose'
    )
    assert got[1].plugin == "Raiser"


class WrongLength(FilterPlugin):
    name: ClassVar[str] = "WrongLength"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        return [None]


def test_filter_nodes_answering_for_the_wrong_number_of_nodes_is_an_error() -> None:
    infos = node_infos(3)
    assert isinstance(framework([WrongLength], infos).plugins["WrongLength"], BatchFilterPlugin)
    got = framework([WrongLength], infos).run_filter_plugins_on_nodes(
        CycleState(), make_pod("p").obj(), infos
    )
    assert {(s.code, s.message()) for s in got} == {
        (
            Code.Error,
            'running "WrongLength" filter plugin: filter_nodes returned 1 statuses for 3 nodes',
        )
    }


def test_nodes_with_nominated_pods_are_filtered_with_them() -> None:
    infos = node_infos(3)
    crowded = table_plugin("Crowded", {}, True, 1)
    high = PodInfo(make_pod("high").priority(10).obj())
    low = PodInfo(make_pod("low").priority(0).obj())
    fwk = framework([crowded], infos, Nominator({"n0": [high], "n2": [low]}))
    pod = make_pod("p").priority(5).obj()
    CALLS.clear()
    got = fwk.filter_nodes_with_nominated_pods(CycleState(), pod, infos)
    # n0 holds a nominated pod of higher priority: Filter sees it there; n2's is lower
    assert answers(got) == [
        (Code.Unschedulable, "Crowded: crowded", "Crowded"),
        (Code.Success, "", ""),
        (Code.Success, "", ""),
    ]
    # no PreFilter extension runs: one call per pass (n0 with its pod, then n1 and n2,
    # which passed it or have no pod that counts, as they are)
    assert CALLS == [("filter_nodes", "Crowded", 1), ("filter_nodes", "Crowded", 2)]
    # the per-node runner (the reference, --no-fast-path) takes n0 and n2 one by one
    CALLS.clear()
    assert answers(fwk.run_filter_plugins_on_nodes(CycleState(), pod, infos)) == answers(got)
    assert sorted(CALLS) == [("filter", "Crowded", 1)] * 2 + [("filter_nodes", "Crowded", 1)]


def test_nominated_nodes_are_filtered_one_by_one_when_a_pre_filter_extension_runs() -> None:
    infos = node_infos(3)
    crowded = table_plugin("Crowded", {}, True, 1)
    fwk = framework([crowded, Extended], infos, Nominator({"n0": [HIGH], "n2": [HIGH]}))
    pod = make_pod("p").priority(5).obj()
    CALLS.clear()
    Extended.added.clear()
    got = fwk.filter_nodes_with_nominated_pods(CycleState(), pod, infos)
    assert answers(got) == [
        (Code.Unschedulable, "Crowded: crowded", "Crowded"),
        (Code.Success, "", ""),
        (Code.Unschedulable, "Crowded: crowded", "Crowded"),
    ]
    # the AddPod extension saw each nominated pod on its node's own copy of the state
    assert Extended.added == [("high", "n0"), ("high", "n2")]
    assert sorted(CALLS) == [("filter", "Crowded", 1)] * 3
