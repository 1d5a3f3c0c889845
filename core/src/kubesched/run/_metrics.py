"""Scheduler metrics under upstream's names, labels and buckets (pkg/scheduler/metrics).

- `scheduler_schedule_attempts_total{result,profile}` and
  `scheduler_scheduling_attempt_duration_seconds{result,profile}`: from the program hooks
  `kubesched_pod_scheduled` / `kubesched_attempt_failed`, timed from the start of the
  scheduling cycle (binding included for `scheduled`, as upstream).
- `scheduler_framework_extension_point_duration_seconds{extension_point,status,profile}`:
  every extension point run once per cycle (PreFilter, PostFilter, PreScore, Score,
  Reserve, Unreserve, Permit, PreBind, Bind, PostBind). Filter runs once per node and is not
  timed, as upstream does not time it at this level either.
- `scheduler_pending_pods{queue}`: read from the queue when scraped.

Each SchedulerMetrics has its own CollectorRegistry, never prometheus_client's global one.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable, Iterator
from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric

from kubesched.api import Pod
from kubesched.framework import Status
from kubesched.queue import SchedulingQueue
from kubesched.runtime import Framework, hookimpl

__all__ = ["EXTENSION_POINT_METHODS", "SchedulerMetrics", "exponential_buckets"]


def exponential_buckets(start: float, factor: float, count: int) -> list[float]:
    """Go's prometheus.ExponentialBuckets (prometheus_client has no helper)."""
    return [start * factor**i for i in range(count)]


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


def _status_label(result: Any) -> str:
    # runners return a Status, a tuple holding one, or None (Unreserve, PostBind)
    if isinstance(result, Status):
        return str(result.code)
    if isinstance(result, tuple):
        for item in result:
            if isinstance(item, Status):
                return str(item.code)
    return "Success"


class _PendingPods:
    """`scheduler_pending_pods{queue}` computed from the queue at scrape time."""

    def __init__(self, queue: SchedulingQueue) -> None:
        self._queue = queue

    def describe(self) -> list[Metric]:
        return [self._family()]

    def _family(self) -> GaugeMetricFamily:
        return GaugeMetricFamily(
            "scheduler_pending_pods",
            "Number of pending pods, by the queue type. 'active' means number of pods in "
            "activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number "
            "of pods in unschedulablePods that the scheduler attempted to schedule and failed; "
            "'gated' is the number of unschedulable pods that the scheduler never attempted to "
            "schedule because they are gated.",
            labels=["queue"],
        )

    def collect(self) -> Iterator[Metric]:
        family = self._family()
        pending = self._queue.pending_pods()
        pool = pending["unschedulable"]
        gated = sum(1 for p in pool if p.gated)
        family.add_metric(["active"], len(pending["active"]))
        family.add_metric(["backoff"], len(pending["backoff"]))
        family.add_metric(["unschedulable"], len(pool) - gated)
        family.add_metric(["gated"], gated)
        yield family


class SchedulerMetrics:
    """The metrics of one scheduler; register it with the plugin manager for the hooks."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        self.schedule_attempts = Counter(
            "scheduler_schedule_attempts",
            "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod "
            "could not be scheduled, while 'error' means an internal scheduler problem.",
            ["result", "profile"],
            registry=self.registry,
        )
        self.attempt_duration = Histogram(
            "scheduler_scheduling_attempt_duration_seconds",
            "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
            ["result", "profile"],
            buckets=exponential_buckets(0.001, 2, 15),
            registry=self.registry,
        )
        self.extension_point_duration = Histogram(
            "scheduler_framework_extension_point_duration_seconds",
            "Latency for running all plugins of a specific extension point.",
            ["extension_point", "status", "profile"],
            buckets=exponential_buckets(0.0001, 2, 12),
            registry=self.registry,
        )
        self._starts: dict[str, float] = {}
        self._pending: _PendingPods | None = None

    # -- wiring -------------------------------------------------------------------------
    def watch_queue(self, queue: SchedulingQueue) -> None:
        """Report `scheduler_pending_pods` from this queue."""
        if self._pending is None:
            self._pending = _PendingPods(queue)
            self.registry.register(self._pending)

    def instrument(self, fwk: Framework) -> None:
        """Time the framework's once-per-cycle runners (instance attributes wrap them)."""
        profile = fwk.profile_name
        histogram = self.extension_point_duration
        for method, point in EXTENSION_POINT_METHODS.items():
            original = getattr(fwk, method)
            setattr(fwk, method, _timed(original, histogram, point, profile))

    def attempt_started(self, pod: Pod) -> None:
        """A scheduling cycle for `pod` begins (called by the instrumented Scheduler)."""
        starts = self._starts
        if len(starts) >= _MAX_STARTS:  # pods that vanished mid-attempt: drop the oldest
            for uid in list(starts)[: _MAX_STARTS // 10]:
                del starts[uid]
        starts[pod.metadata.uid] = time.perf_counter()

    def _observe(self, pod: Pod, result: str, profile: str) -> None:
        self.schedule_attempts.labels(result, profile).inc()
        started = self._starts.pop(pod.metadata.uid, None)
        if started is not None:
            self.attempt_duration.labels(result, profile).observe(time.perf_counter() - started)

    # -- hooks (kubesched.runtime hookspecs) ---------------------------------------------
    @hookimpl
    def kubesched_pod_scheduled(self, pod: Pod, node_name: str, profile: str) -> None:
        self._observe(pod, "scheduled", profile)

    @hookimpl
    def kubesched_attempt_failed(self, pod: Pod, profile: str, code: str, message: str) -> None:
        self._observe(pod, "error" if code == "Error" else "unschedulable", profile)


def _timed(
    original: Callable[..., Any], histogram: Histogram, point: str, profile: str
) -> Callable[..., Any]:
    children: dict[str, Any] = {}  # one histogram child per status, looked up once

    def observe(result: Any, elapsed: float) -> None:
        status = _status_label(result)
        child = children.get(status)
        if child is None:
            child = children[status] = histogram.labels(point, status, profile)
        child.observe(elapsed)

    if inspect.iscoroutinefunction(original):

        @functools.wraps(original)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            result = await original(*args, **kwargs)
            observe(result, time.perf_counter() - started)
            return result

        return timed_async

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        result = original(*args, **kwargs)
        observe(result, time.perf_counter() - started)
        return result

    return timed
