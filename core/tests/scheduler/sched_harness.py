"""Run the real scheduler on the memory cluster with in-test plugins, on virtual time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.api import K8sModel, Pod
from kubesched.config import parse_config, resolve
from kubesched.framework import (
    BindPlugin,
    CycleState,
    FilterPlugin,
    NodeInfo,
    NodeScore,
    NodeToStatus,
    Plugin,
    PostFilterPlugin,
    PostFilterResult,
    QueuedPodInfo,
    QueueSortPlugin,
    ScorePlugin,
    Status,
)
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult


class Sort(QueueSortPlugin):
    """Priority, then arrival (what PrioritySort does)."""

    name = "TestSort"

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        pa, pb = a.pod.priority, b.pod.priority
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)


class Binder(BindPlugin):
    name = "TestBinder"

    async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        await self.handle.cluster.bind(pod, node_name)
        return None


class CpuFit(FilterPlugin):
    """Rejects nodes without room for the pod's CPU request."""

    name = "CpuFit"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        want = sum(c.resources.requests.get("cpu", 0) for c in pod.spec.containers) * 1000
        if node_info.requested.milli_cpu + want > node_info.allocatable.milli_cpu:
            return Status.unschedulable("Insufficient cpu")
        return None


class Cordon(FilterPlugin):
    name = "Cordon"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        assert node_info.node is not None
        if node_info.node.spec.unschedulable:
            return Status.unresolvable("node(s) were unschedulable")
        return None


class FreeCpu(ScorePlugin):
    """Raw score = free millicores / 100; normalized so the roomiest node scores 100."""

    name = "FreeCpu"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, None]:
        free = node_info.allocatable.milli_cpu - node_info.requested.milli_cpu
        return free // 100, None

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        top = max(s.score for s in scores) or 1
        for s in scores:
            s.score = s.score * 100 // top
        return None


class NominateFirst(PostFilterPlugin):
    """A preemption whose victims are not deleted yet: a pod of priority 100 or more is
    nominated to the first node by name, and everything there stays where it is."""

    name = "NominateFirst"

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        if pod.priority < 100:
            return None, Status.unschedulable("no preemption below priority 100")
        first = min(n.name for n in self.handle.snapshot.node_info_list)
        return PostFilterResult.nominate(first), None


BASE: list[type[Plugin]] = [Sort, Binder]


def config_for(
    plugins: Sequence[type[Plugin]], extra: dict[str, Any] | None = None, **profile: Any
) -> dict[str, Any]:
    prof: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": [{"name": p.name} for p in plugins]}},
    }
    prof.update(profile)
    cfg: dict[str, Any] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [prof],
    }
    cfg.update(extra or {})
    return cfg


def make_simulation(
    objects: Sequence[K8sModel],
    plugins: Sequence[type[Plugin]],
    *,
    config: dict[str, Any] | None = None,
    seed: int = 0,
    until: float | None = None,
) -> Simulation:
    all_plugins = [*BASE, *plugins]
    registry = PluginRegistry.of(*all_plugins)
    resolved = resolve(parse_config(config or config_for(all_plugins)), registry)
    return Simulation(
        objects,
        resolved,
        registry,
        seed=seed,
        until=until,
        hooks=make_plugin_manager(load_entrypoints=False),
    )


def simulate(
    objects: Sequence[K8sModel],
    plugins: Sequence[type[Plugin]],
    **kwargs: Any,
) -> tuple[SimulationResult, Simulation]:
    sim = make_simulation(objects, plugins, **kwargs)
    return sim.run(), sim


def condition(sim: Simulation, name: str) -> tuple[str, str, str] | None:
    """(status, reason, message) of the pod's PodScheduled condition."""
    pod = sim.cluster.get("Pod", name, "default")
    assert pod is not None
    cond = pod.status.condition("PodScheduled")
    return None if cond is None else (cond.status, cond.reason, cond.message)
