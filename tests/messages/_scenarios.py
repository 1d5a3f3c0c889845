"""Scenarios for the message tables: the real Scheduler on the memory cluster, on virtual
time, with the installed plugins and/or small in-test plugins, and what a user then reads
on each pod (its PodScheduled condition, its events, the simulate report).

    run = run_scenario([*nodes(2), make_pod("p").req(cpu="1").obj()], [CpuFit])
    assert run.condition("p") == ("False", "Unschedulable", "0/2 nodes are available: ...")

`objects_from_yaml` reads manifests as `kubesched simulate` does, for scenarios easier to
read as YAML (storage objects, PodGroups).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pluggy

from kubesched.api import K8sModel, Node, Pod
from kubesched.cluster.memory import default_kinds
from kubesched.config import parse_config, resolve
from kubesched.framework import (
    BindPlugin,
    CycleState,
    FilterPlugin,
    NodeInfo,
    Plugin,
    QueuedPodInfo,
    QueueSortPlugin,
    Status,
)
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult, load_manifests
from kubesched.testing import make_node

__all__ = [
    "BASE",
    "Binder",
    "Cordon",
    "CpuFit",
    "Run",
    "Sort",
    "config",
    "nodes",
    "objects_from_yaml",
    "run_scenario",
]


class Sort(QueueSortPlugin):
    """Priority, then arrival (what PrioritySort does)."""

    name = "TestSort"

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        pa, pb = a.pod.priority, b.pod.priority
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)


class Binder(BindPlugin):
    """Binds through the cluster (what DefaultBinder does)."""

    name = "TestBinder"

    async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        await self.handle.cluster.bind(pod, node_name)
        return None


class CpuFit(FilterPlugin):
    """Rejects nodes without room for the pod's CPU request, in NodeResourcesFit's words."""

    name = "CpuFit"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        want = sum(c.resources.requests.get("cpu", 0) for c in pod.spec.containers) * 1000
        if node_info.requested.milli_cpu + want > node_info.allocatable.milli_cpu:
            return Status.unschedulable("Insufficient cpu")
        return None


class Cordon(FilterPlugin):
    """Rejects cordoned nodes, in NodeUnschedulable's words."""

    name = "Cordon"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if node_info.node is not None and node_info.node.spec.unschedulable:
            return Status.unresolvable("node(s) were unschedulable")
        return None


BASE: tuple[type[Plugin], ...] = (Sort, Binder)
"""The QueueSort and Bind plugins every profile of in-test plugins needs."""


def nodes(n: int, cpu: str = "4", prefix: str = "n") -> list[Node]:
    """`n` plain nodes named `<prefix>0`, `<prefix>1` ..."""
    return [
        make_node(f"{prefix}{i}").alloc(cpu=cpu, memory="8Gi", pods=110).obj() for i in range(n)
    ]


def config(*multi_point: str, **profile: Any) -> dict[str, Any]:
    """A KubeSchedulerConfiguration with one `default-scheduler` profile enabling these
    plugins under `multiPoint`; `profile` adds or replaces profile fields (camelCase)."""
    prof: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": [{"name": n} for n in multi_point]}},
    }
    prof.update(profile)
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [prof],
    }


def objects_from_yaml(text: str, hooks: pluggy.PluginManager | None = None) -> list[K8sModel]:
    """The objects of these YAML manifests, loaded as `kubesched simulate` loads files."""
    pm = hooks if hooks is not None else make_plugin_manager()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "manifests.yaml"
        path.write_text(text, encoding="utf-8")
        loaded = load_manifests([path], default_kinds(pm))
    if loaded.skipped:
        raise ValueError(f"manifests not loaded: {[s.reason for s in loaded.skipped]}")
    return list(loaded.objects)


@dataclass
class Run:
    """A finished simulation and what it left on the pods."""

    result: SimulationResult
    sim: Simulation

    def pod(self, name: str, namespace: str = "default") -> Pod:
        pod = self.sim.cluster.get("Pod", name, namespace)
        assert isinstance(pod, Pod), f"pod {namespace}/{name} is gone"
        return pod

    def condition(self, name: str, namespace: str = "default") -> tuple[str, str, str] | None:
        """(status, reason, message) of the pod's PodScheduled condition."""
        cond = self.pod(name, namespace).status.condition("PodScheduled")
        return None if cond is None else (cond.status, cond.reason, cond.message)

    def events(
        self, name: str, reason: str = "FailedScheduling", namespace: str = "default"
    ) -> list[str]:
        """The messages of the pod's events with this reason, oldest first."""
        return [
            e.message
            for e in self.sim.cluster.events()
            if e.involved_name == name and e.namespace == namespace and e.reason == reason
        ]

    def message(self, name: str, namespace: str = "default") -> str:
        """What `kubesched simulate` reports for the pod."""
        return self.result.pod(name, namespace).message


def run_scenario(
    objects: Sequence[K8sModel],
    plugins: Sequence[type[Plugin]] = (),
    cfg: dict[str, Any] | None = None,
    *,
    installed: bool = False,
    seed: int = 0,
    until: float | None = None,
    explain: Sequence[str] = (),
) -> Run:
    """Simulate `objects` until nothing more can happen (or `until` virtual seconds).

    With `installed`, the plugins of the installed distributions are available (and the
    default profile's plugins are in every profile, as kube-scheduler merges them);
    without, only `plugins` and BASE are. `cfg` defaults to a profile enabling `plugins`
    (and BASE when not `installed`) under multiPoint. `explain` names pods whose last
    attempt is explained (`result.explanations`)."""
    pm = make_plugin_manager(load_entrypoints=installed)
    extra = list(plugins) if installed else [*BASE, *plugins]
    registry = PluginRegistry.discover(extra) if installed else PluginRegistry.of(*extra)
    resolved = resolve(parse_config(cfg or config(*(p.name for p in extra))), registry)
    sim = Simulation(objects, resolved, registry, seed=seed, until=until, hooks=pm, explain=explain)
    return Run(sim.run(), sim)
