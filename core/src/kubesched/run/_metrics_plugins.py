"""Per-plugin metrics: each plugin instance of a profile wrapped as upstream wraps them.

Upstream: pkg/scheduler/framework/runtime/framework.go (run<Point>Plugin: the duration of
a plugin call is observed only in the scheduling cycles picked for it,
pluginMetricsSamplePercent = 10, schedule_one.go) and instrumented_plugins.go (every
PreFilter, Filter, PreScore and Score call counted, Skip answers excepted).

- `scheduler_plugin_execution_duration_seconds{plugin,extension_point,status}`: PreEnqueue
  (sampled per call, as the queue does), PreFilter, PreFilterExtensionAddPod/RemovePod,
  Filter, PostFilter, PreScore, Score, ScoreExtensionNormalize, Reserve, Unreserve,
  Permit, PreBind, Bind, PostBind in sampled cycles (the decision is kept in the cycle's
  CycleState, so the binding cycle follows its scheduling cycle).
- `scheduler_plugin_evaluation_total{plugin,extension_point,profile}`: one per call, one per
  node for Filter and Score; counted in plain integers and read at scrape time.
- `scheduler_preemption_attempts_total` and `scheduler_preemption_victims`: each
  DefaultPreemption PostFilter call (default_preemption.go), and the victims of the
  candidate a preemption evaluator prepares (preemption.go prepareCandidateAsync).

kubesched's batch forms (`filter_nodes`, `score_nodes`) answer for many nodes in one call:
they count one evaluation per node and, when sampled, observe one duration per node (the
call's duration shared equally), so counts and sums mean what upstream's do. The equal
observations of one status are one update (`HistogramVec`, `_metrics_histogram`).
"""

from __future__ import annotations

import functools
import inspect
import random
import time
from collections.abc import Callable, Iterable
from typing import Any, Final

import numpy as np
from prometheus_client import Counter, Histogram

from kubesched.framework import (
    BindPlugin,
    CycleState,
    FilterPlugin,
    PermitPlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
    Status,
)
from kubesched.run._metrics_histogram import HistogramVec
from kubesched.runtime._wrapped_plugin import WrappedPlugin

__all__ = [
    "DEFAULT_PREEMPTION",
    "PLUGIN_METRICS_SAMPLE_PERCENT",
    "PluginMetrics",
    "status_label",
]

PLUGIN_METRICS_SAMPLE_PERCENT: Final = 10
"""upstream schedule_one.go pluginMetricsSamplePercent."""

DEFAULT_PREEMPTION: Final = "DefaultPreemption"

_SAMPLED: Final = "kubesched.run/record-plugin-metrics"
"""CycleState key: whether this cycle's plugin durations are observed."""

_SUCCESS: Final = "Success"
_ERROR: Final = "Error"

Counts = dict[tuple[str, str, str], int]
StatusCounts = Iterable[tuple[str, int]]
"""(status label, nodes) pairs: how many of a batch call's nodes got each status."""

_POINT_METHODS: Final[list[tuple[type[Plugin], str, str, bool]]] = [
    (PreFilterPlugin, "pre_filter", "PreFilter", True),
    (FilterPlugin, "filter", "Filter", True),
    (PreScorePlugin, "pre_score", "PreScore", True),
    (ScorePlugin, "score", "Score", True),
    (PostFilterPlugin, "post_filter", "PostFilter", False),
    (ScorePlugin, "normalize_score", "ScoreExtensionNormalize", False),
    (ReservePlugin, "reserve", "Reserve", False),
    (ReservePlugin, "unreserve", "Unreserve", False),
    (PermitPlugin, "permit", "Permit", False),
    (PreBindPlugin, "pre_bind", "PreBind", False),
    (BindPlugin, "bind", "Bind", False),
    (PostBindPlugin, "post_bind", "PostBind", False),
]
"""(kind, method, extension_point label, counted in plugin_evaluation_total) of the
plugin methods wrapped; upstream counts PreFilter, Filter, PreScore and Score calls."""


def status_label(result: Any) -> str:
    """The `status` label of what a plugin or runner returned: a Status, a tuple holding
    one, or None (Success)."""
    if isinstance(result, Status):
        return str(result.code)
    if isinstance(result, tuple):
        for item in result:
            if isinstance(item, Status):
                return str(item.code)
    return _SUCCESS


class PluginMetrics:
    """Wraps the plugins of instrumented profiles (`wrap`, `batch_filter`, `batch_score`)."""

    def __init__(
        self,
        duration: HistogramVec,
        preemption_attempts: Counter,
        preemption_victims: Histogram,
    ) -> None:
        self.duration = duration
        self.preemption_attempts = preemption_attempts
        self.preemption_victims = preemption_victims
        self.evaluations: Counts = {}
        """(plugin, extension_point, profile) → calls, for plugin_evaluation_total."""
        self.sample_percent = PLUGIN_METRICS_SAMPLE_PERCENT
        self.rng = random.Random()

    # -- sampling -----------------------------------------------------------------------
    def sample(self, state: CycleState) -> None:
        """Decide once per scheduling cycle whether its plugin durations are observed."""
        if _SAMPLED not in state:
            state.write(_SAMPLED, self.rng.randrange(100) < self.sample_percent)

    def _observe(self, plugin: str, point: str, status: str, seconds: float, n: int = 1) -> None:
        """`n` observations of `seconds` (a batch call's share of each of `n` nodes)."""
        self.duration.labels(plugin, point, status).observe(seconds, n)

    # -- wrapping (when an instrumented profile is built) ------------------------------
    def wrap(self, plugin: Plugin, profile: str) -> WrappedPlugin:
        """`plugin` as the profile's runners call it: its extension-point methods counted
        and, in sampled cycles, timed (upstream instrumented_plugins.go and framework.go
        run<Point>Plugin)."""
        name = plugin.name
        methods: dict[str, Callable[..., Any]] = {}
        for base, method, point, count in _POINT_METHODS:
            if isinstance(plugin, base):
                key = (name, point, profile) if count else None
                methods[method] = self._timed(getattr(plugin, method), name, point, key)
        if isinstance(plugin, PreFilterPlugin):
            methods["pre_filter_extensions"] = self._extensions(plugin.pre_filter_extensions, name)
        if isinstance(plugin, PreEnqueuePlugin):
            methods["pre_enqueue"] = self._pre_enqueue(plugin.pre_enqueue, name)
        if isinstance(plugin, PostFilterPlugin) and name == DEFAULT_PREEMPTION:
            methods["post_filter"] = self._count_preemption(methods["post_filter"])
            self._watch_victims(plugin)
        return WrappedPlugin(plugin, methods)

    def batch_filter(self, call: Callable[..., Any], plugin: str, profile: str) -> Any:
        """A BatchFilterPlugin's `filter_nodes`, counted per node and timed when sampled."""
        return self._batch(call, plugin, "Filter", profile, _filter_statuses)

    def batch_score(self, call: Callable[..., Any], plugin: str, profile: str) -> Any:
        """A BatchScorePlugin's `score_nodes`, counted per node and timed when sampled."""
        return self._batch(call, plugin, "Score", profile, _score_statuses)

    def array_filter(self, call: Callable[..., Any], plugin: str, profile: str) -> Any:
        """An ArrayFilterPlugin's `filter_mask`, counted and timed for the rows it passes
        (the framework calls `filter`, counted on its own, on the rows it rejects)."""
        return self._batch(call, plugin, "Filter", profile, _mask_statuses, _mask_passed)

    def array_score(self, call: Callable[..., Any], plugin: str, profile: str) -> Any:
        """An ArrayScorePlugin's `score_array`, counted per row and timed when sampled."""
        return self._batch(call, plugin, "Score", profile, _score_statuses)

    def _timed(
        self,
        call: Callable[..., Any],
        plugin: str,
        point: str,
        key: tuple[str, str, str] | None,
    ) -> Callable[..., Any]:
        """`call` counted (when `key` is given, Skip answers excepted) and, in sampled
        cycles, timed; its first argument is the CycleState."""
        evaluations = self.evaluations
        observe = self._observe

        def finish(status: str, started: float | None) -> None:
            if key is not None and status != "Skip":
                evaluations[key] = evaluations.get(key, 0) + 1
            if started is not None:
                observe(plugin, point, status, time.perf_counter() - started)

        if inspect.iscoroutinefunction(call):

            @functools.wraps(call)
            async def timed_async(state: CycleState, *args: Any, **kwargs: Any) -> Any:
                started = time.perf_counter() if state.get(_SAMPLED) else None
                try:
                    result = await call(state, *args, **kwargs)
                except Exception:
                    finish(_ERROR, started)
                    raise
                finish(status_label(result), started)
                return result

            return timed_async

        @functools.wraps(call)
        def timed(state: CycleState, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter() if state.get(_SAMPLED) else None
            if started is None and key is None:  # neither counted nor timed: just the call
                return call(state, *args, **kwargs)
            try:
                result = call(state, *args, **kwargs)
            except Exception:
                finish(_ERROR, started)
                raise
            finish(_SUCCESS if result is None else status_label(result), started)
            return result

        return timed

    def _batch(
        self,
        call: Callable[..., Any],
        plugin: str,
        point: str,
        profile: str,
        statuses: Callable[[Any, int], StatusCounts],
        counted: Callable[[Any, int], int] = lambda result, n: n,
    ) -> Callable[..., Any]:
        """A form answering for many nodes at once, its last argument the nodes (a batch
        form) or rows (an array form): `counted(result, n)` evaluations, and in sampled
        cycles its time shared among the nodes, observed once per node with the statuses
        `statuses(result, n)` counts."""
        key = (plugin, point, profile)
        evaluations = self.evaluations
        observe = self._observe

        @functools.wraps(call)
        def batch(state: CycleState, pod: Any, *args: Any) -> Any:
            n = len(args[-1])
            if not state.get(_SAMPLED) or not n:
                result = call(state, pod, *args)
                evaluations[key] = evaluations.get(key, 0) + counted(result, n)
                return result
            started = time.perf_counter()
            result = call(state, pod, *args)
            share = (time.perf_counter() - started) / n
            evaluations[key] = evaluations.get(key, 0) + counted(result, n)
            for status, nodes in statuses(result, n):
                observe(plugin, point, status, share, nodes)
            return result

        return batch

    def _extensions(self, call: Callable[[], Any], plugin: str) -> Callable[[], Any]:
        metrics = self

        @functools.wraps(call)
        def extensions() -> Any:
            ext = call()
            return None if ext is None else _TimedExtensions(ext, plugin, metrics)

        return extensions

    def _pre_enqueue(self, call: Callable[[Any], Any], plugin: str) -> Callable[[Any], Any]:
        # upstream: scheduling_queue.go runPreEnqueuePlugin, sampled per call
        @functools.wraps(call)
        def pre_enqueue(pod: Any) -> Any:
            if self.rng.randrange(100) >= self.sample_percent:
                return call(pod)
            started = time.perf_counter()
            status = _ERROR
            try:
                result = call(pod)
                status = status_label(result)
                return result
            finally:
                self._observe(plugin, "PreEnqueue", status, time.perf_counter() - started)

        return pre_enqueue

    # -- preemption ---------------------------------------------------------------------
    def _count_preemption(self, post_filter: Callable[..., Any]) -> Callable[..., Any]:
        attempts = self.preemption_attempts

        @functools.wraps(post_filter)
        def counted(*args: Any) -> Any:
            try:
                return post_filter(*args)
            finally:  # upstream: defer metrics.PreemptionAttempts.Inc()
                attempts.inc()

        return counted

    def _watch_victims(self, plugin: PostFilterPlugin) -> None:
        """The victims of each candidate DefaultPreemption's evaluator starts evicting
        (upstream prepareCandidateAsync), through its `candidate_watchers`."""
        evaluator = getattr(plugin, "evaluator", None)
        watchers = getattr(evaluator, "candidate_watchers", None)
        if watchers is None:
            return
        victims = self.preemption_victims

        def prepared(candidate: Any) -> None:
            # called only when some victim is still to be deleted; all of them count
            victims.observe(len(candidate.victims.pods))

        watchers.append(prepared)


class _TimedExtensions:
    """A plugin's PreFilterExtensions whose AddPod and RemovePod are timed when sampled."""

    def __init__(self, ext: Any, plugin: str, metrics: PluginMetrics) -> None:
        self._ext = ext
        self._plugin = plugin
        self._metrics = metrics

    def add_pod(self, state: CycleState, *args: Any) -> Any:
        return self._run(self._ext.add_pod, "PreFilterExtensionAddPod", state, args)

    def remove_pod(self, state: CycleState, *args: Any) -> Any:
        return self._run(self._ext.remove_pod, "PreFilterExtensionRemovePod", state, args)

    def _run(self, call: Callable[..., Any], point: str, state: CycleState, args: Any) -> Any:
        if not state.get(_SAMPLED):
            return call(state, *args)
        started = time.perf_counter()
        status = _ERROR
        try:
            result = call(state, *args)
            status = status_label(result)
            return result
        finally:
            self._metrics._observe(self._plugin, point, status, time.perf_counter() - started)


def _filter_statuses(result: Any, n: int) -> StatusCounts:
    if not (isinstance(result, list | tuple) and len(result) == n):
        return [(_ERROR, n)]
    counts: dict[str, int] = {}
    for s in result:
        label = status_label(s)
        counts[label] = counts.get(label, 0) + 1
    return counts.items()


def _mask_passed(result: Any, n: int) -> int:
    """The rows a mask passes (the framework asks `filter`, counted apart, on the rest)."""
    return int(np.count_nonzero(result)) if isinstance(result, np.ndarray) else n


def _mask_statuses(result: Any, n: int) -> StatusCounts:
    passed = _mask_passed(result, n)
    return [(_SUCCESS, passed)] if passed else []


def _score_statuses(result: Any, n: int) -> StatusCounts:
    status = result[1] if isinstance(result, tuple) and len(result) == 2 else None
    return [(status_label(status), n)]
