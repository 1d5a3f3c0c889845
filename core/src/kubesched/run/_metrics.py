"""Scheduler metrics under upstream's names, HELP texts (with component-base's stability
prefix), labels and buckets (pkg/scheduler/metrics/metrics.go, v1.34), each recorded where
upstream records it:

- schedule_one.go: `scheduler_schedule_attempts_total{result,profile}` and
  `scheduler_scheduling_attempt_duration_seconds{result,profile}` (from the hooks
  `kubesched_pod_scheduled` / `kubesched_attempt_failed`, timed from the start of the
  scheduling cycle, binding included for `scheduled`);
  `scheduler_scheduling_algorithm_duration_seconds` (cycle start to a successful node
  search); `scheduler_pod_scheduling_attempts` and
  `scheduler_pod_scheduling_sli_duration_seconds{attempts}` (a bound pod's attempts, and the
  time since it first entered the active queue);
- framework.go: `scheduler_framework_extension_point_duration_seconds{extension_point,
  status,profile}` for every extension point run once per cycle (Filter runs once per node
  and is not timed at this level, as upstream), `scheduler_permit_wait_duration_seconds
  {result}` (the profiles are `_metrics_framework`'s InstrumentedFramework, built by
  `framework`), and the per-plugin metrics of `_metrics_plugins`;
- scheduling_queue.go: `scheduler_queue_incoming_pods_total{queue,event}` and
  `scheduler_queueing_hint_execution_duration_seconds{plugin,event,hint}`,
  `scheduler_inflight_events{event}` (the queue's `QueueMetricsRecorder` is this object),
  and the gauges of `_metrics_collectors`;
- eventhandlers.go: `scheduler_event_handling_duration_seconds{event}` around each informer
  handler, labelled as upstream's handlers are (NodeAdd, AssignedPodUpdate,
  UnscheduledPodDelete, PersistentVolumeClaimAdd ...);
- client-go and client_golang: `_metrics_client_go`.

Each SchedulerMetrics has its own CollectorRegistry, never prometheus_client's global one.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from kubesched.api import Pod
from kubesched.clock import Clock
from kubesched.cluster import WatchEvent
from kubesched.config import ResolvedProfile
from kubesched.framework import EventResource, Plugin, QueuedPodInfo
from kubesched.hookspecs import hookimpl
from kubesched.queue import SchedulingQueue
from kubesched.run._leader import LeaderElector
from kubesched.run._metrics_client_go import LeaderMetrics, RestClientMetrics, register_process
from kubesched.run._metrics_collectors import (
    CacheSize,
    PendingPods,
    PluginEvaluations,
    UnschedulablePods,
    alpha,
    beta,
    stable,
)
from kubesched.run._metrics_framework import InstrumentedFramework
from kubesched.run._metrics_histogram import HistogramVec, cached_labels
from kubesched.run._metrics_plugins import PluginMetrics
from kubesched.runtime import Framework
from kubesched.scheduler import Scheduler, SchedulerObserver

__all__ = ["EXTENSION_POINT_METHODS", "SchedulerMetrics", "exponential_buckets"]


def exponential_buckets(start: float, factor: float, count: int) -> list[float]:
    """Go's prometheus.ExponentialBuckets (prometheus_client has no helper), multiplying
    step by step as it does, so the bounds are the same floats (1.5000000000000002e-05)."""
    buckets = []
    for _ in range(count):
        buckets.append(start)
        start *= factor
    return buckets


EXTENSION_POINT_METHODS: Final[dict[str, str]] = {
    "run_pre_filter_plugins": "PreFilter",
    "run_post_filter_plugins": "PostFilter",
    "run_pre_score_plugins": "PreScore",
    "run_score_plugins": "Score",
    "run_reserve_plugins_reserve": "Reserve",
    "run_reserve_plugins_unreserve": "Unreserve",
    "run_permit_plugins": "Permit",
    "run_pre_bind_plugins": "PreBind",
    "run_bind_plugins": "Bind",
    "run_post_bind_plugins": "PostBind",
}
"""The Framework runners timed, and the extension_point label each gets."""

_MAX_STARTS: Final = 100_000
_ATTEMPTS_CAP: Final = 15
"""schedule_one.go getAttemptsLabel: attempts from 15 on share the label "15+"."""

_ACTIONS: Final = {"ADDED": "Add", "MODIFIED": "Update", "DELETED": "Delete"}


@dataclass(frozen=True, slots=True)
class _Attempt:
    started: float
    attempts: int
    initial: float | None


class SchedulerMetrics:
    """The metrics of one scheduler; register it with the plugin manager for the hooks."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry = registry if registry is not None else CollectorRegistry()
        counter = functools.partial(Counter, registry=registry)
        histogram = functools.partial(Histogram, registry=registry)
        vec = functools.partial(HistogramVec, registry=registry)  # labelled: cheaper updates
        self.schedule_attempts = counter(
            "scheduler_schedule_attempts",
            stable(
                "Number of attempts to schedule pods, by the result. 'unschedulable' means a "
                "pod could not be scheduled, while 'error' means an internal scheduler problem."
            ),
            ["result", "profile"],
        )
        self.attempt_duration = vec(
            "scheduler_scheduling_attempt_duration_seconds",
            stable("Scheduling attempt latency in seconds (scheduling algorithm + binding)"),
            ["result", "profile"],
            buckets=exponential_buckets(0.001, 2, 15),
        )
        self.algorithm_duration = vec(
            "scheduler_scheduling_algorithm_duration_seconds",
            alpha("Scheduling algorithm latency in seconds"),
            [],
            buckets=exponential_buckets(0.001, 2, 15),
        )
        self.pod_scheduling_attempts = vec(
            "scheduler_pod_scheduling_attempts",
            stable("Number of attempts to successfully schedule a pod."),
            [],
            buckets=exponential_buckets(1, 2, 5),
        )
        # no labels: one series, exposed from the start as an unlabelled Histogram's
        self._algorithm_latency = self.algorithm_duration.labels()
        self._pod_attempts = self.pod_scheduling_attempts.labels()
        self.pod_scheduling_sli_duration = vec(
            "scheduler_pod_scheduling_sli_duration_seconds",
            beta(
                "E2e latency for a pod being scheduled, from the time the pod enters the "
                "scheduling queue and might involve multiple scheduling attempts."
            ),
            ["attempts"],
            buckets=exponential_buckets(0.01, 2, 20),
        )
        self.extension_point_duration = vec(
            "scheduler_framework_extension_point_duration_seconds",
            stable("Latency for running all plugins of a specific extension point."),
            ["extension_point", "status", "profile"],
            buckets=exponential_buckets(0.0001, 2, 12),
        )
        self.permit_wait_duration = vec(
            "scheduler_permit_wait_duration_seconds",
            alpha("Duration of waiting on permit."),
            ["result"],
            buckets=exponential_buckets(0.001, 2, 15),
        )
        self.queue_incoming = counter(
            "scheduler_queue_incoming_pods",
            stable("Number of pods added to scheduling queues by event and queue type."),
            ["queue", "event"],
        )
        self.queueing_hint_duration = vec(
            "scheduler_queueing_hint_execution_duration_seconds",
            alpha("Duration for running a queueing hint function of a plugin."),
            ["plugin", "event", "hint"],
            buckets=exponential_buckets(0.00001, 1.5, 20),
        )
        self.inflight_events = Gauge(
            "scheduler_inflight_events",
            alpha("Number of events currently tracked in the scheduling queue."),
            ["event"],
            registry=registry,
        )
        self.event_handling_duration = vec(
            "scheduler_event_handling_duration_seconds",
            alpha("Event handling latency in seconds."),
            ["event"],
            buckets=exponential_buckets(0.0001, 2, 12),
        )
        self.plugins = PluginMetrics(
            vec(  # observed hundreds of times at once (_metrics_histogram)
                "scheduler_plugin_execution_duration_seconds",
                alpha("Duration for running a plugin at a specific extension point."),
                ["plugin", "extension_point", "status"],
                buckets=exponential_buckets(0.00001, 1.5, 20),
            ),
            counter(
                "scheduler_preemption_attempts",
                stable("Total preemption attempts in the cluster till now"),
            ),
            histogram(
                "scheduler_preemption_victims",
                stable("Number of selected preemption victims"),
                buckets=exponential_buckets(1, 2, 7),
            ),
        )
        registry.register(PluginEvaluations(lambda: self.plugins.evaluations))
        # the labelled counters and gauges moved in every cycle, their children cached
        self._attempts_by_result = cached_labels(self.schedule_attempts)
        self._incoming = cached_labels(self.queue_incoming)
        self._inflight = cached_labels(self.inflight_events)
        self.rest = RestClientMetrics(registry)
        """Give it to `Transport.observe_requests` for the rest_client metrics."""
        self.leader = LeaderMetrics(registry)
        register_process(registry)
        self._attempts: dict[str, _Attempt] = {}
        self.observer = _LoopMetrics(self)
        """Give it to `new_scheduler(observers=...)`: the attempt, node search and handler
        timings."""
        self._queue: SchedulingQueue | None = None
        self._unschedulable: UnschedulablePods | None = None
        self._clock: Clock | None = None

    # -- wiring -------------------------------------------------------------------------
    def watch_scheduler(self, sched: Scheduler) -> None:
        """The gauges of `sched`'s queue and cache, and the labels of its informer
        handlers; `sched` was built with `observer` among its observers and its profiles
        by `framework`."""
        self._clock = sched.clock
        self.watch_queue(sched.queue)
        self.registry.register(CacheSize(sched.cache))
        self.observer.label_events(sched.profiles)

    def watch_queue(self, queue: SchedulingQueue) -> None:
        """The queue's gauges, and its incoming pods and hint calls."""
        if self._queue is None:
            self._queue = queue
            self._unschedulable = UnschedulablePods(queue)
            self.registry.register(PendingPods(queue))
            self.registry.register(self._unschedulable)
            queue.set_metrics_recorder(self)

    def watch_leader(self, elector: LeaderElector) -> None:
        """`leader_election_master_status{name="kube-scheduler"}` of `elector`."""
        self.leader.watch(elector)

    def framework(
        self, profile: ResolvedProfile, plugin_classes: Mapping[str, type[Plugin]], **handle: Any
    ) -> Framework:
        """Build a profile timed and counted by these metrics (give it to
        `new_scheduler(framework=...)`): an InstrumentedFramework."""
        return InstrumentedFramework(
            profile,
            plugin_classes,
            extension_point_duration=self.extension_point_duration,
            permit_wait_duration=self.permit_wait_duration,
            plugin_metrics=self.plugins,
            **handle,
        )

    def attempt_started(self, qpi: QueuedPodInfo) -> None:
        """A scheduling cycle for `qpi` begins (the loop popped it)."""
        attempts = self._attempts
        if len(attempts) >= _MAX_STARTS:  # pods that vanished mid-attempt: drop the oldest
            for uid in list(attempts)[: _MAX_STARTS // 10]:
                del attempts[uid]
        attempts[qpi.uid] = _Attempt(
            time.perf_counter(), qpi.attempts, qpi.initial_attempt_timestamp
        )

    # -- recording ----------------------------------------------------------------------
    def _observe(self, uid: str, result: str, profile: str) -> _Attempt | None:
        self._attempts_by_result(result, profile).inc()
        attempt = self._attempts.pop(uid, None)
        if attempt is not None:
            elapsed = time.perf_counter() - attempt.started
            self.attempt_duration.labels(result, profile).observe(elapsed)
        return attempt

    # -- the queue's QueueMetricsRecorder -----------------------------------------------
    def pod_incoming(self, queue: str, event: str, pinfo: QueuedPodInfo) -> None:
        self._incoming(queue, event).inc()
        if self._unschedulable is not None:
            self._unschedulable.note(pinfo)

    def queueing_hint_ran(self, plugin: str, event: str, hint: str, seconds: float) -> None:
        self.queueing_hint_duration.labels(plugin, event, hint).observe(seconds)

    def in_flight_changed(self, event: str, delta: int) -> None:
        self._inflight(event).inc(delta)

    # -- hooks (kubesched.runtime hookspecs) ---------------------------------------------
    @hookimpl
    def kubesched_pod_scheduled(self, pod: Any, node_name: str, profile: str) -> None:
        attempt = self._observe(pod.metadata.uid, "scheduled", profile)
        if attempt is None:
            return
        self._pod_attempts.observe(attempt.attempts)
        if attempt.initial is not None and self._clock is not None:
            n = attempt.attempts
            label = f"{_ATTEMPTS_CAP}+" if n >= _ATTEMPTS_CAP else str(n)
            since = max(0.0, self._clock.now() - attempt.initial)
            self.pod_scheduling_sli_duration.labels(label).observe(since)

    @hookimpl
    def kubesched_attempt_failed(self, pod: Any, profile: str, code: str, message: str) -> None:
        self._observe(pod.metadata.uid, "error" if code == "Error" else "unschedulable", profile)


class _LoopMetrics(SchedulerObserver):
    """The metrics the loop's observation points give: attempt starts, the node search
    (schedule_one.go SchedulingAlgorithmLatency) and the informer handlers' durations
    (eventhandlers.go EventHandlingLatency)."""

    def __init__(self, metrics: SchedulerMetrics) -> None:
        self._metrics = metrics
        self._event_label: Callable[[WatchEvent], str | None] = lambda ev: None

    def pod_popped(self, qpi: QueuedPodInfo) -> None:
        self._metrics.attempt_started(qpi)

    def host_selected(self, pod: Pod) -> None:
        attempt = self._metrics._attempts.get(pod.metadata.uid)
        if attempt is not None:
            self._metrics._algorithm_latency.observe(time.perf_counter() - attempt.started)

    def event_handled(self, ev: WatchEvent, seconds: float) -> None:
        event = self._event_label(ev)
        if event is not None:
            self._metrics.event_handling_duration.labels(event).observe(seconds)

    def label_events(self, profiles: Mapping[str, Framework]) -> None:
        """Label handler durations as upstream's handlers are; upstream adds handlers only
        for the kinds some plugin registered events for (eventhandlers.go
        addAllEventHandlers, unionedGVKs; "*" meaning all of them)."""
        registered = {
            reg.event.resource
            for fwk in profiles.values()
            for regs in fwk.events_to_register().values()
            for reg in regs
        }
        every_kind = EventResource.Wildcard in registered

        def responsible(pod: Any) -> bool:
            return pod.spec.scheduler_name in profiles

        def label(ev: WatchEvent) -> str | None:
            if ev.kind == "Node":
                return f"Node{_ACTIONS[ev.type]}"
            if ev.kind == "Pod":
                return _pod_event_label(ev, responsible)
            handled = every_kind or ev.kind in registered
            return f"{ev.kind}{_ACTIONS[ev.type]}" if handled else None

        self._event_label = label


def _pod_event_label(ev: WatchEvent, responsible: Callable[[Any], bool]) -> str | None:
    """The upstream handler a pod's watch event goes to: the cache's for assigned pods, the
    queue's for unassigned pods of our profiles (none for other schedulers' pods); a pod
    that turns terminal leaves the informer, as a deletion."""
    pod, old = ev.obj, ev.old
    if ev.type == "DELETED" or (ev.type == "MODIFIED" and pod.is_terminal):
        gone = old if ev.type == "MODIFIED" else pod
        if gone.spec.node_name:
            return "AssignedPodDelete"
        return "UnscheduledPodDelete" if responsible(gone) else None
    if ev.type == "ADDED" and pod.is_terminal:
        return None
    if pod.spec.node_name:
        was_assigned = ev.type == "MODIFIED" and bool(old.spec.node_name)
        return "AssignedPodUpdate" if was_assigned else "AssignedPodAdd"
    if not responsible(pod):
        return None
    return "UnscheduledPodAdd" if ev.type == "ADDED" else "UnscheduledPodUpdate"
