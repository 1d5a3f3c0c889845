"""Test helpers for kubesched-coscheduling: builders, a one-profile framework to call the
plugin's extension points directly, and end-to-end simulations on virtual time with the
builtin plugins, the PodGroup hooks and scripted cluster changes.

    gang_pod("w-0", "pg", cpu="1")          a member of PodGroup default/pg
    pod_group("pg", 3, timeout=10)          a PodGroup
    env = Env([node, pg, *pods])             plugin + framework + memory cluster (unit tests)
    result, sim = run([...], args={...})     the real scheduler to quiescence (end to end)
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import kubesched_coscheduling.hooks
from kubesched.api import CPU, MEMORY, PODS, K8sModel, Node, Pod, pod_requests, resource_units
from kubesched.cache import SchedulerCache
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.config import ResolvedProfile, parse_config, resolve
from kubesched.framework import Plugin, Snapshot
from kubesched.hookspecs import hookimpl
from kubesched.runtime import Framework, PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult
from kubesched.testing import make_pod
from kubesched_builtin.defaultbinder import DefaultBinder
from kubesched_builtin.nodename import NodeName
from kubesched_builtin.noderesources import NodeResourcesFit
from kubesched_builtin.nodeunschedulable import NodeUnschedulable
from kubesched_builtin.queuesort import PrioritySort
from kubesched_builtin.schedulinggates import SchedulingGates
from kubesched_coscheduling import POD_GROUP_LABEL, Coscheduling, CoschedulingArgs, PodGroup

__all__ = [
    "EPOCH",
    "Env",
    "FakeKubelet",
    "Script",
    "check_invariants",
    "gang_pod",
    "pod_group",
    "run",
    "run_defaults",
]

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
"""The VirtualClock's wall time at clock time 0."""

BUILTIN: list[type[Plugin]] = [
    SchedulingGates,
    PrioritySort,
    NodeUnschedulable,
    NodeName,
    NodeResourcesFit,
    DefaultBinder,
]
GANG_PROFILE = ["SchedulingGates", "NodeUnschedulable", "NodeName", "NodeResourcesFit"]

_T = TypeVar("_T")


def gang_pod(
    name: str,
    group: str | None,
    *,
    namespace: str = "default",
    cpu: str | None = None,
    memory: str | None = None,
    priority: int | None = None,
    scheduler: str | None = None,
) -> Pod:
    """A pod (a member of `group` when given) with one container requesting cpu/memory."""
    b = make_pod(name, namespace, uid=f"uid-{namespace}-{name}")
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    b.req(**requests)
    if group is not None:
        b.label(**{POD_GROUP_LABEL: group})
    if priority is not None:
        b.priority(priority)
    if scheduler is not None:
        b.scheduler(scheduler)
    return b.obj()


def pod_group(
    name: str,
    min_member: int,
    *,
    namespace: str = "default",
    created: float | None = None,
    timeout: int | None = None,
    min_resources: dict[str, str] | None = None,
) -> PodGroup:
    """A PodGroup; `created` is its creationTimestamp as clock seconds after EPOCH."""
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if created is not None:
        meta["creationTimestamp"] = (EPOCH + timedelta(seconds=created)).isoformat()
    spec: dict[str, Any] = {"minMember": min_member}
    if timeout is not None:
        spec["scheduleTimeoutSeconds"] = timeout
    if min_resources is not None:
        spec["minResources"] = min_resources
    return PodGroup.model_validate({"metadata": meta, "spec": spec})


def hook_manager(*controllers: Any) -> Any:
    """A pluggy manager with the package's hooks and extra embedded-cluster controllers."""
    pm = make_plugin_manager(load_entrypoints=False)
    pm.register(kubesched_coscheduling.hooks)
    if controllers:

        class Extra:
            @hookimpl
            def kubesched_cluster_controllers(self, cluster: Any) -> list[Any]:
                return list(controllers)

        pm.register(Extra())
    return pm


class _Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []

    def event(
        self,
        obj: Any,
        event_type: str,
        reason: str,
        action: str,
        message: str,
        related: Any = None,
    ) -> None:
        self.events.append((obj.metadata.name, reason, message))


class Env:
    """One profile's Framework (the plugin's Handle) over a memory cluster, on a virtual
    clock, for calling extension points directly as upstream's unit tests do."""

    def __init__(
        self,
        objects: Sequence[K8sModel],
        *,
        args: dict[str, Any] | None = None,
        points: dict[str, list[str]] | None = None,
        now: float = 0.0,
    ) -> None:
        self.clock = VirtualClock(start=now)
        self.loop = VirtualTimeLoop(self.clock)
        self.cluster = MemoryCluster(default_kinds(hook_manager()), self.clock)
        self.cluster.create_many(objects)
        self.cluster.flush()
        self.cache = SchedulerCache()
        for obj in objects:
            if isinstance(obj, Node):
                self.cache.add_node(obj)
        for pod in self.cluster.list("Pod"):
            if pod.spec.node_name:
                self.cache.add_pod(pod)
        self.snapshot = Snapshot()
        self.cache.update_snapshot(self.snapshot)
        self.activated: list[str] = []
        if points is None:
            gang = ["Coscheduling"]
            points = {
                "QueueSort": gang,
                "PreEnqueue": gang,
                "PreFilter": ["NodeResourcesFit", "Coscheduling"],
                "Filter": ["NodeResourcesFit"],
                "PostFilter": gang,
                "Reserve": gang,
                "Permit": gang,
                "Bind": ["DefaultBinder"],
            }
        cargs = CoschedulingArgs.model_validate(args or {})
        spec = ResolvedProfile("default-scheduler", points, {}, {"Coscheduling": cargs})
        classes: dict[str, type[Plugin]] = {p.name: p for p in [*BUILTIN, Coscheduling]}
        self.recorder = _Recorder()
        self.fwk = Framework(
            spec,
            classes,
            cluster=self.cluster,
            clock=self.clock,
            snapshot=self.snapshot,
            event_recorder=self.recorder,
            activator=lambda pods: self.activated.extend(p.metadata.name for p in pods),
        )
        self.cluster.flush()
        plugin = self.fwk.plugins["Coscheduling"]
        assert isinstance(plugin, Coscheduling)
        self.plugin = plugin

    def pod(self, name: str, namespace: str = "default") -> Pod:
        pod: Pod | None = self.cluster.get("Pod", name, namespace)
        assert pod is not None, name
        return pod

    def run(self, coro: Coroutine[Any, Any, _T]) -> _T:
        return self.loop.run_until_complete(coro)

    def call(self, fn: Callable[[], _T]) -> _T:
        """Call `fn` inside the event loop (Permit needs one for its timers)."""

        async def inside() -> _T:
            return fn()

        return self.run(inside())

    def assume(self, pod: Pod, node: str) -> Pod:
        """Assume the pod on `node` in the cache and refresh the snapshot."""
        assumed = pod.model_copy(update={"spec": pod.spec.model_copy(update={"node_name": node})})
        self.cache.assume_pod(assumed)
        self.cache.update_snapshot(self.snapshot)
        return assumed

    def close(self) -> None:
        self.loop.close()


# -- end to end ------------------------------------------------------------------------


class Script:
    """An embedded-cluster controller that runs `action(cluster)` at given clock times."""

    name = "test-script"

    def __init__(self, *steps: tuple[float, Callable[[MemoryCluster], Awaitable[None]]]) -> None:
        self._steps = list(steps)
        self._pending = 0
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, cluster: Any) -> None:
        loop = asyncio.get_running_loop()
        for at, action in self._steps:
            self._pending += 1
            loop.call_at(at, self._fire, loop, cluster, action)

    def _fire(self, loop: Any, cluster: Any, action: Callable[[Any], Awaitable[None]]) -> None:
        self._pending -= 1

        async def go() -> None:
            await action(cluster)

        task = loop.create_task(go())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def busy(self) -> bool:
        return self._pending > 0 or bool(self._tasks)


async def set_phase(cluster: Any, name: str, phase: str, namespace: str = "default") -> None:
    pod = cluster.get("Pod", name, namespace)
    if pod is None:
        return
    status = pod.status.model_copy(update={"phase": phase})
    await cluster.update(pod.model_copy(update={"status": status}))


class FakeKubelet:
    """Bound pods start Running `start` seconds after binding, and succeed `run` seconds
    later (never when `run` is None)."""

    name = "test-kubelet"

    def __init__(self, start: float = 1.0, run: float | None = None) -> None:
        self._start, self._run = start, run
        self._pending = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._cluster: Any = None

    def start(self, cluster: Any) -> None:
        self._cluster = cluster
        cluster.watch("Pod", self._on_pod)

    def _on_pod(self, ev: Any) -> None:
        pod = ev.obj
        newly_bound = pod.spec.node_name and (
            ev.type == "ADDED" or (ev.type == "MODIFIED" and not ev.old.spec.node_name)
        )
        if newly_bound and pod.status.phase == "Pending":
            self._later(self._start, pod, "Running")
        if (
            ev.type == "MODIFIED"
            and pod.status.phase == "Running"
            and ev.old.status.phase != "Running"
            and self._run is not None
        ):
            self._later(self._run, pod, "Succeeded")

    def _later(self, delay: float, pod: Pod, phase: str) -> None:
        loop = asyncio.get_running_loop()
        self._pending += 1
        name, namespace = pod.metadata.name, pod.metadata.namespace or "default"

        def fire() -> None:
            self._pending -= 1
            task = loop.create_task(set_phase(self._cluster, name, phase, namespace))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        loop.call_later(delay, fire)

    def busy(self) -> bool:
        return self._pending > 0 or bool(self._tasks)


def gang_config(
    args: dict[str, Any] | None = None,
    plugins: Sequence[str] = GANG_PROFILE,
    extra_points: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The reference profile: Coscheduling under multiPoint and as the only queueSort."""
    points: dict[str, Any] = {
        "multiPoint": {
            "enabled": [{"name": n} for n in [*plugins, "Coscheduling", "DefaultBinder"]]
        },
        "queueSort": {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]},
    }
    points.update(extra_points or {})
    profile: dict[str, Any] = {"schedulerName": "default-scheduler", "plugins": points}
    if args:
        profile["pluginConfig"] = [{"name": "Coscheduling", "args": args}]
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [profile],
    }


def run(
    objects: Sequence[K8sModel],
    *,
    args: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
    controllers: Sequence[Any] = (),
    extra_plugins: Sequence[type[Plugin]] = (),
    until: float | None = None,
    seed: int = 0,
) -> tuple[SimulationResult, Simulation]:
    """Simulate with the builtin plugins and Coscheduling until quiescence (or `until`)."""
    registry = PluginRegistry.of(*BUILTIN, Coscheduling, *extra_plugins)
    resolved = resolve(parse_config(config or gang_config(args)), registry)
    sim = Simulation(
        objects, resolved, registry, seed=seed, until=until, hooks=hook_manager(*controllers)
    )
    return sim.run(), sim


REFERENCE_CONFIG: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {
                "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                "queueSort": {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]},
            },
        }
    ],
}
"""scheduler-plugins' reference profile: every installed default plugin plus Coscheduling."""


def run_defaults(
    objects: Sequence[K8sModel],
    *,
    args: dict[str, Any] | None = None,
    controllers: Sequence[Any] = (),
    until: float | None = None,
) -> tuple[SimulationResult, Simulation]:
    """Simulate with every installed plugin (the default profile, DefaultPreemption and
    InterPodAffinity included) and Coscheduling in the reference profile."""
    registry = PluginRegistry.discover()
    if "Coscheduling" not in registry.plugins:
        registry.register(Coscheduling)
    config = copy.deepcopy(REFERENCE_CONFIG)
    if args:
        config["profiles"][0]["pluginConfig"] = [{"name": "Coscheduling", "args": args}]
    resolved = resolve(parse_config(config), registry)
    pm = make_plugin_manager()
    if not pm.is_registered(kubesched_coscheduling.hooks):
        pm.register(kubesched_coscheduling.hooks)
    if controllers:

        class Extra:
            @hookimpl
            def kubesched_cluster_controllers(self, cluster: Any) -> list[Any]:
                return list(controllers)

        pm.register(Extra())
    sim = Simulation(objects, resolved, registry, until=until, hooks=pm)
    return sim.run(), sim


def check_invariants(sim: Simulation, *, waiting_allowed: bool = False) -> None:
    """After a run: no node over-committed; every PodGroup has no member bound or at least
    minMember bound; no pod left waiting at Permit."""
    cluster = sim.cluster
    for node in cluster.list("Node"):
        used: dict[str, int] = {}
        count = 0
        for pod in cluster.list("Pod"):
            if pod.spec.node_name != node.metadata.name or pod.is_terminal:
                continue
            count += 1
            for name, amount in pod_requests(pod).items():
                used[name] = used.get(name, 0) + amount
        alloc = {n: resource_units(n, q) for n, q in node.allocatable.items()}
        for name in (CPU, MEMORY):
            assert used.get(name, 0) <= alloc.get(name, 0), (node.metadata.name, name, used)
        assert count <= alloc.get(PODS, 0), (node.metadata.name, count)
    for pg in cluster.list("PodGroup"):
        bound = [
            p
            for p in cluster.list("Pod")
            if p.metadata.namespace == pg.metadata.namespace
            and p.metadata.labels.get(POD_GROUP_LABEL) == pg.metadata.name
            and p.spec.node_name
        ]
        assert not bound or len(bound) >= pg.spec.min_member, (pg.key, len(bound))
    assert sim.scheduler is not None
    if not waiting_allowed:
        assert sim.scheduler.waiting_pod_count() == 0
