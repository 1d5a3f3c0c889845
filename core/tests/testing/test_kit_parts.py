"""The kit's parts: strategies, scenarios, fingerprints, the harness and the end-to-end run."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from hypothesis import given, settings
from kit_samples import LabelFilter, RandomSort

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, PodInfo, PreFilterResult
from kubesched.testing import (
    ClusterScenario,
    PluginHarness,
    Scenario,
    make_node,
    make_pod,
    run_end_to_end,
)
from kubesched.testing import strategies as kst
from kubesched.testing._end_to_end import end_to_end_config, overcommitted
from kubesched.testing._fingerprint import fingerprint, plugin_state
from kubesched.testing._scenario import fits_on

HAS_BUILTIN = importlib.util.find_spec("kubesched_builtin") is not None


def node(name: str, cpu: str = "2", pods: int = 110, **labels: str) -> Node:
    return make_node(name).alloc(cpu=cpu, memory="4Gi", pods=pods).label(**labels).obj()


def test_importing_the_package_needs_neither_pytest_nor_hypothesis() -> None:
    code = (
        "import sys; sys.modules['pytest'] = None; sys.modules['hypothesis'] = None\n"
        "import kubesched.testing as t\n"
        "print(t.make_pod('p').req(cpu='1').obj().metadata.name, t.Scenario.__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["p", "Scenario"]


@settings(max_examples=30, deadline=None)
@given(kst.scenarios())
def test_scenarios_are_consistent(scenario: Scenario) -> None:
    names = [n.metadata.name for n in scenario.nodes]
    assert len(set(names)) == len(names)
    placed: dict[str, list[Pod]] = {n: [] for n in names}
    for pod in scenario.existing:
        host = next(n for n in scenario.nodes if n.metadata.name == pod.spec.node_name)
        assert fits_on(pod, host, placed[host.metadata.name])
        placed[host.metadata.name].append(pod)
    uids = [p.metadata.uid for p in [*scenario.existing, scenario.pod, scenario.other] if p]
    assert len(set(uids)) == len(uids)
    assert scenario.other is not None and scenario.other.spec.node_name in names
    assert [len(n.pods) for n in scenario.node_infos()] == [len(placed[n]) for n in names]


@settings(max_examples=20, deadline=None)
@given(kst.cluster_scenarios())
def test_cluster_scenarios_have_pending_pods(cluster: ClusterScenario) -> None:
    assert cluster.pending and all(not p.spec.node_name for p in cluster.pending)
    assert overcommitted(cluster.nodes, cluster.bound) == []


def test_fits_on_counts_every_resource_and_the_pod_count() -> None:
    host = make_node("n").alloc(cpu="1", memory="1Gi", pods=2).obj()
    half = make_pod("a").req(cpu="500m").obj()
    assert fits_on(half, host, [half.model_copy()])
    assert not fits_on(make_pod("b").req(cpu="600m").obj(), host, [half])
    assert not fits_on(make_pod("c").obj(), host, [half, half])  # a third pod: pods=2
    assert not fits_on(make_pod("g").req(**{"example.com/gpu": 1}).obj(), host, [])


def test_overcommitted_names_the_node_and_resource() -> None:
    host = make_node("n").alloc(cpu="1", memory="1Gi", pods=110).obj()
    pods = [make_pod(f"p{i}").req(cpu="600m").node("n").obj() for i in range(2)]
    assert overcommitted([host], pods) == [
        "node n is over-committed: cpu requested 1200, allocatable 1000"
    ]
    assert overcommitted([host], pods[:1]) == []


def test_fingerprints_see_writes_and_not_reads() -> None:
    pod = make_pod("p").req(cpu="1").label(app="a").obj()
    info = PodInfo(pod)
    before = fingerprint(info)
    assert info.requests.milli_cpu == 1000  # a cached read
    assert fingerprint(info) == before
    pod.metadata.labels["app"] = "b"
    assert fingerprint(info) != before


def test_plugin_state_leaves_the_handle_out() -> None:
    h = PluginHarness(LabelFilter, LabelFilter.Args())
    plugin = h.plugin
    assert isinstance(plugin, LabelFilter)
    before = plugin_state(plugin)
    h.cluster.create_many([make_node("late").obj()])  # the handle's cluster changes
    assert plugin_state(plugin) == before
    plugin.reserved["uid"] = "n"
    assert plugin_state(plugin) != before


def test_harness_builds_the_plugin_with_a_framework_handle() -> None:
    scenario = Scenario(
        [node("a", tier="gold"), node("b", tier="iron")],
        [make_pod("x").req(cpu="1").node("a").obj()],
        make_pod("p").label(tier="gold").obj(),
    )
    h = PluginHarness(LabelFilter, LabelFilter.Args(), scenario)
    assert h.plugin.handle is h.framework
    assert h.framework.snapshot is h.snapshot
    assert {p.metadata.name for p in h.cluster.list("Pod")} == {"x", "p"}
    phase = h.filter_phase(CycleState())
    assert phase.feasible == ["a"]
    assert phase.answers()["b"] == (3, "node(s) didn't have tier gold")
    assert [n.name for n in h.nodes_for(PreFilterResult.of(["b"]))] == ["b"]
    score = h.score_phase(CycleState(), h.feasible(phase))
    assert score.complete and [(s.name, s.score) for s in score.scores] == [("a", 100)]


def test_a_queue_sort_plugin_replaces_the_default_one() -> None:
    profile = end_to_end_config(RandomSort, {})["profiles"][0]
    assert profile["plugins"]["queueSort"] == {
        "enabled": [{"name": "RandomSort"}],
        "disabled": [{"name": "*"}],
    }
    assert "pluginConfig" not in profile


@pytest.mark.skipif(not HAS_BUILTIN, reason="the default profile needs kubesched-builtin")
def test_end_to_end_run_binds_what_fits() -> None:
    cluster = ClusterScenario(
        [node("a", cpu="1", tier="gold"), node("b", cpu="1", tier="iron")],
        [],
        [
            make_pod("gold").req(cpu="600m").label(tier="gold").obj(),
            make_pod("big").req(cpu="2").obj(),
            make_pod("small").req(cpu="100m").obj(),
        ],
    )
    report = run_end_to_end(LabelFilter, {}, cluster)
    assert report.ok, report.describe()
    result = report.result
    assert result.pod("gold").node == "a"
    assert result.pod("small").status == "Bound"
    assert result.pod("big").status == "Unschedulable"
    assert "Insufficient cpu" in result.pod("big").message
