"""Metrics read from the scheduler's own state when /metrics is scraped.

Upstream keeps these as gauges it moves on every change; reading the queue, the cache and
the plugin counts at scrape time gives the same values without a hook on every change. A
label set a gauge has shown once stays, at 0, as a Go GaugeVec child does.

- `scheduler_pending_pods{queue}` (pkg/scheduler/metrics: ActivePods ... GatedPods);
- `scheduler_unschedulable_pods{plugin,profile}`: queued pods by the plugins that rejected
  or gated them, until they are tried again (scheduling_queue.go: Inc for each rejector in
  AddUnschedulableIfNotPresent and runPreEnqueuePlugin, Dec on Pop);
- `scheduler_cache_size{type}`: assumed_pods, pods, nodes (backend/cache/cache.go
  updateMetrics);
- `scheduler_plugin_evaluation_total{plugin,extension_point,profile}` from the counts
  `PluginMetrics` keeps.
"""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Callable, Iterator, Mapping

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from kubesched.cache import SchedulerCache
from kubesched.framework import QueuedPodInfo
from kubesched.queue import SchedulingQueue

__all__ = [
    "CacheSize",
    "PendingPods",
    "PluginEvaluations",
    "UnschedulablePods",
    "alpha",
    "beta",
    "stable",
]


def alpha(text: str) -> str:
    """HELP text as component-base writes an ALPHA metric's (opts.go annotateStabilityLevel)."""
    return f"[ALPHA] {text}"


def beta(text: str) -> str:
    return f"[BETA] {text}"


def stable(text: str) -> str:
    return f"[STABLE] {text}"


class _ScrapeCollector:
    """A collector of one family computed at scrape time."""

    name = ""
    documentation = ""
    labels: tuple[str, ...] = ()

    def describe(self) -> list[Metric]:
        return [self._family()]

    def _family(self) -> GaugeMetricFamily | CounterMetricFamily:
        return GaugeMetricFamily(self.name, self.documentation, labels=list(self.labels))

    def collect(self) -> Iterator[Metric]:
        family = self._family()
        for labels, value in self.values().items():
            family.add_metric(list(labels), value)
        yield family

    def values(self) -> Mapping[tuple[str, ...], float]:
        raise NotImplementedError


class _StickyGauge(_ScrapeCollector):
    """A gauge vector whose label sets, once seen (or noted), are reported until the
    process ends."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, ...]] = set()

    def values(self) -> Mapping[tuple[str, ...], float]:
        now = self.current()
        self._seen.update(now)
        return {key: float(now.get(key, 0)) for key in sorted(self._seen)}

    def current(self) -> Mapping[tuple[str, ...], int]:
        raise NotImplementedError


class PendingPods(_ScrapeCollector):
    name = "scheduler_pending_pods"
    documentation = stable(
        "Number of pending pods, by the queue type. 'active' means number of pods in "
        "activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number "
        "of pods in unschedulablePods that the scheduler attempted to schedule and failed; "
        "'gated' is the number of unschedulable pods that the scheduler never attempted to "
        "schedule because they are gated."
    )
    labels = ("queue",)

    def __init__(self, queue: SchedulingQueue) -> None:
        self._queue = queue

    def values(self) -> Mapping[tuple[str, ...], float]:
        pending = self._queue.pending_pods()
        pool = pending["unschedulable"]
        gated = sum(1 for p in pool if p.gated)
        return {
            ("active",): len(pending["active"]),
            ("backoff",): len(pending["backoff"]),
            ("unschedulable",): len(pool) - gated,
            ("gated",): gated,
        }


class UnschedulablePods(_StickyGauge):
    name = "scheduler_unschedulable_pods"
    documentation = alpha(
        "The number of unschedulable pods broken down by plugin name. A pod will increment "
        "the gauge for all plugins that caused it to not schedule and so this metric have "
        "meaning only when broken down by plugin."
    )
    labels = ("plugin", "profile")

    def __init__(self, queue: SchedulingQueue) -> None:
        super().__init__()
        self._queue = queue

    def note(self, pinfo: QueuedPodInfo) -> None:
        """A pod entered a queue: its rejectors' label sets exist from now on (as the Inc
        of each creates the GaugeVec child upstream), even if no scrape sees them above 0."""
        self._seen.update(_rejectors(pinfo))

    def current(self) -> Mapping[tuple[str, ...], int]:
        tally: Tally[tuple[str, ...]] = Tally()
        for pods in self._queue.pending_pods().values():
            for pinfo in pods:
                tally.update(_rejectors(pinfo))
        return tally


def _rejectors(pinfo: QueuedPodInfo) -> list[tuple[str, ...]]:
    profile = pinfo.pod.spec.scheduler_name
    return [(plugin, profile) for plugin in pinfo.unschedulable_plugins | pinfo.pending_plugins]


class CacheSize(_ScrapeCollector):
    name = "scheduler_cache_size"
    documentation = alpha("Number of nodes, pods, and assumed (bound) pods in the scheduler cache.")
    labels = ("type",)

    def __init__(self, cache: SchedulerCache) -> None:
        self._cache = cache

    def values(self) -> Mapping[tuple[str, ...], float]:
        cache = self._cache
        return {
            ("assumed_pods",): cache.assumed_pod_count(),
            ("pods",): cache.pod_count(),
            ("nodes",): cache.node_count(),
        }


class PluginEvaluations(_ScrapeCollector):
    name = "scheduler_plugin_evaluation"
    documentation = alpha(
        "Number of attempts to schedule pods by each plugin and the extension point "
        "(available only in PreFilter, Filter, PreScore, and Score)."
    )
    labels = ("plugin", "extension_point", "profile")

    def __init__(self, counts: Callable[[], Mapping[tuple[str, str, str], int]]) -> None:
        self._counts = counts

    def _family(self) -> GaugeMetricFamily | CounterMetricFamily:
        return CounterMetricFamily(self.name, self.documentation, labels=list(self.labels))

    def values(self) -> Mapping[tuple[str, ...], float]:
        return {key: float(n) for key, n in self._counts().items()}
