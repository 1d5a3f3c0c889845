"""Informer handlers: cluster changes into the cache and the queue.

Upstream: pkg/scheduler/eventhandlers.go. Assigned pods feed the cache; unassigned pods of
our profiles feed the queue; every change becomes a ClusterEvent that may move rejected
pods. Terminal pods (Succeeded/Failed) count as deleted, as upstream's informer field
selector excludes them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, Final

from kubesched.api import Node, Pod
from kubesched.cache import SchedulerCache
from kubesched.cluster import Cluster, WatchEvent
from kubesched.framework import ActionType, ClusterEvent, EventResource
from kubesched.queue import SchedulingQueue
from kubesched.runtime import Framework
from kubesched.scheduler._observers import ObserverList

__all__ = ["EventHandlers", "node_change", "pod_change"]

_ASSIGNED_POD_DELETE = ClusterEvent(
    EventResource.AssignedPod, ActionType.Delete, "AssignedPodDelete"
)


def node_change(old: Node, new: Node) -> ActionType:
    """Which scheduling-relevant parts of a node changed (upstream
    nodeSchedulingPropertiesChange)."""
    bits = ActionType(0)
    if old.status.allocatable != new.status.allocatable:
        bits |= ActionType.UpdateNodeAllocatable
    if old.metadata.labels != new.metadata.labels:
        bits |= ActionType.UpdateNodeLabel
    if old.spec.taints != new.spec.taints or old.spec.unschedulable != new.spec.unschedulable:
        bits |= ActionType.UpdateNodeTaint
    if old.status.conditions != new.status.conditions:
        bits |= ActionType.UpdateNodeCondition
    if old.metadata.annotations != new.metadata.annotations:
        bits |= ActionType.UpdateNodeAnnotation
    return bits


def pod_change(old: Pod, new: Pod) -> ActionType:
    """Which scheduling-relevant parts of a pod changed."""
    bits = ActionType(0)
    if old.metadata.labels != new.metadata.labels:
        bits |= ActionType.UpdatePodLabel
    if old.spec.tolerations != new.spec.tolerations:
        bits |= ActionType.UpdatePodToleration
    if old.spec.scheduling_gates and not new.spec.scheduling_gates:
        bits |= ActionType.UpdatePodSchedulingGatesEliminated
    if [c.resources for c in old.spec.containers] != [c.resources for c in new.spec.containers]:
        bits |= ActionType.UpdatePodScaleDown
    return bits or ActionType.UpdateOther


def _assigned(pod: Pod) -> bool:
    return bool(pod.spec.node_name)


def _lower_or_equal_priority(priority: int) -> Callable[[Pod], bool]:
    # upstream getLEPriorityPreCheck (eventhandlers.go)
    return lambda p: p.priority <= priority


_NOT_QUEUE_EVENTS: Final = frozenset(
    {"Namespace", "PriorityClass", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"}
)
"""Kinds the scheduler reads but never turns into queue events: upstream has no
EventResource for them (pkg/scheduler/framework/types.go, eventhandlers.go), so even a
plugin registered for every event is not woken by a namespace, PriorityClass or workload
change (the workloads' pods bring their own events)."""


class EventHandlers:
    """The informer handlers of one scheduler: its cache, its queue and its profiles (which
    pods are ours); each change is reported to `observers` (`cluster_changed`, and
    `event_handled` with the handler's duration when some observer wants it)."""

    def __init__(
        self,
        cache: SchedulerCache,
        queue: SchedulingQueue,
        profiles: Mapping[str, Framework],
        observers: ObserverList,
    ) -> None:
        self._cache = cache
        self._queue = queue
        self._profiles = profiles
        self._observers = observers
        self._foreign: dict[str, Pod] = {}

    def register(self, cluster: Cluster) -> None:
        cluster.watch("Node", self._handler(self.on_node))
        cluster.watch("Pod", self._handler(self.on_pod))
        on_other = self._handler(self.on_other)
        for kind in cluster.kinds:
            if kind.kind not in ("Node", "Pod"):
                cluster.watch(kind.kind, on_other)

    def _handler(self, handle: Callable[[WatchEvent], None]) -> Callable[[WatchEvent], None]:
        """`handle`, timed for the observers when one of them wants handler durations
        (upstream eventhandlers.go: each handler observes metrics.EventHandlingLatency)."""
        observers = self._observers
        if not observers.times_events:
            return handle

        def timed(ev: WatchEvent) -> None:
            started = time.perf_counter()
            try:
                handle(ev)
            finally:
                observers.event_handled(ev, time.perf_counter() - started)

        return timed

    def foreign_pods(self) -> list[Pod]:
        return list(self._foreign.values())

    # -- nodes --------------------------------------------------------------------------
    def on_node(self, ev: WatchEvent) -> None:
        self._observers.cluster_changed()
        cache, queue = self._cache, self._queue
        if ev.type == "ADDED":
            cache.add_node(ev.obj)
            queue.on_cluster_event(ClusterEvent(EventResource.Node, ActionType.Add), None, ev.obj)
        elif ev.type == "MODIFIED":
            cache.update_node(ev.old, ev.obj)
            bits = node_change(ev.old, ev.obj)
            if bits:
                queue.on_cluster_event(ClusterEvent(EventResource.Node, bits), ev.old, ev.obj)
        else:
            cache.remove_node(ev.obj)
            event = ClusterEvent(EventResource.Node, ActionType.Delete)
            queue.on_cluster_event(event, ev.obj, None)

    # -- pods ---------------------------------------------------------------------------
    def on_pod(self, ev: WatchEvent) -> None:
        self._observers.cluster_changed()
        pod: Pod = ev.obj
        if ev.type == "DELETED" or (ev.type == "MODIFIED" and pod.is_terminal):
            self._pod_deleted(ev.old if ev.type == "MODIFIED" else pod)
        elif ev.type == "ADDED":
            if pod.is_terminal:
                return
            self._pod_added(pod)
        else:
            self._pod_updated(ev.old, pod)

    def _responsible(self, pod: Pod) -> bool:
        return pod.spec.scheduler_name in self._profiles

    def _pod_added(self, pod: Pod) -> None:
        if _assigned(pod):
            self._cache.add_pod(pod)
            event = ClusterEvent(EventResource.AssignedPod, ActionType.Add)
            self._queue.on_cluster_event(event, None, pod)
        elif self._responsible(pod):
            self._queue.add(pod)
        else:
            self._foreign[pod.metadata.uid] = pod

    def _pod_updated(self, old: Pod, new: Pod) -> None:
        cache, queue = self._cache, self._queue
        if _assigned(new):
            if not _assigned(old):  # just bound
                self._foreign.pop(new.metadata.uid, None)
                queue.delete(old)
                cache.add_pod(new)
                event = ClusterEvent(EventResource.AssignedPod, ActionType.Add)
                queue.on_cluster_event(event, None, new)
            else:
                cache.update_pod(old, new)
                event = ClusterEvent(EventResource.AssignedPod, pod_change(old, new))
                queue.on_cluster_event(event, old, new)
        elif self._responsible(new):
            if cache.is_assumed_pod(new):
                return
            queue.update(old, new)
            nominated = old.status.nominated_node_name
            if nominated and nominated != new.status.nominated_node_name:
                self._nomination_released(old)
        else:
            self._foreign[new.metadata.uid] = new

    def _pod_deleted(self, pod: Pod) -> None:
        self._foreign.pop(pod.metadata.uid, None)
        self._observers.pod_deleted(pod)
        if _assigned(pod):
            self._cache.remove_pod(pod)
            self.assigned_pod_freed(pod)
            return
        self._queue.delete(pod)
        fwk = self._profiles.get(pod.spec.scheduler_name)
        if fwk is None:
            return
        # a rejected waiting pod fails its binding cycle, which frees what it held
        if fwk.reject_waiting_pod(pod.metadata.uid):
            return
        if self._cache.is_assumed_pod(pod):
            self._assumed_pod_deleted(pod)
        elif pod.status.nominated_node_name:
            self._nomination_released(pod)

    def _assumed_pod_deleted(self, pod: Pod) -> None:
        """A pod deleted while the cache holds it assumed, not waiting at Permit: once its
        binding has finished it is forgotten at once, so what it held is free again. One
        still in its binding cycle is left to the cycle, as v1.34 leaves it: the binding of
        a pod that is gone fails, and the failure forgets it.

        Without this, a pod whose binding succeeded while the informer's watch was down, and
        that was deleted before the informer listed again, stayed assumed for good: the
        relist delivers its delete with the last state seen, still unassigned, so only this
        handler gets it, not the cache's (the soak against the fake API server, issue 18,
        filled every node with such pods). v1.34's deletePodFromSchedulingQueue only rejects
        a waiting pod; upstream's later eventhandlers.go (handleAssumedPodDeletion) forgets
        any assumed pod and moves the pods waiting (AssignedPodDelete), as here."""
        assumed = self._cache.get_pod(pod)  # the cached pod: the node it holds
        if assumed is None or not self._cache.is_binding_finished(assumed):
            return
        self._cache.forget_pod(assumed)
        self.assigned_pod_freed(assumed)

    def _nomination_released(self, pod: Pod) -> None:
        """A pod gave up its nominated node (deleted, or nominated elsewhere): pods of lower
        or equal priority, which counted it as if it were assigned there, may fit now.

        upstream: eventhandlers.go (updatePodInSchedulingQueue, deletePodFromSchedulingQueue;
        kubernetes#129058)"""
        self._queue.move_all_to_active_or_backoff(
            _ASSIGNED_POD_DELETE, pod, None, pre_check=_lower_or_equal_priority(pod.priority)
        )

    def assigned_pod_freed(self, pod: Pod) -> None:
        """An assigned (or assumed) pod's resources became free."""
        uid = pod.metadata.uid
        self._queue.move_all_to_active_or_backoff(
            _ASSIGNED_POD_DELETE, pod, None, pre_check=lambda p: p.metadata.uid != uid
        )

    # -- changes plugins report (Handle.report_cluster_event) ----------------------------
    def on_plugin_event(self, event: ClusterEvent, old: Any, new: Any) -> None:
        """A change a plugin saw in its own state (an assumption undone in its cache, say)
        that no watch will deliver: handled as an informer event of that resource, so the
        rejected pods it may help are offered to their queueing hints. (Upstream wires the
        DRA ResourceClaim assume cache's handlers the same way, eventhandlers.go.)"""
        self._observers.cluster_changed()
        self._queue.on_cluster_event(event, old, new)

    # -- kinds plugin packages registered -----------------------------------------------
    def on_other(self, ev: WatchEvent) -> None:
        self._observers.cluster_changed()
        if ev.kind in _NOT_QUEUE_EVENTS:
            return
        action = {
            "ADDED": ActionType.Add,
            "MODIFIED": ActionType.UpdateOther,
            "DELETED": ActionType.Delete,
        }[ev.type]
        old: Any = ev.old if ev.type == "MODIFIED" else (ev.obj if ev.type == "DELETED" else None)
        new: Any = None if ev.type == "DELETED" else ev.obj
        self._queue.on_cluster_event(ClusterEvent(ev.kind, action), old, new)
