"""Report sections from hook modules: `ReportSection` checks what it is given, the
simulation asks every `kubesched_report_sections` implementation once at the end, and the
sections reach the JSON report (under `"sections"`, by key) and the table report (one
table each, after the pods)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pluggy
import pytest
from rich.console import Console

import kubesched.simulate
from kubesched.api import K8sModel, Pod
from kubesched.cli._main import main
from kubesched.cli._simulate import render_result, section_table
from kubesched.cluster import Cluster
from kubesched.config import parse_config, resolve
from kubesched.framework import (
    BindPlugin,
    CycleState,
    FilterPlugin,
    NodeInfo,
    QueuedPodInfo,
    QueueSortPlugin,
    Status,
)
from kubesched.hookspecs import ReportSection, hookimpl
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult
from kubesched.simulate._sections import collect_sections
from kubesched.testing import make_node, make_pod

SIMULATE_API = {
    "Checkpoint", "LoadedManifests", "NodeAllocation", "PodOutcome", "PodResult", "Progress",
    "ReportSection", "Scenario", "Simulation", "SimulationResult", "SkippedObject",
    "load_manifests", "load_scenario", "simulate",
}  # fmt: skip


def test_simulate_public_names_are_pinned() -> None:
    assert set(kubesched.simulate.__all__) == SIMULATE_API
    for name in SIMULATE_API:
        assert hasattr(kubesched.simulate, name), name


# -- ReportSection ---------------------------------------------------------------------


def section(key: str = "things", **kwargs: Any) -> ReportSection:
    fields: dict[str, Any] = {"title": "Things", "columns": ["A", "B"], "rows": [["1", "2"]]}
    fields.update(kwargs)
    return ReportSection(key=key, **fields)


def test_section_keeps_columns_and_rows_as_tuples() -> None:
    s = section(rows=[["1", "2"], ("3", "4")], payload={"n": [1, 2]})
    assert s.columns == ("A", "B")
    assert s.rows == (("1", "2"), ("3", "4"))
    assert s.payload == {"n": [1, 2]}
    assert s.caption == ""


BAD_SECTIONS: dict[str, tuple[dict[str, Any], type[Exception], str]] = {
    "row too short": (
        {"rows": [["1"]]},
        ValueError,
        "report section 'things': row 0 has 1 cells, expected 2 (one per column)",
    ),
    "row too long": (
        {"rows": [["1", "2"], ["1", "2", "3"]]},
        ValueError,
        "report section 'things': row 1 has 3 cells, expected 2 (one per column)",
    ),
    "cell not text": (
        {"rows": [["1", 2]]},
        TypeError,
        "report section 'things': row 0 has a cell of type int, expected str",
    ),
    "payload not JSON": (
        {"payload": {"when": object()}},
        ValueError,
        "report section 'things': payload is not JSON-serializable: Object of type object "
        "is not JSON serializable",
    ),
    "empty key": ({"key": ""}, ValueError, "report section 'Things': key must not be empty"),
}


@pytest.mark.parametrize(("kwargs", "error", "message"), BAD_SECTIONS.values(), ids=BAD_SECTIONS)
def test_section_rejects_what_cannot_be_reported(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        section(**kwargs)
    assert str(info.value) == message


def test_collect_sorts_by_key_and_tolerates_none() -> None:
    b, a, c = section("b"), section("a"), section("c")
    assert collect_sections([[b], None, [], [c, a]]) == [a, b, c]


def test_collect_rejects_a_key_given_twice() -> None:
    with pytest.raises(ValueError, match="two report sections have the key 'a'"):
        collect_sections([[section("a")], [section("a")]])


def test_collect_rejects_what_is_not_a_section() -> None:
    with pytest.raises(TypeError, match="must return ReportSection objects, got tuple"):
        collect_sections([[("Title", "renderable")]])  # type: ignore[list-item]


# -- the hook in a simulation ----------------------------------------------------------


class Sort(QueueSortPlugin):
    name = "TestSort"

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return a.timestamp < b.timestamp


class Binder(BindPlugin):
    name = "TestBinder"

    async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        await self.handle.cluster.bind(pod, node_name)
        return None


class PodLimit(FilterPlugin):
    """Rejects nodes that hold their allocatable number of pods."""

    name = "TestPodLimit"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if len(node_info.pods) >= node_info.allocatable.allowed_pod_number:
            return Status.unschedulable("Too many pods")
        return None


class PodsPerNode:
    """A hook module reading both the cluster and the result as the simulation ends."""

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def kubesched_report_sections(
        self, cluster: Cluster, result: SimulationResult
    ) -> list[ReportSection]:
        self.calls += 1
        per_node: dict[str, int] = {}
        for pod in cluster.list("Pod"):
            if pod.spec.node_name:
                per_node[pod.spec.node_name] = per_node.get(pod.spec.node_name, 0) + 1
        unplaced = [p.name for p in result.pods if p.node is None]
        return [
            ReportSection(
                key="podsPerNode",
                title="Pods per node [by hook]",
                columns=["Node", "Pods"],
                rows=[[n, str(c)] for n, c in sorted(per_node.items())],
                payload={"perNode": per_node, "unplaced": unplaced},
                caption=f"{len(unplaced)} unplaced",
            )
        ]


class ResultOnly:
    """A hook implementation may take only some of the arguments (pluggy)."""

    @hookimpl
    def kubesched_report_sections(self, result: SimulationResult) -> list[ReportSection]:
        return [section("attempts", rows=[[str(result.attempts), "x"]], payload=result.attempts)]


class Nothing:
    @hookimpl
    def kubesched_report_sections(self, cluster: Cluster) -> list[ReportSection]:
        return []


def objects() -> list[K8sModel]:
    return [
        make_node("n1").alloc(cpu="4", memory="8Gi", pods=2).obj(),
        *[make_pod(f"p{i}").req(cpu="1").obj() for i in range(3)],
    ]


def run(*hooks: object) -> SimulationResult:
    registry = PluginRegistry()
    plugins = (Sort, Binder, PodLimit)
    for p in plugins:
        registry.register(p)
    enabled = [{"name": p.name} for p in plugins]
    profile = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": enabled}},
    }
    config = parse_config(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [profile],
        }
    )
    resolved = resolve(config, registry)
    pm = make_plugin_manager(load_entrypoints=False)
    for hook in hooks:
        pm.register(hook)
    return Simulation(objects(), resolved, registry, hooks=pm).run()


def test_sections_read_the_cluster_and_the_result_at_the_end() -> None:
    hook = PodsPerNode()
    result = run(hook)
    assert hook.calls == 1
    s = result.section("podsPerNode")
    # 2 pods fit the node (pods=2); the third is in the result, unplaced
    assert s.rows == (("n1", "2"),)
    assert s.payload == {"perNode": {"n1": 2}, "unplaced": ["p2"]}
    with pytest.raises(KeyError):
        result.section("nope")


def test_json_has_sections_by_key_only_when_there_are_some() -> None:
    data = run(PodsPerNode(), ResultOnly(), Nothing()).to_json_dict()
    assert list(data["sections"]) == ["attempts", "podsPerNode"]
    assert data["sections"]["podsPerNode"] == {"perNode": {"n1": 2}, "unplaced": ["p2"]}
    assert isinstance(data["sections"]["attempts"], int) and data["sections"]["attempts"] > 0
    json.dumps(data)

    plain = run(Nothing()).to_json_dict()
    assert "sections" not in plain
    assert set(plain) == {"pods", "nodes", "summary", "skipped", "timeline"}


def test_table_prints_each_section_after_the_pods() -> None:
    result = run(PodsPerNode(), ResultOnly())
    console = Console(width=100, record=True, color_system=None)
    render_result(result, console)
    text = console.export_text()
    pods, first, second, nodes = (
        text.index("Pods"),
        text.index("Things"),  # key "attempts" sorts first
        text.index("Pods per node [by hook]"),  # markup in a title is printed as is
        text.index("Nodes"),
    )
    assert pods < first < second < nodes
    assert "1 unplaced" in text


def test_section_table_cells_are_plain_text() -> None:
    s = section(rows=[["[red]x[/]", "a long message " * 10]], caption="[b]caption[/]")
    console = Console(width=60, record=True, color_system=None)
    console.print(section_table(s))
    text = console.export_text()
    assert "[red]x[/]" in text
    assert "[b]caption[/]" in text
    assert text.count("a long message") == 10  # the last column wraps, nothing is cut


# -- the CLI ---------------------------------------------------------------------------


MANIFESTS = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "2"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p0}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p1}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p2}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}
"""


@pytest.fixture
def cli_hooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """`kubesched simulate` with the in-test hook module and no installed ones."""

    def manager(load_entrypoints: bool = True) -> pluggy.PluginManager:
        pm = make_plugin_manager(load_entrypoints=False)
        pm.register(PodsPerNode())
        return pm

    monkeypatch.setattr("kubesched.simulate._run.make_plugin_manager", manager)


@pytest.mark.usefixtures("cli_hooks")
def test_cli_json_and_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(MANIFESTS, encoding="utf-8")

    assert main(["simulate", str(path), "--output", "json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sections"] == {"podsPerNode": {"perNode": {"n1": 2}, "unplaced": ["p2"]}}

    assert main(["simulate", str(path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.index("Pods") < out.index("Pods per node [by hook]") < out.index("Nodes")
    assert "1 unplaced" in out
