"""TaintToleration, NodeAffinity, NodePorts, ImageLocality and NodeResourcesBalancedAllocation
in the real scheduler: the default profile (upstream weights) on the memory cluster, on
virtual time. Checks where pods land and the FitError texts kube-scheduler would print."""

from __future__ import annotations

from typing import Any

from kubesched.api import K8sModel, Node, Pod
from kubesched.config import parse_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult
from kubesched.testing import make_node, make_pod
from kubesched_builtin.balancedallocation import NodeResourcesBalancedAllocation
from kubesched_builtin.defaultbinder import DefaultBinder
from kubesched_builtin.imagelocality import ImageLocality
from kubesched_builtin.nodeaffinity import NodeAffinity
from kubesched_builtin.nodeports import NodePorts
from kubesched_builtin.noderesources import NodeResourcesFit
from kubesched_builtin.queuesort import PrioritySort
from kubesched_builtin.tainttoleration import TaintToleration

PLUGINS = [
    PrioritySort,
    DefaultBinder,
    NodeResourcesFit,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    ImageLocality,
    NodeResourcesBalancedAllocation,
]


def run(objects: list[K8sModel], profile: dict[str, Any] | None = None) -> SimulationResult:
    registry = PluginRegistry.of(*PLUGINS)
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", **(profile or {})}],
    }
    resolved = resolve(parse_config(config), registry)
    sim = Simulation(
        objects, resolved, registry, seed=1, hooks=make_plugin_manager(load_entrypoints=False)
    )
    return sim.run()


def node(
    name: str,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    images: list[tuple[str, int]] | None = None,
) -> Node:
    builder = make_node(name).alloc(cpu="4", memory="8Gi", pods="110").label(**(labels or {}))
    for t in taints or []:
        builder.taint(t["key"], t.get("value", ""), t["effect"])
    for image, size in images or []:
        builder.image(image, size=size)
    return builder.obj()


def pod(name: str, **spec: Any) -> Pod:
    """A pod whose uid is its name, with these spec fields (one empty container by default)."""
    return make_pod(name, uid=name).spec(**spec).obj()


def test_taints_affinity_and_ports_decide_and_explain() -> None:
    nodes = [
        node(
            "tainted", {"zone": "a"}, [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
        ),
        node("soft", {"zone": "a"}, [{"key": "spot", "effect": "PreferNoSchedule"}]),
        node("clean", {"zone": "b"}),
    ]
    port = [{"name": "c", "image": "pause", "ports": [{"containerPort": 80, "hostPort": 8080}]}]
    objects: list[K8sModel] = [
        *nodes,
        # PreferNoSchedule counts against "soft": the clean node wins
        pod("plain"),
        pod("zone-a", nodeSelector={"zone": "a"}),
        pod("nowhere", nodeSelector={"zone": "z"}),
        pod(
            "named",
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {
                                        "key": "metadata.name",
                                        "operator": "In",
                                        "values": ["tainted"],
                                    }
                                ]
                            }
                        ]
                    }
                }
            },
        ),
        pod("port1", containers=port, nodeSelector={"zone": "b"}, priority=10),
        pod("port2", containers=port, nodeSelector={"zone": "b"}),
    ]
    result = run(objects)
    assert result.pod("plain").node == "clean"
    assert result.pod("zone-a").node == "soft"
    assert result.pod("nowhere").status == "Unschedulable"
    assert result.pod("nowhere").message == (
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), "
        "2 node(s) didn't match Pod's node affinity/selector."
    )
    # PreFilter narrowed the cycle to "tainted", whose taint the pod does not tolerate
    assert result.pod("named").status == "Unschedulable"
    assert result.pod("named").message == (
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), "
        "2 node(s) didn't satisfy plugin(s) [NodeAffinity]."
    )
    assert result.pod("port1").node == "clean"
    assert result.pod("port2").status == "Unschedulable"
    assert "1 node(s) didn't have free ports for the requested pod ports" in (
        result.pod("port2").message
    )


def test_different_taints_count_as_one_reason() -> None:
    """v1.34 names no taint in the reason (taint_toleration.go, kubernetes/kubernetes#134740),
    so three nodes with three different taints are one histogram entry."""
    objects: list[K8sModel] = [
        node("gpu", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
        node("db", taints=[{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]),
        node("spot", taints=[{"key": "spot", "effect": "NoExecute"}]),
        pod("plain"),
    ]
    result = run(objects)
    assert result.pod("plain").status == "Unschedulable"
    assert result.pod("plain").message == (
        "0/3 nodes are available: 3 node(s) had untolerated taint(s)."
    )


def test_added_affinity_from_plugin_config() -> None:
    profile = {
        "pluginConfig": [
            {
                "name": "NodeAffinity",
                "args": {
                    "addedAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "pool", "operator": "In", "values": ["batch"]}
                                    ]
                                }
                            ]
                        }
                    }
                },
            }
        ]
    }
    objects: list[K8sModel] = [node("a", {"pool": "web"}), node("b", {"pool": "batch"}), pod("p")]
    assert run(objects, profile).pod("p").node == "b"


def test_image_locality_prefers_the_node_with_the_image() -> None:
    big = 800 * 1024 * 1024
    objects: list[K8sModel] = [
        node("without"),
        node("with", images=[("registry/app:1", big)]),
        pod("p", containers=[{"name": "c", "image": "registry/app:1"}]),
    ]
    assert run(objects).pod("p").node == "with"
