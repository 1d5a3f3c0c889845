"""PodTopologySpread in the real scheduler on the memory cluster (virtual time), as part of
the default profile next to PrioritySort and DefaultBinder: hard spreading fills zones
evenly, soft spreading prefers emptier nodes, and rejections read as kube-scheduler's."""

from __future__ import annotations

from typing import Any

from podtopologyspread_helpers import node, pod

from kubesched.api import K8sModel
from kubesched.config import parse_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult
from kubesched_builtin.defaultbinder import DefaultBinder
from kubesched_builtin.podtopologyspread import PodTopologySpread
from kubesched_builtin.queuesort import PrioritySort

APP = {"matchLabels": {"app": "web"}}


def run(objects: list[K8sModel], args: dict[str, Any] | None = None) -> SimulationResult:
    registry = PluginRegistry.of(PrioritySort, DefaultBinder, PodTopologySpread)
    profile: dict[str, Any] = {"schedulerName": "default-scheduler"}
    if args is not None:
        profile["pluginConfig"] = [{"name": "PodTopologySpread", "args": args}]
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [profile],
    }
    resolved = resolve(parse_config(config), registry)
    sim = Simulation(objects, resolved, registry, hooks=make_plugin_manager(load_entrypoints=False))
    return sim.run()


def zone_node(name: str, zone: str) -> K8sModel:
    return (
        node(name)
        .label(**{"topology.kubernetes.io/zone": zone})
        .label(**{"kubernetes.io/hostname": name})
        .obj()
    )


def test_hard_zone_spread_fills_zones_evenly() -> None:
    nodes = [
        zone_node("a1", "z1"),
        zone_node("a2", "z1"),
        zone_node("b1", "z2"),
        zone_node("c1", "z3"),
    ]
    pods = [
        pod(f"web-{i}")
        .label(app="web")
        .spread_constraint(1, "topology.kubernetes.io/zone", "DoNotSchedule", APP)
        .obj()
        for i in range(6)
    ]
    result = run([*nodes, *pods])
    zone_of = {"a1": "z1", "a2": "z1", "b1": "z2", "c1": "z3"}
    per_zone: dict[str, int] = {}
    for p in result.pods:
        assert p.status == "Bound", p
        assert p.node is not None
        per_zone[zone_of[p.node]] = per_zone.get(zone_of[p.node], 0) + 1
    assert per_zone == {"z1": 2, "z2": 2, "z3": 2}


def test_soft_hostname_spread_puts_one_pod_per_node() -> None:
    nodes = [zone_node(f"n{i}", "z1") for i in range(3)]
    pods = [
        pod(f"web-{i}")
        .label(app="web")
        .spread_constraint(1, "kubernetes.io/hostname", "ScheduleAnyway", APP)
        .obj()
        for i in range(3)
    ]
    result = run([*nodes, *pods])
    assert sorted(p.node or "" for p in result.pods) == ["n0", "n1", "n2"]


def test_nodes_without_the_topology_label_reject_with_upstream_message() -> None:
    nodes = [node("n1").obj(), node("n2").obj()]
    p = pod("web").label(app="web").spread_constraint(1, "rack", "DoNotSchedule", APP).obj()
    result = run([*nodes, p], args={"defaultingType": "List"})
    (r,) = result.pods
    assert r.status == "Unschedulable"
    assert r.message == (
        "0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints "
        "(missing required label)."
    )
