"""Fault plans on the embedded cluster (`kubesched.simulate._faults`, issue 18): each kind
of fault fires, and the scheduler answers as upstream's does: after a failure past assume,
Unreserve and Forget (the Reserve ledger is empty at the end, the cache holds no assumed
pod), the pod is retried, and its FailedScheduling event and condition carry the error."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from _faulty import ledger, run_with_faults

from kubesched._errors import ManifestError
from kubesched.simulate import Simulation, SimulationResult

NODES = [
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
    for name in ("n1", "n2")
]


def pod(name: str, cpu: str = "1", **spec: Any) -> dict[str, Any]:
    container = {"name": "c", "image": "pause", "resources": {"requests": {"cpu": cpu}}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [container], **spec},
    }


PODS = [pod("p1"), pod("p2"), pod("p3")]


def statuses(result: SimulationResult) -> dict[str, str]:
    return {p.name: p.status for p in result.pods}


def failed_scheduling(sim: Simulation, name: str) -> list[str]:
    return [
        e.message
        for e in sim.cluster.events()
        if e.reason == "FailedScheduling" and e.regarding.name == name
    ]


def assert_consistent(sim: Simulation, result: SimulationResult) -> None:
    """Every Reserve was unreserved or bound; nothing is assumed; the cache's pods are the
    cluster's bound pods."""
    book = ledger(result)
    assert book["reservedNotBound"] == []
    assert book["reserve"] == book["unreserve"] + book["bound"]
    sched = sim.scheduler
    assert sched is not None
    for name, info in sched.cache.dump().items():
        cached = sorted(p.pod.metadata.name for p in info.pods)
        bound = sorted(p.metadata.name for p in sim.cluster.list("Pod") if p.spec.node_name == name)
        assert cached == bound, name
        assert not any(sched.cache.is_assumed_pod(p.pod) for p in info.pods)


def test_bind_conflict_is_unreserved_forgotten_and_retried(tmp_path: Path) -> None:
    sim, result = run_with_faults(
        tmp_path,
        [*NODES, *PODS],
        [{"bindError": {"reason": "Conflict"}, "pods": ["p2"], "times": 1}],
    )
    assert statuses(result) == {"p1": "Bound", "p2": "Bound", "p3": "Bound"}
    book = ledger(result)
    assert [f["fired"] for f in book["faults"]] == [1]
    assert book["bound"] == 3 and book["unreserve"] == 1
    assert result.pod("p2").attempts == 2
    # upstream: DefaultBinder returns AsStatus(err); RunBindPlugins wraps it ("running Bind
    # plugin %q: %w") and the FailedScheduling event carries it
    assert failed_scheduling(sim, "p2") == [
        'running Bind plugin "DefaultBinder": Operation cannot be fulfilled on pods/binding '
        '"p2": the object has been modified; please apply your changes to the latest '
        "version and try again"
    ]
    assert_consistent(sim, result)


def test_bind_error_every_time_leaves_the_pod_in_error_and_nothing_reserved(
    tmp_path: Path,
) -> None:
    sim, result = run_with_faults(
        tmp_path, [*NODES, *PODS], [{"bindError": {}, "pods": ["default/p1"]}]
    )
    p1 = result.pod("p1")
    assert (p1.status, p1.node) == ("Error", None)
    assert p1.message == (
        'running Bind plugin "DefaultBinder": Internal error occurred: injected fault 0 (bindError)'
    )
    assert statuses(result)["p2"] == statuses(result)["p3"] == "Bound"
    assert ledger(result)["faults"][0]["fired"] == p1.attempts >= 2
    assert_consistent(sim, result)


@pytest.mark.parametrize("fast_path", [True, False])
def test_plugin_error_at_filter_is_the_pods_error_on_both_paths(
    tmp_path: Path, fast_path: bool
) -> None:
    fault = {"pluginError": {"plugin": "NodeResourcesFit", "extensionPoint": "Filter"}}
    sim, result = run_with_faults(
        tmp_path, [*NODES, *PODS], [{**fault, "pods": ["p3"]}], fast_path=fast_path
    )
    p3 = result.pod("p3")
    assert p3.status == "Error"
    assert "injected fault 0: NodeResourcesFit failed at Filter" in p3.message
    assert statuses(result)["p1"] == "Bound"
    assert_consistent(sim, result)


def test_plugin_error_at_reserve_runs_unreserve_then_the_retry_binds(tmp_path: Path) -> None:
    fault = {"pluginError": {"plugin": "VolumeBinding", "extensionPoint": "Reserve"}}
    sim, result = run_with_faults(tmp_path, [*NODES, *PODS], [{**fault, "times": 2}])
    assert set(statuses(result).values()) == {"Bound"}
    book = ledger(result)
    assert book["faults"][0]["fired"] == 2
    assert book["unreserve"] == 2 and book["bound"] == 3
    messages = [m for p in ("p1", "p2", "p3") for m in failed_scheduling(sim, p)]
    assert len(messages) == 2
    assert all("injected fault 0: VolumeBinding failed at Reserve" in m for m in messages)
    assert_consistent(sim, result)


def test_plugin_error_at_bind_and_pre_score(tmp_path: Path) -> None:
    faults = [
        {"pluginError": {"plugin": "DefaultBinder", "extensionPoint": "Bind"}, "times": 1},
        {
            "pluginError": {"plugin": "TaintToleration", "extensionPoint": "PreScore"},
            "pods": ["p3"],
        },
    ]
    sim, result = run_with_faults(tmp_path, [*NODES, *PODS], faults)
    assert statuses(result) == {"p1": "Bound", "p2": "Bound", "p3": "Error"}
    assert result.pod("p3").message == (
        'running PreScore plugin "TaintToleration": plugin TaintToleration raised '
        "InjectedFault: injected fault 1: TaintToleration failed at PreScore"
    )
    fired = [f["fired"] for f in ledger(result)["faults"]]
    # p3 is retried as the others bind (cluster changes), failing each time
    assert fired == [1, result.pod("p3").attempts]
    assert_consistent(sim, result)


def test_node_deleted_between_reserve_and_bind(tmp_path: Path) -> None:
    """The API server does not check the node on binding (upstream storage.go), so the
    pod is bound to a node that is gone, as it would be in a real cluster; the cache keeps
    it on a node info without a node."""
    fault = {"deleteBeforeBind": {"kind": "Node"}, "times": 1, "pods": ["p1"]}
    sim, result = run_with_faults(tmp_path, [*NODES, pod("p1")], [fault])
    gone = ledger(result)["faults"][0]["targets"]
    assert len(gone) == 1 and gone[0] in ("Node n1", "Node n2")
    node = gone[0].split()[1]
    assert sim.cluster.get("Node", node) is None
    assert sim.cluster.get("Pod", "p1", "default").spec.node_name == node
    assert_consistent(sim, result)


def test_dropped_add_is_never_seen_until_a_relist(tmp_path: Path) -> None:
    drop = {"watch": {"kind": "Pod", "action": "Drop", "eventType": "ADDED"}, "times": 1}
    sim, result = run_with_faults(tmp_path, [*NODES, *PODS], [drop])
    lost = ledger(result)["faults"][0]["targets"]
    assert lost == ["ADDED Pod default/p1"]
    assert result.pod("p1").status == "Pending" and result.pod("p1").attempts == 0
    relist = {"relist": {"kinds": ["Pod"], "extensionPoint": "PreFilter"}, "times": 1}
    sim, result = run_with_faults(tmp_path, [*NODES, *PODS], [drop, relist])
    assert set(statuses(result).values()) == {"Bound"}
    assert_consistent(sim, result)


@pytest.mark.parametrize(
    "faults",
    [
        [{"watch": {"kind": "Pod", "action": "Duplicate"}}],
        [{"watch": {"kind": "Node", "action": "Duplicate"}}],
        [{"relist": {"kinds": ["Pod", "Node"], "extensionPoint": "Reserve"}}],
        [{"relist": {"kinds": ["Pod", "Node"], "extensionPoint": "Permit"}}],
    ],
    ids=["duplicate-pods", "duplicate-nodes", "relist-at-reserve", "relist-at-permit"],
)
def test_duplicates_and_relists_change_no_placement(
    tmp_path: Path, faults: list[dict[str, Any]]
) -> None:
    pods = [pod(f"p{i}", cpu="500m") for i in range(8)]
    _, plain = run_with_faults(tmp_path, [*NODES, *pods], [{"bindError": {}, "probability": 0}])
    sim, faulty = run_with_faults(tmp_path, [*NODES, *pods], faults)
    assert ledger(faulty)["faults"][0]["fired"] >= 2
    assert {p.name: p.node for p in faulty.pods} == {p.name: p.node for p in plain.pods}
    assert_consistent(sim, faulty)


def test_delayed_node_events_delay_binding(tmp_path: Path) -> None:
    delay = {"watch": {"kind": "Node", "action": "Delay", "delay": "30s"}, "times": 1}
    sim, result = run_with_faults(tmp_path, [*NODES, *PODS], [delay])
    assert set(statuses(result).values()) == {"Bound"}
    bound_at = [p.times.bound for p in result.pods if p.times is not None]
    assert bound_at and min(t for t in bound_at if t is not None) >= 30
    assert_consistent(sim, result)


def test_same_plan_and_seed_same_run(tmp_path: Path) -> None:
    faults = [
        {"bindError": {"reason": "Conflict"}, "probability": 0.3},
        {"watch": {"kind": "Pod", "action": "Duplicate"}, "probability": 0.3},
        {"relist": {}, "probability": 0.2},
    ]
    pods = [pod(f"p{i}", cpu="300m") for i in range(12)]
    runs = [run_with_faults(tmp_path, [*NODES, *pods], faults, seed=3)[1] for _ in range(2)]
    assert ledger(runs[0]) == ledger(runs[1])
    assert [(p.name, p.node, p.attempts) for p in runs[0].pods] == [
        (p.name, p.node, p.attempts) for p in runs[1].pods
    ]
    other = run_with_faults(tmp_path, [*NODES, *pods], faults, seed=4)[1]
    assert ledger(other)["faults"] != ledger(runs[0])["faults"]


def test_plan_naming_a_plugin_not_at_its_point(tmp_path: Path) -> None:
    fault = {"pluginError": {"plugin": "NodeResourcesFit", "extensionPoint": "Reserve"}}
    with pytest.raises(ManifestError) as info:
        run_with_faults(tmp_path, [*NODES], [fault])
    assert str(info.value) == (
        'plan.yaml: faults[0].pluginError.plugin: no profile runs plugin "NodeResourcesFit" '
        "at Reserve (its Reserve plugins: DynamicResources, VolumeBinding)"
    )
    with pytest.raises(ManifestError, match=r'faults\[0\].watch.kind: kind "Gadget" is not'):
        run_with_faults(tmp_path, [*NODES], [{"watch": {"kind": "Gadget", "action": "Drop"}}])


def test_counts_by_kind(tmp_path: Path) -> None:
    sim, _ = run_with_faults(
        tmp_path,
        [*NODES, *PODS],
        [{"bindError": {}, "times": 2}, {"watch": {"kind": "Pod", "action": "Duplicate"}}],
    )
    assert sim.injector is not None
    counts = Counter(sim.injector.by_kind())
    assert counts["bindError"] == 2 and counts["watch"] >= 3
