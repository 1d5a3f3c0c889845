"""The end-to-end check: the plugin in the default profile of an embedded cluster.

A `ClusterScenario` is loaded into the memory cluster, the scheduler runs on virtual time
with the default plugins plus the plugin under test (with its args) until nothing more can
change, and then every pod must be accounted for and no node over-committed.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.api import PODS, K8sModel, Node, Pod, pod_requests, resource_units
from kubesched.config import (
    API_VERSION,
    DEFAULT_SCHEDULER_NAME,
    KIND,
    parse_config,
    resolve,
)
from kubesched.framework import Plugin, QueueSortPlugin, extension_points_of
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult
from kubesched.testing._scenario import ClusterScenario

__all__ = [
    "EndToEndReport",
    "end_to_end_config",
    "missing_defaults",
    "overcommitted",
    "registry_with",
    "run_end_to_end",
]

_NEEDED_DEFAULTS = {"QueueSort": "PrioritySort", "Bind": "DefaultBinder"}
_FIT = "NodeResourcesFit"
_NOT_ATTEMPTED = "not attempted yet"


@functools.cache
def _discovered() -> PluginRegistry:
    return PluginRegistry.discover()


def registry_with(plugin_cls: type[Plugin]) -> PluginRegistry:
    """Every installed plugin, with `plugin_cls` registered under its name on top."""
    base = _discovered()
    registry = PluginRegistry(entries=dict(base.entries))
    found = base.entries.get(plugin_cls.name)
    registry.register(plugin_cls, found.distribution if found is not None else None)
    return registry


def missing_defaults(registry: PluginRegistry, plugin_cls: type[Plugin]) -> list[str]:
    """Default plugins the end-to-end run needs but cannot find: a queue sort and a binder
    (unless the plugin is one) and NodeResourcesFit, which keeps nodes from over-committing."""
    available = registry.plugins
    missing = [
        name
        for point, name in _NEEDED_DEFAULTS.items()
        if name not in available and point not in extension_points_of(plugin_cls)
    ]
    if _FIT not in available:
        missing.append(_FIT)
    return missing


def end_to_end_config(plugin_cls: type[Plugin], args: Mapping[str, Any]) -> dict[str, Any]:
    """A KubeSchedulerConfiguration: the default profile plus the plugin (multiPoint), with
    its args. A queue sort plugin replaces the default one, as a profile has exactly one."""
    name = plugin_cls.name
    plugins: dict[str, Any] = {"multiPoint": {"enabled": [{"name": name}]}}
    if issubclass(plugin_cls, QueueSortPlugin) and name != _NEEDED_DEFAULTS["QueueSort"]:
        plugins["queueSort"] = {"enabled": [{"name": name}], "disabled": [{"name": "*"}]}
    profile: dict[str, Any] = {"schedulerName": DEFAULT_SCHEDULER_NAME, "plugins": plugins}
    if args:
        profile["pluginConfig"] = [{"name": name, "args": dict(args)}]
    return {"apiVersion": API_VERSION, "kind": KIND, "profiles": [profile]}


@dataclass
class EndToEndReport:
    """The simulation's result and what went wrong in it."""

    result: SimulationResult
    lost: list[str]
    """Pods neither bound nor held back with a reason."""
    overcommitted: list[str]
    """Nodes whose bound pods request more than they have."""

    @property
    def ok(self) -> bool:
        return not self.lost and not self.overcommitted

    def describe(self) -> str:
        return "; ".join([*self.lost, *self.overcommitted])


def run_end_to_end(
    plugin_cls: type[Plugin],
    args: Mapping[str, Any],
    cluster: ClusterScenario,
    *,
    seed: int = 0,
    registry: PluginRegistry | None = None,
) -> EndToEndReport:
    """Simulate `cluster` with the default profile plus the plugin; report lost pods and
    over-committed nodes."""
    registry = registry or registry_with(plugin_cls)
    config = parse_config(end_to_end_config(plugin_cls, args), source="<conformance>")
    resolved = resolve(config, registry)
    objects: list[K8sModel] = [
        *(o for o in cluster.extra if isinstance(o, K8sModel)),
        *cluster.nodes,
        *cluster.bound,
        *cluster.pending,
    ]
    sim = Simulation(objects, resolved, registry, seed=seed, hooks=make_plugin_manager())
    result = sim.run()
    lost = [
        f"{p.namespace}/{p.name} is {p.status}" + (f" ({p.message})" if p.message else "")
        for p in result.pods
        if _lost(p.status, p.message)
    ]
    return EndToEndReport(result, lost, overcommitted(cluster.nodes, sim.cluster.list("Pod")))


def _lost(status: str, message: str) -> bool:
    if status == "Bound":
        return False
    # an Error (a plugin failed, its message says which) holds the pod back with a reason,
    # as Unschedulable does; the point contracts report the plugin's fault
    if status in ("Unschedulable", "Error", "Pending"):
        return not message or message == _NOT_ATTEMPTED
    if status in ("Preempted", "Terminating"):
        return not message  # evicted for a higher-priority pod: the message says by whom
    return True  # Waiting after quiescence: nothing will ever let it go


def overcommitted(nodes: Sequence[Node], pods: Sequence[Pod]) -> list[str]:
    """Each node whose bound pods request more of a resource (or more pods) than it has."""
    problems: list[str] = []
    for node in nodes:
        name = node.metadata.name
        on_node = [p for p in pods if p.spec.node_name == name]
        allocatable = {r: resource_units(r, q) for r, q in node.allocatable.items()}
        used: dict[str, int] = {PODS: len(on_node)}
        for pod in on_node:
            for resource, amount in pod_requests(pod).items():
                used[resource] = used.get(resource, 0) + amount
        for resource, amount in sorted(used.items()):
            if amount > allocatable.get(resource, 0):
                problems.append(
                    f"node {name} is over-committed: {resource} requested {amount}, "
                    f"allocatable {allocatable.get(resource, 0)}"
                )
    return problems
