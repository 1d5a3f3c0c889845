"""Applying a fault plan (`_faults`): the scheduler's view of the embedded cluster and its
profiles, wrapped. Built only when a plan is given, so a run without one pays nothing.

- `FaultyCluster` is the cluster the scheduler and its plugins are given: its `bind`
  answers 500 or 409 (`bindError`), and its watches pass every event through an informer
  of ours that drops, duplicates or holds events and lists again (`watch`, `relist`). The
  controllers keep the memory cluster itself, as they would their own API connections.
- `FaultyFramework` is each profile (the `framework` factory of `new_scheduler`, as `kubesched
  run`'s instrumented one): plugins raising at a point, PreBind hanging, objects deleted
  between Reserve and binding, relists started mid-cycle; and it keeps the `ReserveLedger`
  the invariants read (every Reserve is unreserved or bound).

What fired is kept in `FaultInjector.fired` and becomes the report's `faults` section.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import functools
import inspect
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from kubesched._errors import ConflictError, KubeschedError, ManifestError
from kubesched.api import KindRegistry, Pod, PodCondition
from kubesched.clock import Clock
from kubesched.cluster import Cluster, EventHandler, KubeEvent, WatchEvent
from kubesched.config import ResolvedConfig, ResolvedProfile
from kubesched.framework import (
    Code,
    CycleState,
    NodeInfo,
    Plugin,
    PreFilterResult,
    QueuedPodInfo,
    Status,
)
from kubesched.hookspecs import ReportSection
from kubesched.runtime import Framework
from kubesched.runtime._wrapped_plugin import WrappedPlugin
from kubesched.scheduler import SchedulerObserver
from kubesched.simulate._faults import Fault, FaultPlan

__all__ = [
    "FaultInjector",
    "FaultyCluster",
    "FaultyFramework",
    "InjectedFault",
    "ReserveLedger",
    "check_fault_plan",
]

POD_GROUP_LABEL: Final = "scheduling.x-k8s.io/pod-group"
"""scheduler-plugins' label naming a pod's PodGroup (apis/scheduling/v1alpha1)."""

_DEADLINE: Final = "context deadline exceeded"
"""Go's context.DeadlineExceeded message, what a PreBind that timed out returns."""

_MODIFIED: Final = (
    "the object has been modified; please apply your changes to the latest version and try again"
)

_POINT_METHODS: Final = {
    "PreFilter": ("pre_filter",),
    "Filter": ("filter", "filter_nodes", "filter_mask"),
    "PostFilter": ("post_filter",),
    "PreScore": ("pre_score",),
    "Score": ("score", "score_nodes", "score_array"),
    "Reserve": ("reserve",),
    "Permit": ("permit",),
    "PreBind": ("pre_bind",),
    "Bind": ("bind",),
    "PostBind": ("post_bind",),
}
"""The methods of a plugin that answer for an extension point (its batch and array forms
included, so the fast path fails as the per-node path does)."""

_FORMS: Final = {
    "filter_nodes": "_batch_filters",
    "filter_mask": "_array_filters",
    "score_nodes": "_batch_scorers",
    "score_array": "_array_scorers",
}
"""The Framework's tables of the batch and array forms, taken from the plugins when built."""


class InjectedFault(KubeschedError):
    """What a plan makes a plugin raise or the API server answer (an InternalError)."""


@dataclass(frozen=True)
class Fired:
    """One time a fault fired: the fault's index, the virtual time, what it hit and the
    pod whose cycle it was (uid, when there was one)."""

    fault: int
    at: float
    target: str
    pod: str | None = None


def check_fault_plan(plan: FaultPlan, config: ResolvedConfig, kinds: KindRegistry) -> None:
    """A plan that can fire with this configuration: its plugins are at their points in a
    profile, its kinds are served (ManifestError naming the file and field otherwise, so a
    typo is not a fault that silently never fires)."""
    at_point: dict[str, set[str]] = {}
    for profile in config.profiles:
        for point, names in profile.points.items():
            at_point.setdefault(point, set()).update(names)

    def error(fault: Fault, key: str, detail: str) -> ManifestError:
        return ManifestError(
            detail, file=plan.file, path=f"faults[{fault.index}].{fault.action}.{key}"
        )

    for fault in plan.faults:
        spec = fault.spec
        if fault.action in ("pluginError", "preBindTimeout"):
            point = spec.get("extensionPoint", "PreBind")
            have = at_point.get(point, set())
            if spec["plugin"] not in have:
                listed = ", ".join(sorted(have)) or "none"
                raise error(
                    fault,
                    "plugin",
                    f'no profile runs plugin "{spec["plugin"]}" at {point} '
                    f"(its {point} plugins: {listed})",
                )
        kind_list = (
            [spec["kind"]]
            if fault.action in ("watch", "deleteBeforeBind")
            else spec["kinds"]
            if fault.action == "relist"
            else []
        )
        for kind in kind_list:
            if kind not in kinds:
                raise error(
                    fault,
                    "kind" if fault.action != "relist" else "kinds",
                    f'kind "{kind}" is not served by this cluster '
                    "(a plugin package not installed?)",
                )


@dataclass
class ReserveLedger:
    """Every pod Reserve ran for, until it is unreserved or bound: what the invariant
    "Unreserve ran for every Reserve that did not bind" reads (`open`)."""

    reserved: dict[str, tuple[str, str]] = field(default_factory=dict)
    """pod uid → (namespace/name, node) of a Reserve not yet unreserved nor bound."""
    reserves: int = 0
    unreserves: int = 0
    binds: int = 0

    def reserve(self, pod: Pod, node: str) -> None:
        self.reserves += 1
        self.reserved[pod.metadata.uid] = (pod.key, node)

    def unreserve(self, pod: Pod) -> None:
        self.unreserves += 1
        self.reserved.pop(pod.metadata.uid, None)

    def bound(self, pod: Pod) -> None:
        self.binds += 1
        self.reserved.pop(pod.metadata.uid, None)


class FaultInjector:
    """A plan's faults, its random draws and what fired."""

    def __init__(self, plan: FaultPlan, clock: Clock, seed: int) -> None:
        self.plan = plan
        self.clock = clock
        self.rng = random.Random(plan.seed if plan.seed is not None else seed)
        self.fired: list[Fired] = []
        self.counts = [0] * len(plan.faults)
        self.ledger = ReserveLedger()
        self.cluster: FaultyCluster | None = None
        self.retry: set[str] = set()
        """Pods a fault that may not fire again (limited `times`, `probability` < 1) hit in
        their last attempt: their retry after backoff may end otherwise, so a simulation
        is not quiescent while they back off."""
        self.observer = _AttemptStarts(self.retry)
        self.pre_binding: dict[str, float] = {}
        """Pods whose PreBind is running (uid → since when): assumed, out of the queue,
        waiting on a plugin (VolumeBinding waits for the PV controller) or on a
        `preBindTimeout`."""
        self._by_action: dict[str, list[Fault]] = {}
        for fault in plan.faults:
            self._by_action.setdefault(fault.action, []).append(fault)

    def faults(self, action: str) -> list[Fault]:
        return self._by_action.get(action, [])

    def draw(self, fault: Fault, target: str, pod: Pod | None = None) -> bool:
        """Whether `fault` fires now (on `pod`, when it names pods); recorded when it does."""
        if self.clock.now() < fault.after:
            return False
        if fault.times is not None and self.counts[fault.index] >= fault.times:
            return False
        if fault.pods is not None and (pod is None or pod.key not in fault.pods):
            return False
        if fault.probability < 1 and self.rng.random() >= fault.probability:
            return False
        self.counts[fault.index] += 1
        uid = pod.metadata.uid if pod is not None else None
        self.fired.append(Fired(fault.index, self.clock.now(), target, uid))
        if pod is not None and (fault.probability < 1 or fault.times is not None):
            self.retry.add(pod.metadata.uid)
        return True

    def first(
        self, action: str, target: str, pod: Pod | None, match: Callable[[Fault], bool]
    ) -> Fault | None:
        """The first fault of `action` matching `match` that fires."""
        for fault in self.faults(action):
            if match(fault) and self.draw(fault, target, pod):
                return fault
        return None

    def relist(self, point: str, pod: Pod) -> None:
        """The `relist` faults at `point` that fire for this cycle: the informers list again
        once the cycle yields."""
        for fault in self.faults("relist"):
            fires = fault.spec["extensionPoint"] == point and self.draw(fault, pod.key, pod)
            if fires and self.cluster is not None:
                self.cluster.relist_soon(fault.spec["kinds"])

    def busy(self) -> bool:
        """Events held by a Delay are still to come."""
        return self.cluster is not None and self.cluster.holding()

    def by_kind(self) -> dict[str, int]:
        """How often each action fired."""
        out: dict[str, int] = {}
        for fired in self.fired:
            action = self.plan.faults[fired.fault].action
            out[action] = out.get(action, 0) + 1
        return out

    def section(self) -> ReportSection:
        """The report's `faults` section: each fault, how often it fired, when first and on
        what; the payload `{"faults": [{"index", "fault", "fired", "firstAt", "targets"}],
        "reserve", "unreserve", "bound", "reservedNotBound"}` (the Reserve ledger)."""
        rows: list[list[str]] = []
        payload: list[dict[str, Any]] = []
        for fault in self.plan.faults:
            times = [f for f in self.fired if f.fault == fault.index]
            first = f"{times[0].at:g}s" if times else "-"
            targets = sorted({f.target for f in times})
            shown = ", ".join(targets[:3]) + (f" (+{len(targets) - 3})" if len(targets) > 3 else "")
            rows.append([str(fault.index), fault.describe(), str(len(times)), first, shown])
            payload.append(
                {
                    "index": fault.index,
                    "fault": fault.describe(),
                    "fired": len(times),
                    "firstAt": times[0].at if times else None,
                    "targets": targets,
                }
            )
        ledger = self.ledger
        summary = {
            "faults": payload,
            "reserve": ledger.reserves,
            "unreserve": ledger.unreserves,
            "bound": ledger.binds,
            "reservedNotBound": sorted(key for key, _ in ledger.reserved.values()),
        }
        caption = (
            f"{len(self.fired)} faults fired; Reserve {ledger.reserves}, Unreserve "
            f"{ledger.unreserves}, bound {ledger.binds}, reserved and not yet bound "
            f"{len(ledger.reserved)}"
        )
        title = f"Faults ({self.plan.name or self.plan.file})"
        columns = ["#", "Fault", "Fired", "First", "Targets"]
        return ReportSection("faults", title, columns, rows, summary, caption)


class _AttemptStarts(SchedulerObserver):
    """Forgets a pod's fault hits when its next attempt starts."""

    def __init__(self, retry: set[str]) -> None:
        self.retry = retry

    def attempt_started(self, qpi: QueuedPodInfo, fwk: Framework, state: CycleState) -> None:
        self.retry.discard(qpi.uid)


# -- the cluster as the scheduler sees it ---------------------------------------------------
class _Informer:
    """One watch of the scheduler's, through the plan's watch faults: what it delivered is
    its store, which a relist compares the cluster with."""

    def __init__(self, owner: FaultyCluster, kind: str, handler: EventHandler) -> None:
        self.owner = owner
        self.kind = kind
        self.handler = handler
        self.store: dict[str, Any] = {}
        self.held: list[WatchEvent] = []
        self.release: asyncio.TimerHandle | None = None
        self.listed = 0
        """The cluster's resourceVersion at the last relist: older events are stale."""

    def deliver(self, event: WatchEvent) -> None:
        """A watch event as client-go's informer hands it on (shared_informer.go
        processDeltas): an add or update is an update when the store has the object and
        an add when it has not; a delete of what the store no longer has, or an event the
        last relist already covered (the Reflector watches again from the list's
        resourceVersion), is not delivered."""
        key = _key(event.obj)
        known = self.store.get(key)
        if event.type == "DELETED":
            if known is not None and known.metadata.uid == event.obj.metadata.uid:
                self.emit(event)
            return
        version = event.obj.metadata.resource_version
        if version and version.isdigit() and int(version) <= self.listed:
            return
        if known is None:
            self.emit(WatchEvent("ADDED", self.kind, event.obj))
        else:
            self.emit(WatchEvent("MODIFIED", self.kind, event.obj, known))

    def emit(self, event: WatchEvent) -> None:
        key = _key(event.obj)
        if event.type == "DELETED":
            self.store.pop(key, None)
        else:
            self.store[key] = event.obj
        self.handler(event)

    def on_event(self, event: WatchEvent) -> None:
        if self.held:
            self.held.append(event)
            return
        fault = self.owner.decide(self.kind, event)
        if fault is None:
            self.deliver(event)
            return
        action = fault.spec["action"]
        if action == "Drop":
            return
        if action == "Duplicate":
            self.deliver(event)
            if self.store.get(_key(event.obj)) is event.obj:
                self.emit(WatchEvent("MODIFIED", self.kind, event.obj, event.obj))
            return
        self.held.append(event)
        loop = asyncio.get_running_loop()
        self.release = loop.call_later(fault.spec["delay"], self.flush_held)

    def flush_held(self) -> None:
        held, self.held, self.release = self.held, [], None
        for event in held:
            self.deliver(event)

    def relist(self) -> None:
        """List again (a Reflector's Replace): held events are superseded; every listed
        object is an add or an update, every one gone a delete."""
        if self.release is not None:
            self.release.cancel()
        self.held, self.release = [], None
        self.listed = int(getattr(self.owner.inner, "resource_version", 0))
        current = {_key(o): o for o in self.owner.inner.list(self.kind)}
        for key, old in list(self.store.items()):
            if key not in current or current[key].metadata.uid != old.metadata.uid:
                self.emit(WatchEvent("DELETED", self.kind, old))
        for key, obj in current.items():
            old = self.store.get(key)
            if old is None:
                self.emit(WatchEvent("ADDED", self.kind, obj))
            else:
                self.emit(WatchEvent("MODIFIED", self.kind, obj, old))


def _key(obj: Any) -> str:
    meta = obj.metadata
    return f"{meta.namespace}/{meta.name}" if meta.namespace else str(meta.name)


class FaultyCluster(Cluster):
    """The cluster the scheduler and its plugins are given when a plan is: the memory
    cluster's API with the plan's bind and watch faults."""

    def __init__(self, inner: Cluster, injector: FaultInjector) -> None:
        self.inner = inner
        self.injector = injector
        self.kinds = inner.kinds
        self.informers: list[_Informer] = []
        self._decided: dict[tuple[str, ...], tuple[Fault | None, int]] = {}
        """Events some handlers of their kind have seen: their fault, how many saw them."""
        injector.cluster = self

    def __getattr__(self, name: str) -> Any:  # what only the memory cluster has
        return getattr(self.inner, name)

    def watch(self, kind: str, handler: EventHandler) -> None:
        informer = _Informer(self, kind, handler)
        self.informers.append(informer)
        self.inner.watch(kind, informer.on_event)

    def decide(self, kind: str, event: WatchEvent) -> Fault | None:
        """The watch fault that fires on this event, drawn once for every handler of its
        kind (one watch per kind, as client-go's shared informers have: a dropped event is
        lost to all of them). An event is known by its type, object and resourceVersion
        (the memory cluster's replay hands each handler its own copy)."""
        meta = event.obj.metadata
        change = (event.type, kind, _key(event.obj), meta.uid, meta.resource_version)
        decided = self._decided.get(change)
        if decided is None:
            decided = (self._draw_watch(kind, event), 0)
        seen = decided[1] + 1
        if seen >= sum(1 for i in self.informers if i.kind == kind):
            self._decided.pop(change, None)
        else:
            self._decided[change] = (decided[0], seen)
        return decided[0]

    def _draw_watch(self, kind: str, event: WatchEvent) -> Fault | None:
        injector = self.injector
        for fault in injector.faults("watch"):
            spec = fault.spec
            if spec["kind"] != kind or spec["eventType"] not in (None, event.type):
                continue
            if spec["action"] == "Duplicate" and event.type == "DELETED":
                continue  # an informer's store has nothing left to delete a second time
            if injector.draw(fault, f"{event.type} {kind} {_key(event.obj)}"):
                return fault
        return None

    def relist_soon(self, kinds: builtins.list[str]) -> None:
        """Relist the informers of `kinds` once the running cycle yields (the watch events
        of the memory cluster are delivered so too)."""
        loop = asyncio.get_running_loop()
        for informer in self.informers:
            if informer.kind in kinds:
                loop.call_soon(informer.relist)

    def holding(self) -> bool:
        return any(i.held for i in self.informers)

    def list(self, kind: str) -> builtins.list[Any]:
        return self.inner.list(kind)

    def get(self, kind: str, name: str, namespace: str | None = None) -> Any | None:
        return self.inner.get(kind, name, namespace)

    async def wait_for_sync(self) -> None:
        await self.inner.wait_for_sync()

    async def create(self, obj: Any) -> Any:
        return await self.inner.create(obj)

    async def update(self, obj: Any) -> Any:
        return await self.inner.update(obj)

    async def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        await self.inner.delete(kind, name, namespace)

    async def bind(self, pod: Pod, node_name: str) -> None:
        fault = self.injector.first("bindError", pod.key, pod, lambda f: True)
        if fault is not None:
            if fault.spec["reason"] == "Conflict":
                raise ConflictError("pods/binding", pod.metadata.name, _MODIFIED)
            raise InjectedFault(
                f"Internal error occurred: injected fault {fault.index} (bindError)"
            )
        await self.inner.bind(pod, node_name)

    async def update_pod_condition(
        self, pod: Pod, condition: PodCondition, nominated_node_name: str | None = None
    ) -> None:
        await self.inner.update_pod_condition(pod, condition, nominated_node_name)

    async def record_event(self, event: KubeEvent) -> None:
        await self.inner.record_event(event)

    def events(self) -> builtins.list[KubeEvent]:
        return self.inner.events()


# -- the profiles ---------------------------------------------------------------------------
class FaultyFramework(Framework):
    """A profile with the plan's plugin faults, deletions between Reserve and binding,
    relists mid-cycle and the Reserve ledger. Built by `new_scheduler(framework=
    functools.partial(FaultyFramework, injector=...))`."""

    def __init__(
        self,
        profile: ResolvedProfile,
        plugin_classes: Mapping[str, type[Plugin]],
        *,
        injector: FaultInjector,
        **handle: Any,
    ) -> None:
        super().__init__(profile, plugin_classes, **handle)
        self.injector = injector
        self._deleting: set[asyncio.Task[None]] = set()
        methods: dict[str, dict[str, Callable[..., Any]]] = {}
        for fault in injector.faults("pluginError"):
            name, point = fault.spec["plugin"], fault.spec["extensionPoint"]
            plugin = self.plugins.get(name)
            if plugin is None:
                continue
            for method in _POINT_METHODS[point]:
                call = getattr(plugin, method, None)
                if call is None:
                    continue
                call = methods.get(name, {}).get(method, call)
                methods.setdefault(name, {})[method] = self._raising(call, fault, point)
        for fault in injector.faults("preBindTimeout"):
            plugin = self.plugins.get(fault.spec["plugin"])
            if plugin is not None and hasattr(plugin, "pre_bind"):
                call = methods.get(plugin.name, {}).get("pre_bind", plugin.pre_bind)
                methods.setdefault(plugin.name, {})["pre_bind"] = self._hanging(call, fault)
        if not methods:
            return
        # a plugin with the plan's methods, all else its own (the wrapper metrics use too)
        wrapped = {
            n: WrappedPlugin(p, methods[n]) if n in methods else p for n, p in self.plugins.items()
        }
        self._use_wrapped(wrapped)
        for name, replaced in methods.items():
            for method, table in _FORMS.items():
                forms: dict[str, Any] = getattr(self, table)
                if method in replaced and name in forms:
                    forms[name] = replaced[method]

    def _raising(self, call: Callable[..., Any], fault: Fault, point: str) -> Callable[..., Any]:
        injector = self.injector
        message = f"injected fault {fault.index}: {fault.spec['plugin']} failed at {point}"

        def check(pod: Pod) -> None:
            if injector.draw(fault, pod.key, pod):
                raise InjectedFault(message)

        if inspect.iscoroutinefunction(call):

            @functools.wraps(call)
            async def failing_async(state: CycleState, pod: Pod, *args: Any) -> Any:
                check(pod)
                return await call(state, pod, *args)

            return failing_async

        @functools.wraps(call)
        def failing(state: CycleState, pod: Pod, *args: Any) -> Any:
            check(pod)
            return call(state, pod, *args)

        return failing

    def _hanging(self, call: Callable[..., Any], fault: Fault) -> Callable[..., Any]:
        injector = self.injector

        @functools.wraps(call)
        async def pre_bind(state: CycleState, pod: Pod, node_name: str) -> Any:
            if not injector.draw(fault, pod.key, pod):
                return await call(state, pod, node_name)
            await asyncio.sleep(fault.spec["after"])
            return Status(Code.Error, _DEADLINE)

        return pre_bind

    # -- the runners the plan reaches ---------------------------------------------------
    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        self.injector.relist("PreFilter", pod)
        return super().run_pre_filter_plugins(state, pod, nodes)

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        self.injector.ledger.reserve(pod, node_name)
        self.injector.relist("Reserve", pod)
        return super().run_reserve_plugins_reserve(state, pod, node_name)

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        super().run_reserve_plugins_unreserve(state, pod, node_name)
        self.injector.ledger.unreserve(pod)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        self.injector.relist("Permit", pod)
        status = super().run_permit_plugins(state, pod, node_name)
        if status.is_wait:
            group = pod.metadata.labels.get(POD_GROUP_LABEL)
            if group and self._deletes(pod, "PodGroup"):
                self._delete_soon([("PodGroup", group, pod.metadata.namespace)])
        return status

    async def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        targets: list[tuple[str, str, str | None]] = []
        for fault in self.injector.faults("deleteBeforeBind"):
            kind = fault.spec["kind"]
            if kind == "PodGroup":
                continue
            found = self._related(pod, node_name, kind, fault.spec.get("name"))
            if found and self.injector.draw(
                fault, f"{kind} {', '.join(n for _, n, _ in found)}", pod
            ):
                targets.extend(found)
        for kind, name, namespace in targets:
            await self._delete(kind, name, namespace)
        pre_binding = self.injector.pre_binding
        pre_binding[pod.metadata.uid] = self.injector.clock.now()
        try:
            return await super().run_pre_bind_plugins(state, pod, node_name)
        finally:
            pre_binding.pop(pod.metadata.uid, None)

    async def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        status = await super().run_bind_plugins(state, pod, node_name)
        if status.is_success:
            self.injector.ledger.bound(pod)
        return status

    # -- deletions ----------------------------------------------------------------------
    def _deletes(self, pod: Pod, kind: str) -> bool:
        return (
            self.injector.first(
                "deleteBeforeBind", f"{kind} of {pod.key}", pod, lambda f: f.spec["kind"] == kind
            )
            is not None
        )

    def _related(
        self, pod: Pod, node_name: str, kind: str, name: str | None
    ) -> list[tuple[str, str, str | None]]:
        """The objects of `kind` the pod needs: its node, its claims, their volumes (or the
        Available ones of their class, which binding may pick), its resource claims."""
        cluster = self.injector.cluster.inner if self.injector.cluster else self.cluster
        ns = pod.metadata.namespace or "default"
        if kind == "Node":
            return [("Node", node_name, None)] if cluster.get("Node", node_name) else []
        claims = _claim_names(pod)
        if kind == "PersistentVolumeClaim":
            return [
                ("PersistentVolumeClaim", c, ns)
                for c in claims
                if cluster.get("PersistentVolumeClaim", c, ns)
            ]
        if kind == "PersistentVolume":
            if name is not None:
                return (
                    [("PersistentVolume", name, None)]
                    if cluster.get("PersistentVolume", name)
                    else []
                )
            return [("PersistentVolume", n, None) for n in _volumes_of(cluster, ns, claims)]
        names = [c.resource_claim_name for c in pod.spec.resource_claims if c.resource_claim_name]
        names += [
            s.resource_claim_name
            for s in pod.status.resource_claim_statuses
            if s.resource_claim_name
        ]
        return [
            ("ResourceClaim", n, ns)
            for n in dict.fromkeys(names)
            if cluster.get("ResourceClaim", n, ns)
        ]

    async def _delete(self, kind: str, name: str, namespace: str | None) -> None:
        cluster = self.injector.cluster.inner if self.injector.cluster else self.cluster
        with contextlib.suppress(KubeschedError):  # gone already (another member's fault)
            await cluster.delete(kind, name, namespace)

    def _delete_soon(self, targets: list[tuple[str, str, str | None]]) -> None:
        loop = asyncio.get_running_loop()
        for kind, name, namespace in targets:
            task = loop.create_task(self._delete(kind, name, namespace))
            self._deleting.add(task)
            task.add_done_callback(self._deleting.discard)


def _claim_names(pod: Pod) -> list[str]:
    """The PersistentVolumeClaims of a pod's volumes (an ephemeral volume's is
    `<pod>-<volume>`, upstream ephemeral.VolumeClaimName)."""
    names = []
    for volume in pod.spec.volumes:
        if volume.persistent_volume_claim:
            names.append(str(volume.persistent_volume_claim.get("claimName", "")))
        elif volume.ephemeral is not None:
            names.append(f"{pod.metadata.name}-{volume.name}")
    return [n for n in names if n]


def _volumes_of(cluster: Cluster, namespace: str, claims: list[str]) -> list[str]:
    out: list[str] = []
    classes: set[str] = set()
    for name in claims:
        pvc = cluster.get("PersistentVolumeClaim", name, namespace)
        if pvc is None:
            continue
        if pvc.spec.volume_name:
            out.append(pvc.spec.volume_name)
        else:
            classes.add(pvc.spec.storage_class_name or "")
    for pv in cluster.list("PersistentVolume"):
        ref = pv.spec.claim_ref
        if (ref is not None and ref.namespace == namespace and ref.name in claims) or (
            ref is None and pv.spec.storage_class_name in classes
        ):
            out.append(pv.metadata.name)
    return list(dict.fromkeys(out))
