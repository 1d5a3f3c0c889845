"""Builders for the queue tests: pods, a PrioritySort-like `less`, tiny fake plugins."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from kubesched.api import Pod
from kubesched.clock import Clock
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EnqueueExtensions,
    EventResource,
    Handle,
    NoArgs,
    PreEnqueuePlugin,
    QueuedPodInfo,
    QueueingHint,
    QueueingHintFn,
    Status,
)
from kubesched.queue import QueueProfile, SchedulingQueue
from kubesched.testing import make_pod as builder

DEFAULT = "default-scheduler"


def make_pod(
    name: str,
    *,
    priority: int | None = None,
    labels: Mapping[str, str] | None = None,
    gates: Sequence[str] = (),
    cpu: str | None = None,
    nominated: str = "",
    node: str = "",
    scheduler: str = DEFAULT,
) -> Pod:
    """A one-container pod of `scheduler` (kubesched.testing's builder, these tests' defaults)."""
    pod = builder(name).scheduler(scheduler).label(**(labels or {}))
    pod = pod.req(cpu=cpu) if cpu is not None else pod.container()
    if priority is not None:
        pod.priority(priority)
    if gates:
        pod.gates(*gates)
    if node:
        pod.node(node)
    if nominated:
        pod.nominated(nominated)
    return pod.obj()


def with_changes(pod: Pod, **spec_or_meta: Any) -> Pod:
    """A copy of `pod` with `labels=` (metadata) or spec fields (snake_case) replaced."""
    new = pod.model_copy(deep=True)
    for key, value in spec_or_meta.items():
        if key == "labels":
            new.metadata.labels = dict(value)
        elif key == "nominated":
            new.status.nominated_node_name = value
        else:
            setattr(new.spec, key, value)
    return new


def priority_less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    """PrioritySort: higher priority first, then earlier timestamp."""
    pa, pb = a.pod.priority, b.pod.priority
    return pa > pb or (pa == pb and a.timestamp < b.timestamp)


_NO_HANDLE = cast(Handle, None)


class GatesPlugin(PreEnqueuePlugin, EnqueueExtensions):
    """SchedulingGates-like: gates pods that have scheduling gates."""

    name = "SchedulingGates"

    def __init__(self) -> None:
        super().__init__(NoArgs(), _NO_HANDLE)
        self.calls = 0

    def pre_enqueue(self, pod: Pod) -> Status | None:
        self.calls += 1
        if pod.spec.scheduling_gates:
            names = " ".join(g.name for g in pod.spec.scheduling_gates)
            return Status.unresolvable(f"waiting for scheduling gates: [{names}]")
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        def same_pod(pod: Pod, old: Any, new: Any) -> QueueingHint:
            ok = isinstance(new, Pod) and new.metadata.uid == pod.metadata.uid
            return QueueingHint.Queue if ok else QueueingHint.QueueSkip

        event = ClusterEvent(
            EventResource.UnscheduledPod, ActionType.UpdatePodSchedulingGatesEliminated
        )
        return [ClusterEventWithHint(event, same_pod)]


class LabelGate(PreEnqueuePlugin):
    """Gates pods labelled `hold=yes`; registers nothing (only wildcard/timeout help)."""

    name = "LabelGate"

    def __init__(self) -> None:
        super().__init__(NoArgs(), _NO_HANDLE)

    def pre_enqueue(self, pod: Pod) -> Status | None:
        return Status.unschedulable("held") if pod.metadata.labels.get("hold") == "yes" else None


def node_hint(wanted_label: str) -> QueueingHintFn:
    """Queue only when the new node carries `wanted_label`."""

    def hint(pod: Pod, old: Any, new: Any) -> QueueingHint:
        labels = new.get("labels", {}) if isinstance(new, dict) else {}
        return QueueingHint.Queue if wanted_label in labels else QueueingHint.QueueSkip

    return hint


NODE_ADD = ClusterEvent(EventResource.Node, ActionType.Add)
PV_ADD = ClusterEvent(EventResource.PersistentVolume, ActionType.Add)
WILDCARD = ClusterEvent(EventResource.Wildcard, ActionType.All)


def make_queue(
    clock: Clock,
    *,
    pre_enqueue: Sequence[PreEnqueuePlugin] = (),
    hints: Mapping[str, list[ClusterEventWithHint]] | None = None,
    less: Callable[[QueuedPodInfo, QueuedPodInfo], bool] = priority_less,
    pop_from_backoff: bool | None = None,
) -> SchedulingQueue:
    """A one-profile queue; `pop_from_backoff` None follows the SchedulerPopFromBackoffQ
    gate (on by default, as in v1.34)."""
    all_hints: dict[str, list[ClusterEventWithHint]] = {
        # NodeFit: moved by node adds carrying label "big"; Waiter: by node adds, always.
        "NodeFit": [ClusterEventWithHint(NODE_ADD, node_hint("big"))],
        "Waiter": [ClusterEventWithHint(NODE_ADD)],
        "Silent": [],
    }
    for plugin in pre_enqueue:
        if isinstance(plugin, EnqueueExtensions):
            all_hints[plugin.name] = plugin.events_to_register()
        else:
            all_hints[plugin.name] = [ClusterEventWithHint(WILDCARD)]
    all_hints.update(hints or {})
    profile = QueueProfile(pre_enqueue=list(pre_enqueue), hints=all_hints)
    return SchedulingQueue(clock, less, {DEFAULT: profile}, pop_from_backoff=pop_from_backoff)


def fail(
    queue: SchedulingQueue,
    pinfo: QueuedPodInfo,
    *,
    unschedulable: Sequence[str] = (),
    pending: Sequence[str] = (),
) -> None:
    """Report a failed attempt the way the scheduler does (rejection or, with no plugins, error)."""
    pinfo.unschedulable_plugins = set(unschedulable)
    pinfo.pending_plugins = set(pending)
    queue.add_unschedulable_if_not_present(pinfo, queue.scheduling_cycle)


def where(queue: SchedulingQueue, name: str) -> str | None:
    """Which part of the queue holds pod `name` (None: in no queue)."""
    for place, pods in queue.pending_pods().items():
        if any(p.pod.metadata.name == name for p in pods):
            return place
    return None
