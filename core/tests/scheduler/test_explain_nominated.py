"""`--explain` while a preemption is in flight: the explanation filters with the nominated
pods the cycle counted (upstream framework.go RunFilterPluginsWithNominatedPods), so it
never calls best a node the pod could not go to."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from sched_harness import CpuFit, FreeCpu, NominateFirst, make_simulation

from kubesched.api import Pod
from kubesched.cli._explain import render_explanation
from kubesched.framework import CycleState, FilterPlugin, NodeInfo, Status
from kubesched.scheduler import Explanation
from kubesched.testing import make_node, make_pod


def _in_flight(*extra: Any) -> list[Any]:
    """x has the most free cpu but is promised to `high` (6 cpu, which only fits once the
    victim leaves); y has more room than z."""
    return [
        make_node("x").alloc(cpu="8").obj(),
        make_node("y").alloc(cpu="8").obj(),
        make_node("z").alloc(cpu="8").obj(),
        make_pod("victim").req(cpu="4").node("x").obj(),
        make_pod("on-y").req(cpu="6").node("y").obj(),
        make_pod("on-z").req(cpu="7").node("z").obj(),
        make_pod("high").req(cpu="6").priority(100).obj(),
        make_pod("low").req(cpu="1").obj(),
        *extra,
    ]


def _best(exp: Explanation) -> set[str]:
    scored = [n for n in exp.nodes if n.total is not None]
    top = max((n.total or 0 for n in scored), default=None)
    return {n.node for n in scored if n.total == top}


def _explain(objs: Sequence[Any], *pods: str) -> tuple[Any, dict[str, Explanation]]:
    sim = make_simulation(objs, [CpuFit, FreeCpu, NominateFirst], until=30)
    sim.explain = [f"default/{p}" for p in pods]
    result = sim.run()
    return result, result.explanations


def test_a_node_promised_to_a_nominated_pod_is_not_called_best() -> None:
    result, exps = _explain(_in_flight(), "low")
    assert result.pod("high").node is None and result.pod("high").nominated_node == "x"
    assert result.pod("low").node == "y"
    exp = exps["default/low"]
    nodes = {n.node: n for n in exp.nodes}
    # without `high` counted x would fit (4 of 8 cpu free) and score best
    assert nodes["x"].filters["CpuFit"] == "Unschedulable: Insufficient cpu"
    assert nodes["x"].nominated_pods == ["default/high"]
    assert not nodes["x"].feasible and nodes["x"].total is None
    assert nodes["y"].nominated_pods == [] and nodes["y"].feasible
    assert _best(exp) == {"y"}
    assert (nodes["y"].total, nodes["z"].total) == (100, 50)
    assert exp.outcome == "assumed on y"


def test_the_table_names_the_nominated_pods_counted() -> None:
    _, exps = _explain(_in_flight(), "low")
    buf = io.StringIO()
    render_explanation(exps["default/low"], Console(file=buf, width=160, color_system=None))
    out = buf.getvalue()
    row_x = next(line for line in out.splitlines() if line.startswith("│ x "))
    assert "CpuFit: Unschedulable: Insufficient cpu" in row_x
    assert "counting nominated pod(s): default/high" in out
    assert exps["default/low"].to_json_dict()["nodes"][0]["nominatedPods"] == ["default/high"]


class NeedsCompany(FilterPlugin):
    """Only goes where some pod already is."""

    name = "NeedsCompany"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None if node_info.pods else Status.unschedulable("node(s) were empty")


def test_a_rejection_without_the_nominated_pods_says_so() -> None:
    # `high` (too big for y) was turned away from the empty x and nominated there; for
    # `low` the first pass (with `high`) passes on x, the second (without it) does not,
    # and both must pass (RunFilterPluginsWithNominatedPods)
    objs = [
        make_node("x").alloc(cpu="8").obj(),
        make_node("y").alloc(cpu="8").obj(),
        make_pod("on-y").req(cpu="3").node("y").obj(),
        make_pod("high").req(cpu="6").priority(100).obj(),
        make_pod("low").req(cpu="1").obj(),
    ]
    sim = make_simulation(objs, [CpuFit, NeedsCompany, FreeCpu, NominateFirst], until=30)
    sim.explain = ["default/low"]
    result = sim.run()
    assert result.pod("low").node == "y"
    x = next(n for n in result.explanations["default/low"].nodes if n.node == "x")
    assert x.nominated_pods == ["default/high"]
    assert x.filters == {
        "CpuFit": "ok",
        "NeedsCompany": "Unschedulable: node(s) were empty (without the nominated pods)",
    }
    assert not x.feasible


def test_the_nominated_node_shortcut_is_no_scoring() -> None:
    # `again` was nominated to z; it fits there, so the cycle takes z without looking at
    # the emptier y (upstream findNodesThatFitPod: evaluateNominatedNode first)
    objs = [
        make_node("y").alloc(cpu="8").obj(),
        make_node("z").alloc(cpu="8").obj(),
        make_pod("on-z").req(cpu="6").node("z").obj(),
        make_pod("again").req(cpu="1").nominated("z").obj(),
    ]
    sim = make_simulation(objs, [CpuFit, FreeCpu])
    sim.explain = ["default/again"]
    result = sim.run()
    assert result.pod("again").node == "z"
    exp = result.explanations["default/again"]
    assert all(n.feasible for n in exp.nodes)
    assert _best(exp) == set()  # nothing scored: y is not called best
    assert exp.notes == [
        "the pod's nominated node z was filtered first and passed: no other node was considered"
    ]
