"""Explanations are taken from the real cycle: PreFilter runs once and its state is the
one Filter sees, PreFilter's verdicts and PreFilterResult are the cycle's, and only the
nodes the cycle scored have scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sched_harness import BASE, CpuFit, FreeCpu, config_for, make_simulation

from kubesched.api import Pod
from kubesched.framework import (
    CycleState,
    FilterPlugin,
    NodeInfo,
    PreFilterPlugin,
    PreFilterResult,
    Status,
)
from kubesched.testing import make_node, make_pod


class Turns(PreFilterPlugin, FilterPlugin):
    """A PreFilter with a side effect, as a gang's quota: each call hands out the next
    node in turn, and Filter only lets the pod onto the node its PreFilter handed out.
    Run twice in one cycle, it would explain one node and schedule on another."""

    name = "Turns"
    calls = 0

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        Turns.calls += 1
        state.write("turn", sorted(n.name for n in nodes)[(Turns.calls - 1) % len(nodes)])
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if state.read("turn") != node_info.name:
            return Status.unschedulable("not this node's turn")
        return None


def test_pre_filter_runs_once_and_filter_sees_its_state() -> None:
    Turns.calls = 0
    objs: list[Any] = [
        make_node("a").alloc(cpu="4").obj(),
        make_node("b").alloc(cpu="4").obj(),
        make_pod("p").req(cpu="1").obj(),
    ]
    sim = make_simulation(objs, [Turns, CpuFit])
    sim.explain = ["default/p"]
    result = sim.run()
    assert Turns.calls == 1
    assert result.pod("p").node == "a"
    exp = result.explanations["default/p"]
    assert exp.pre_filter == {"Turns": "ok"}
    nodes = {n.node: n for n in exp.nodes}
    assert nodes["a"].feasible
    assert nodes["b"].filters == {"Turns": "Unschedulable: not this node's turn", "CpuFit": "ok"}


class OnlyB(PreFilterPlugin):
    name = "OnlyB"

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        return PreFilterResult.of({"b"}), None


def test_nodes_a_pre_filter_result_leaves_out_are_not_filtered() -> None:
    objs: list[Any] = [
        make_node("a").alloc(cpu="8").obj(),
        make_node("b").alloc(cpu="2").obj(),
        make_pod("p").req(cpu="1").obj(),
    ]
    sim = make_simulation(objs, [OnlyB, CpuFit, FreeCpu])
    sim.explain = ["default/p"]
    result = sim.run()
    assert result.pod("p").node == "b"
    nodes = {n.node: n for n in result.explanations["default/p"].nodes}
    # the algorithm's absent status for the nodes left out
    assert nodes["a"].excluded == (
        "UnschedulableAndUnresolvable: node(s) didn't satisfy plugin(s) [OnlyB]"
    )
    assert nodes["a"].filters == {} and not nodes["a"].feasible
    assert nodes["b"].feasible and nodes["b"].excluded == ""
    assert result.explanations["default/p"].notes == [
        "only b passed every filter: it was chosen without scoring"
    ]


class NoWay(PreFilterPlugin):
    name = "NoWay"

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        return None, Status.unresolvable("no way")


def test_a_pre_filter_rejection_stops_the_cycle_and_the_explanation() -> None:
    objs: list[Any] = [make_node("a").alloc(cpu="8").obj(), make_pod("p").req(cpu="1").obj()]
    sim = make_simulation(objs, [NoWay, OnlyB, CpuFit], until=5)
    sim.explain = ["default/p"]
    exp = sim.run().explanations["default/p"]
    # upstream RunPreFilterPlugins returns at the first UnschedulableAndUnresolvable
    assert exp.pre_filter == {"NoWay": "UnschedulableAndUnresolvable: no way", "OnlyB": "not run"}
    assert [(n.node, n.excluded, n.filters) for n in exp.nodes] == [
        ("a", "UnschedulableAndUnresolvable: no way", {})
    ]
    assert exp.outcome == "Unschedulable: 0/1 nodes are available: no way."


def test_only_the_nodes_the_search_found_are_scored() -> None:
    # 120 nodes and 10%: the search stops at 100 feasible nodes (numFeasibleNodesToFind)
    objs: list[Any] = [make_node(f"n{i:03}").alloc(cpu=str(1 + i % 9)).obj() for i in range(120)]
    objs.append(make_pod("p").req(cpu="1").obj())
    plugins = [CpuFit, FreeCpu]
    config = config_for([*BASE, *plugins], extra={"percentageOfNodesToScore": 10})
    sim = make_simulation(objs, plugins, config=config)
    sim.explain = ["default/p"]
    result = sim.run()
    exp = result.explanations["default/p"]
    scored = [n for n in exp.nodes if n.total is not None]
    assert len(scored) == 100 and all(n.feasible for n in exp.nodes)
    top = max(n.total or 0 for n in scored)
    assert result.pod("p").node in {n.node for n in scored if n.total == top}
    # the raw score (free millicores / 100 on nodes of 1 to 9 cpu), normalized to the
    # roomiest node scored, is the total (weight 1)
    top_raw = max(n.raw_scores["FreeCpu"] for n in scored)
    for n in scored:
        cpu = 1 + int(n.node[1:]) % 9
        assert n.raw_scores["FreeCpu"] == cpu * 10
        assert n.normalized_scores["FreeCpu"] == n.total == n.raw_scores["FreeCpu"] * 100 // top_raw
    assert exp.notes == [
        "20 feasible node(s) not scored: the search stopped once it had found 100 feasible "
        "nodes (percentageOfNodesToScore)"
    ]
