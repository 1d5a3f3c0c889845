"""Shared helpers for the DefaultPreemption tests: pods in the shape upstream's tests write
them, a recording cluster, small filter plugins, and a real Framework holding the plugin."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from builtin_helpers import make_node, make_pod, node_infos
from pydantic import BaseModel

from kubesched import NotFoundError
from kubesched.api import Node, Pod, PodCondition
from kubesched.clock import VirtualClock
from kubesched.config import ResolvedProfile
from kubesched.framework import (
    Code,
    CycleState,
    FilterPlugin,
    NodeInfo,
    NodeToStatus,
    PodInfo,
    PostFilterResult,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    Snapshot,
    Status,
)
from kubesched.runtime import Framework
from kubesched_builtin.defaultbinder import DefaultBinder
from kubesched_builtin.defaultpreemption import DefaultPreemption, DefaultPreemptionArgs
from kubesched_builtin.kinds import PodDisruptionBudget
from kubesched_builtin.noderesources import NodeResourcesFit
from kubesched_builtin.queuesort import PrioritySort

__all__ = [
    "HIGH",
    "LARGE",
    "LOW",
    "MEDIUM",
    "MID",
    "NEG",
    "SMALL",
    "VERY_HIGH",
    "VERY_LARGE",
    "CountingFilter",
    "ErrorOnLabelPlugin",
    "FalseFilter",
    "MatchFilter",
    "PreemptionEnv",
    "RecordingCluster",
    "TrueFilter",
    "epoch",
    "pdb",
    "pod",
    "preemption_env",
    "statuses",
]

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def epoch(seconds: int) -> datetime:
    """upstream's epochTimeN (there nanoseconds; seconds keep the same order here)."""
    return _EPOCH + timedelta(seconds=seconds)


def pod(
    name: str,
    *,
    node: str = "",
    prio: int | None = None,
    req: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
    start: datetime | None = None,
    nominated: str = "",
    never: bool = False,
    terminating: bool = False,
    disruption_target: bool = False,
) -> Pod:
    """A pod as upstream's `st.MakePod().Name(n).UID(n)...` builds it (uid = name)."""
    builder = make_pod(name).req(req or {}).label(**(labels or {}))
    if node:
        builder.node(node)
    if prio is not None:
        builder.priority(prio)
    if never:
        builder.spec(preemptionPolicy="Never")
    if terminating:
        builder.terminating(datetime(2026, 1, 1, tzinfo=UTC))
    if nominated:
        builder.nominated(nominated)
    built = builder.obj()
    built.status.start_time = start
    if disruption_target:
        built.status.conditions = [
            PodCondition(type="DisruptionTarget", status="True", reason="PreemptionByScheduler")
        ]
    return built


def pdb(
    match: Mapping[str, str],
    allowed: int,
    *,
    name: str = "pdb",
    disrupted: Sequence[str] = (),
    min_available: int | str | None = None,
) -> PodDisruptionBudget:
    spec: dict[str, Any] = {"selector": {"matchLabels": dict(match)}}
    if min_available is not None:
        spec["minAvailable"] = min_available
    return PodDisruptionBudget.model_validate(
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": spec,
            "status": {
                "disruptionsAllowed": allowed,
                "disruptedPods": {p: "2026-01-01T00:00:00Z" for p in disrupted},
            },
        }
    )


def statuses(
    codes: Mapping[str, Code], absent: Code = Code.UnschedulableAndUnresolvable
) -> NodeToStatus:
    """upstream framework.NewNodeToStatus(map, absent) with reason-less statuses."""
    m = NodeToStatus(Status(absent))
    for name, code in codes.items():
        m.set(name, Status(code))
    return m


# -- a cluster that records what preemption does ----------------------------------------


class RecordingCluster:
    """The part of `Cluster` preemption uses, over a dict, recording every write."""

    def __init__(self, pods: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget] = ()) -> None:
        self.pods = {(p.metadata.namespace, p.metadata.name): p for p in pods}
        self.pdbs = list(pdbs)
        self.deleted: list[str] = []
        self.conditions: list[tuple[str, PodCondition, str | None]] = []
        self.updated: list[Pod] = []

    def get(self, kind: str, name: str, namespace: str | None = None) -> Any:
        return self.pods.get((namespace or "default", name)) if kind == "Pod" else None

    def list(self, kind: str) -> list[Any]:
        return list(self.pdbs) if kind == "PodDisruptionBudget" else []

    async def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        if self.pods.pop((namespace or "default", name), None) is None:
            raise NotFoundError("pods", name)
        self.deleted.append(name)

    async def update(self, obj: Pod) -> Pod:
        key = (obj.metadata.namespace or "default", obj.metadata.name)
        if key not in self.pods:
            raise NotFoundError("pods", obj.metadata.name)
        self.pods[key] = obj
        self.updated.append(obj)
        return obj

    async def update_pod_condition(
        self, pod: Pod, condition: PodCondition, nominated_node_name: str | None = None
    ) -> None:
        self.conditions.append((pod.metadata.name, condition, nominated_node_name))


class _Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, str, str]] = []
        self.related: list[str | None] = []
        """The related object's name of each event (Preempted: the preemptor)."""

    def event(
        self,
        obj: Any,
        event_type: str,
        reason: str,
        action: str,
        message: str,
        related: Any = None,
    ) -> None:
        self.events.append((obj.metadata.name, event_type, reason, action, message))
        self.related.append(None if related is None else related.metadata.name)


class _Nominator:
    def __init__(self) -> None:
        self.by_node: dict[str, list[PodInfo]] = {}

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return list(self.by_node.get(node_name, ()))

    def has_nominated_pods(self) -> bool:
        return bool(self.by_node)

    def nodes_with_nominated_pods(self) -> set[str]:
        return {name for name, pods in self.by_node.items() if pods}

    def nominated_pods_by_node(self) -> dict[str, list[PodInfo]]:
        return {name: pods for name, pods in self.by_node.items() if pods}


# -- small plugins from upstream's testing/framework -------------------------------------


class CountingFilter(FilterPlugin):
    """upstream FakeFilterPlugin: counts calls, returns `codes[node]` (default Success)."""

    name: ClassVar[str] = "FakeFilter"

    def __init__(self, args: BaseModel, handle: Any) -> None:
        super().__init__(args, handle)
        self.calls = 0
        self.codes: dict[str, Code] = {}

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.calls += 1
        code = self.codes.get(node_info.name, Code.Success)
        return Status(code, f"injecting failure for pod {pod.metadata.name}")


class TrueFilter(FilterPlugin):
    name: ClassVar[str] = "TrueFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class FalseFilter(FilterPlugin):
    name: ClassVar[str] = "FalseFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("injecting failure for pod")


class MatchFilter(FilterPlugin):
    """Passes only the node named like the pod."""

    name: ClassVar[str] = "MatchFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if node_info.name == pod.metadata.name:
            return None
        return Status.unschedulable("node didn't match")


class ErrorOnLabelPlugin(PreFilterPlugin):
    """upstream's TestPlugin: AddPod/RemovePod fail on nodes labelled error=true."""

    name: ClassVar[str] = "test-plugin"

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return self

    def _check(self, what: str, pod: Pod, node_info: NodeInfo) -> Status | None:
        assert node_info.node is not None
        if node_info.node.metadata.labels.get("error") == "true":
            return Status.as_error(f"failed to {what} pod: {pod.metadata.name}")
        return None

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self._check("add", pod_to_schedule, node_info)

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        return self._check("remove", pod_to_schedule, node_info)


# -- a framework with DefaultPreemption ----------------------------------------------------


class PreemptionEnv:
    """A real Framework over a snapshot of `nodes` and `pods`, and its DefaultPreemption."""

    def __init__(
        self,
        fwk: Framework,
        cluster: RecordingCluster,
        recorder: _Recorder,
        nominator: _Nominator,
    ) -> None:
        self.fwk = fwk
        self.cluster = cluster
        self.recorder = recorder
        self.nominator = nominator
        plugin = fwk.plugins[DefaultPreemption.name]
        assert isinstance(plugin, DefaultPreemption)
        self.plugin = plugin

    def node_infos(self) -> list[NodeInfo]:
        return list(self.fwk.snapshot.list())

    def pre_filter(self, pod: Pod) -> CycleState:
        state = CycleState()
        _, status, _ = self.fwk.run_pre_filter_plugins(state, pod, self.node_infos())
        assert status.is_success, status
        return state

    def post_filter(
        self, pod: Pod, node_statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        """PostFilter inside an event loop, then wait for the evictions it started."""

        async def run() -> tuple[PostFilterResult | None, Status | None]:
            result = self.plugin.post_filter(self.pre_filter(pod), pod, node_statuses)
            while self.plugin.evaluator.tasks:
                await asyncio.gather(*self.plugin.evaluator.tasks)
            return result

        return asyncio.run(run())


def preemption_env(
    nodes: Sequence[Node],
    pods: Sequence[Pod],
    *,
    preemptor: Pod | None = None,
    pdbs: Sequence[PodDisruptionBudget] = (),
    filters: Sequence[type[Any]] = (NodeResourcesFit,),
    pre_filters: Sequence[type[Any]] = (),
    args: Mapping[str, int] | None = None,
) -> PreemptionEnv:
    """`filters` run at Filter (and PreFilter, when they are PreFilter plugins too)."""
    classes: list[type[Any]] = [
        PrioritySort,
        DefaultBinder,
        DefaultPreemption,
        *filters,
        *pre_filters,
    ]
    points = {
        "QueueSort": [PrioritySort.name],
        "PreFilter": [c.name for c in [*filters, *pre_filters] if issubclass(c, PreFilterPlugin)],
        "Filter": [c.name for c in filters],
        "PostFilter": [DefaultPreemption.name],
        "Bind": [DefaultBinder.name],
    }
    spec = ResolvedProfile(
        scheduler_name="default-scheduler",
        points=points,
        weights={},
        args={DefaultPreemption.name: DefaultPreemptionArgs.model_validate(args or {})},
    )
    cluster = RecordingCluster([*pods, *([preemptor] if preemptor else [])], pdbs)
    recorder = _Recorder()
    nominator = _Nominator()
    fwk = Framework(
        spec,
        {c.name: c for c in classes},
        cluster=cluster,
        clock=VirtualClock(),
        snapshot=Snapshot(node_infos(list(nodes), list(pods))),
        event_recorder=recorder,
        nominator=nominator,
    )
    return PreemptionEnv(fwk, cluster, recorder, nominator)


def nodes_named(*names: str, alloc: Mapping[str, str] = VERY_LARGE) -> list[Node]:
    return [make_node(n).alloc(alloc).obj() for n in names]


__all__ += ["nodes_named"]


# -- the real scheduler ---------------------------------------------------------------------


def simulate(
    objects: Sequence[Any],
    *,
    seed: int = 0,
    until: float | None = None,
    hooks: Sequence[object] = (),
) -> tuple[Any, Any]:
    """Run the real scheduler on the memory cluster, on virtual time, with the builtin
    PrioritySort, NodeResourcesFit, DefaultPreemption and DefaultBinder in the default
    profile, and this distribution's hooks (the PDB kind and the disruption controller)
    and `hooks` (more hook implementations: controllers, say). Returns (SimulationResult,
    Simulation)."""
    from kubesched.config import parse_config, resolve
    from kubesched.runtime import PluginRegistry, make_plugin_manager
    from kubesched.simulate import Simulation
    from kubesched_builtin import hooks as builtin_hooks

    registry = PluginRegistry.of(PrioritySort, NodeResourcesFit, DefaultPreemption, DefaultBinder)
    config = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    resolved = resolve(parse_config(config), registry)
    pm = make_plugin_manager(load_entrypoints=False)
    pm.register(builtin_hooks)
    for extra in hooks:
        pm.register(extra)
    sim = Simulation(objects, resolved, registry, seed=seed, until=until, hooks=pm)
    return sim.run(), sim


__all__ += ["simulate"]
