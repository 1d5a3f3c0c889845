"""`FilterExplainer`: a Filter plugin's own detail lines beside its verdict, only on the
nodes it rejected, in the explanation, its JSON and the explain table."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from sched_harness import CpuFit, make_simulation

from kubesched.api import Pod
from kubesched.cli._explain import render_explanation
from kubesched.framework import CycleState, FilterExplainer, FilterPlugin, NodeInfo, Status
from kubesched.testing import make_node, make_pod


class GpuLabel(FilterPlugin):
    """Needs label gpu=yes; explains which label it looked at (with brackets, which the
    table must not take for markup)."""

    name = "GpuLabel"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        assert node_info.node is not None
        if node_info.node.metadata.labels.get("gpu") != "yes":
            return Status.unresolvable("node(s) had no gpu")
        return None

    def explain_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[str]:
        assert node_info.node is not None
        got = node_info.node.metadata.labels.get("gpu", "<none>")
        return [f"label gpu In [yes]: node {node_info.name} has {got}"]


class Broken(FilterPlugin):
    name = "Broken"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("never fits")

    def explain_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[str]:
        raise KeyError("oops")


def _explain() -> Any:
    objs: list[Any] = [
        make_node("plain").alloc(cpu="4").obj(),
        make_node("gpu").alloc(cpu="4").label(gpu="yes").obj(),
        make_node("tiny").alloc(cpu="1").label(gpu="no").obj(),
        make_pod("p").req(cpu="2").obj(),
    ]
    sim = make_simulation(objs, [GpuLabel, CpuFit, Broken])
    sim.explain = ["default/p"]
    return sim.run().explanations["default/p"], sim


def test_protocol_is_structural() -> None:
    assert isinstance(GpuLabel(None, None), FilterExplainer)  # type: ignore[arg-type]
    assert not isinstance(CpuFit(None, None), FilterExplainer)  # type: ignore[arg-type]


def test_details_only_where_the_plugin_rejected_the_node() -> None:
    exp, _ = _explain()
    nodes = {n.node: n for n in exp.nodes}
    assert nodes["plain"].details["GpuLabel"] == ["label gpu In [yes]: node plain has <none>"]
    assert "GpuLabel" not in nodes["gpu"].details  # accepted there: nothing to explain
    assert nodes["tiny"].details["GpuLabel"] == ["label gpu In [yes]: node tiny has no"]
    # a plugin without explain_filter (CpuFit rejects tiny) adds no details
    assert "CpuFit" not in nodes["tiny"].details
    # a raising explain_filter is one line, the explanation goes on
    assert nodes["gpu"].details["Broken"] == ["explain_filter raised KeyError: 'oops'"]
    assert nodes["gpu"].filters["Broken"] == "Unschedulable: never fits"


def test_details_in_json() -> None:
    exp, _ = _explain()
    data = exp.to_json_dict()
    plain = next(n for n in data["nodes"] if n["node"] == "plain")
    assert plain["details"]["GpuLabel"] == ["label gpu In [yes]: node plain has <none>"]
    assert plain["filters"]["GpuLabel"] == "UnschedulableAndUnresolvable: node(s) had no gpu"


def test_details_under_the_verdict_in_the_table() -> None:
    exp, _ = _explain()
    out = io.StringIO()
    render_explanation(exp, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    lines = [line.strip(" │┃|") for line in text.splitlines()]
    verdict = next(i for i, line in enumerate(lines) if "GpuLabel: Unschedulable" in line)
    assert "· label gpu In [yes]: node plain has <none>" in lines[verdict + 1]
