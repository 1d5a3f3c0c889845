"""An instrumented profile: the Framework `kubesched run` builds, timing its runners and
calling its plugins through their instrumented forms.

Upstream: pkg/scheduler/framework/runtime/framework.go with a metricsRecorder: each
Run<Point>Plugins observes `scheduler_framework_extension_point_duration_seconds`
(Filter, which runs once per node, is not timed at this level), WaitOnPermit observes
`scheduler_permit_wait_duration_seconds`, and the plugins of each point are the
instrumented ones (instrumented_plugins.go, `_metrics_plugins`). Chosen when the profiles
are built (`new_scheduler(framework=...)`), so nothing is patched afterwards.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.config import ResolvedProfile
from kubesched.framework import (
    CycleState,
    NodeInfo,
    NodeToStatus,
    Plugin,
    PostFilterResult,
    PreFilterResult,
    RowMask,
    Rows,
    Status,
)
from kubesched.run._metrics_histogram import HistogramVec
from kubesched.run._metrics_plugins import PluginMetrics, status_label
from kubesched.runtime import Framework, NodePluginScores, RowScoring

__all__ = ["InstrumentedFramework"]

_T = TypeVar("_T")


class InstrumentedFramework(Framework):
    """A profile whose runners and plugins report to a scheduler's metrics."""

    def __init__(
        self,
        profile: ResolvedProfile,
        plugin_classes: Mapping[str, type[Plugin]],
        *,
        extension_point_duration: HistogramVec,
        permit_wait_duration: HistogramVec,
        plugin_metrics: PluginMetrics,
        **handle: Any,
    ) -> None:
        super().__init__(profile, plugin_classes, **handle)
        self._point_duration = extension_point_duration
        self._permit_wait = permit_wait_duration
        self._plugin_metrics = plugin_metrics
        self._children: dict[tuple[str, str], Any] = {}
        """(extension_point, status) → its histogram child, looked up once."""
        name = self.profile_name
        wrapped = {n: plugin_metrics.wrap(p, name) for n, p in self.plugins.items()}
        self._use_wrapped(wrapped)
        # the batch forms were taken from the plugins themselves
        self._batch_filters = {
            n: plugin_metrics.batch_filter(call, n, name) for n, call in self._batch_filters.items()
        }
        self._batch_scorers = {
            n: plugin_metrics.batch_score(call, n, name) for n, call in self._batch_scorers.items()
        }
        self._array_filters = {
            n: plugin_metrics.array_filter(call, n, name) for n, call in self._array_filters.items()
        }
        self._array_scorers = {
            n: plugin_metrics.array_score(call, n, name) for n, call in self._array_scorers.items()
        }

    # -- timing -------------------------------------------------------------------------
    def _observe(self, point: str, result: Any, started: float) -> None:
        elapsed = time.perf_counter() - started
        status = status_label(result)
        child = self._children.get((point, status))
        if child is None:
            child = self._point_duration.labels(point, status, self.profile_name)
            self._children[(point, status)] = child
        child.observe(elapsed)

    def _timed(self, point: str, call: Callable[..., _T], *args: Any) -> _T:
        started = time.perf_counter()
        result = call(*args)
        self._observe(point, result, started)
        return result

    async def _timed_async(self, point: str, call: Callable[..., Awaitable[_T]], *args: Any) -> _T:
        started = time.perf_counter()
        result = await call(*args)
        self._observe(point, result, started)
        return result

    # -- the runners, timed ---------------------------------------------------------------
    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        self._plugin_metrics.sample(state)  # PreFilter starts every node search
        return self._timed("PreFilter", super().run_pre_filter_plugins, state, pod, nodes)

    def run_post_filter_plugins(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        return self._timed("PostFilter", super().run_post_filter_plugins, state, pod, statuses)

    def run_pre_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Status:
        return self._timed("PreScore", super().run_pre_score_plugins, state, pod, nodes)

    def run_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[NodePluginScores], Status]:
        return self._timed("Score", super().run_score_plugins, state, pod, nodes)

    def score_rows(
        self, state: CycleState, pod: Pod, rows: Rows
    ) -> tuple[RowScoring | None, Status | None]:
        # the fast path's Score runner: the same "Score" extension point
        return self._timed("Score", super().score_rows, state, pod, rows)

    def filter_rows_deferring(
        self,
        state: CycleState,
        pod: Pod,
        rows: Rows,
        nominated: RowMask | None = None,
        defer: bool = True,
    ) -> tuple[RowMask, dict[int, Status], npt.NDArray[np.intp] | None]:
        # Rows an exact mask rejected were evaluated by that plugin, as upstream's Filter
        # on each node is: counted here, whether or not their statuses are ever built.
        passed, rejected, deferred = super().filter_rows_deferring(
            state, pod, rows, nominated, defer
        )
        if deferred is not None:
            evaluations = self._plugin_metrics.evaluations
            by_plugin = np.bincount(deferred[deferred >= 0], minlength=len(self.filter_plugins))
            for index in np.flatnonzero(by_plugin).tolist():
                key = (self.filter_plugins[index].name, "Filter", self.profile_name)
                evaluations[key] = evaluations.get(key, 0) + int(by_plugin[index])
        return passed, rejected, deferred

    def deferred_statuses(
        self, index: int, state: CycleState, pod: Pod, node_names: list[str]
    ) -> list[Status]:
        # counted when their rows were deferred (filter_rows_deferring): not again here
        key = (self.filter_plugins[index].name, "Filter", self.profile_name)
        evaluations = self._plugin_metrics.evaluations
        before = evaluations.get(key, 0)
        try:
            return super().deferred_statuses(index, state, pod, node_names)
        finally:
            evaluations[key] = before

    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        return self._timed("Reserve", super().run_reserve_plugins_reserve, state, pod, node_name)

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        unreserve = super().run_reserve_plugins_unreserve
        self._timed("Unreserve", unreserve, state, pod, node_name)

    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        return self._timed("Permit", super().run_permit_plugins, state, pod, node_name)

    async def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        pre_bind = super().run_pre_bind_plugins
        return await self._timed_async("PreBind", pre_bind, state, pod, node_name)

    async def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        return await self._timed_async("Bind", super().run_bind_plugins, state, pod, node_name)

    async def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        post_bind = super().run_post_bind_plugins
        await self._timed_async("PostBind", post_bind, state, pod, node_name)

    async def wait_on_permit(self, pod: Pod) -> Status:
        if self.get_waiting_pod(pod.metadata.uid) is None:
            return await super().wait_on_permit(pod)
        started = time.perf_counter()
        status = await super().wait_on_permit(pod)
        self._permit_wait.labels(str(status.code)).observe(time.perf_counter() - started)
        return status
