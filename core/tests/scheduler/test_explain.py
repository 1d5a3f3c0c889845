"""`--explain`: each plugin's verdict per node and each score, for one pod's attempt."""

from __future__ import annotations

from typing import Any

from sched_harness import Cordon, CpuFit, FreeCpu, make_simulation

from kubesched.testing import make_node, make_pod


def test_explanation_lists_every_filter_verdict_and_score() -> None:
    objs: list[Any] = [
        make_node("small").alloc(cpu="1").obj(),
        make_node("big").alloc(cpu="8").obj(),
        make_node("mid").alloc(cpu="4").obj(),
        make_node("cordoned").alloc(cpu="1").unschedulable().obj(),
        make_pod("p").req(cpu="2").obj(),
    ]
    sim = make_simulation(objs, [Cordon, CpuFit, FreeCpu])
    sim.explain = ["default/p"]
    result = sim.run()
    assert result.pod("p").node == "big"
    exp = result.explanations["default/p"]
    nodes = {n.node: n for n in exp.nodes}
    # every filter plugin is shown on every node, not only the first failing one
    assert nodes["cordoned"].filters == {
        "Cordon": "UnschedulableAndUnresolvable: node(s) were unschedulable",
        "CpuFit": "Unschedulable: Insufficient cpu",
    }
    assert nodes["small"].filters["Cordon"] == "ok"
    assert not nodes["small"].feasible and nodes["small"].total is None
    assert (nodes["big"].raw_scores, nodes["big"].normalized_scores) == (
        {"FreeCpu": 80},
        {"FreeCpu": 100},
    )
    assert (nodes["mid"].raw_scores, nodes["mid"].normalized_scores) == (
        {"FreeCpu": 40},
        {"FreeCpu": 50},
    )
    assert nodes["mid"].total == 50
    assert exp.outcome == "assumed on big"
    assert result.to_json_dict()["explanations"]["default/p"]["nodes"][1]["total"] == 100
