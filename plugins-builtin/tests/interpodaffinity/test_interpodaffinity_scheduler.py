"""InterPodAffinity in the real scheduler on the memory cluster, on virtual time: spreading
with required anti-affinity, co-location with required and preferred affinity, and the
messages of pods that cannot be placed."""

from __future__ import annotations

from typing import Any

from interpodaffinity_helpers import affinity, make_node, make_pod, term, weighted

from kubesched.api import K8sModel, Namespace
from kubesched.config import parse_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult
from kubesched_builtin.defaultbinder import DefaultBinder
from kubesched_builtin.interpodaffinity import InterPodAffinity
from kubesched_builtin.queuesort import PrioritySort

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def run(objects: list[K8sModel], args: dict[str, Any] | None = None) -> SimulationResult:
    plugins = [PrioritySort, DefaultBinder, InterPodAffinity]
    registry = PluginRegistry.of(*plugins)
    profile: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": [{"name": p.name} for p in plugins]}},
    }
    if args is not None:
        profile["pluginConfig"] = [{"name": InterPodAffinity.name, "args": args}]
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [profile],
    }
    resolved = resolve(parse_config(config), registry)
    sim = Simulation(objects, resolved, registry, hooks=make_plugin_manager(load_entrypoints=False))
    return sim.run()


def nodes() -> list[K8sModel]:
    return [
        make_node("n1", **{HOST: "n1", ZONE: "z1"}),
        make_node("n2", **{HOST: "n2", ZONE: "z1"}),
        make_node("n3", **{HOST: "n3", ZONE: "z2"}),
    ]


def test_required_anti_affinity_spreads_pods_one_per_node() -> None:
    spread = affinity(anti=[term("app", "In", ["web"], HOST)])
    pods = [make_pod(f"web-{i}", labels={"app": "web"}, aff=spread) for i in range(4)]
    result = run([*nodes(), *pods])
    placed = [result.pod(f"web-{i}").node for i in range(3)]
    assert sorted(n for n in placed if n) == ["n1", "n2", "n3"]
    last = result.pod("web-3")
    assert last.node is None
    assert (
        last.message == "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules."
    )


def test_required_affinity_follows_the_target_and_waits_without_one() -> None:
    db = make_pod("db", labels={"app": "db"}, node="n3")
    cache = make_pod("cache", aff=affinity(required=[term("app", "In", ["db"], ZONE)]))
    orphan = make_pod("orphan", aff=affinity(required=[term("app", "In", ["none"], ZONE)]))
    result = run([*nodes(), db, cache, orphan])
    assert result.pod("cache").node == "n3"
    assert result.pod("orphan").node is None
    assert (
        result.pod("orphan").message
        == "0/3 nodes are available: 3 node(s) didn't match pod affinity rules."
    )


def test_first_pod_of_a_self_affine_group_is_placed_and_the_rest_follow() -> None:
    group = affinity(required=[term("app", "In", ["batch"], ZONE)])
    pods = [make_pod(f"b-{i}", labels={"app": "batch"}, aff=group) for i in range(3)]
    result = run([*nodes(), *pods])
    zones = {"n1": "z1", "n2": "z1", "n3": "z2"}
    placed = [result.pod(f"b-{i}").node for i in range(3)]
    assert all(placed)
    assert len({zones[n] for n in placed if n}) == 1


def test_preferred_affinity_and_namespace_selector() -> None:
    team = Namespace.model_validate({"metadata": {"name": "team-a", "labels": {"team": "a"}}})
    db = make_pod("db", namespace="team-a", labels={"app": "db"}, node="n3")
    near = make_pod(
        "near",
        aff=affinity(
            preferred=[
                weighted(
                    50,
                    term(
                        "app",
                        "In",
                        ["db"],
                        ZONE,
                        namespaceSelector={"matchLabels": {"team": "a"}},
                    ),
                )
            ]
        ),
    )
    result = run([team, *nodes(), db, near])
    assert result.pod("near").node == "n3"
