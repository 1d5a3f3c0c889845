"""Framework: one profile's plugins and the runner of every extension point.

Upstream: pkg/scheduler/framework/runtime/framework.go. Each runner calls the plugins of
its point in the profile's order and turns their answers into one Status with upstream's
rules and messages. A plugin that raises gets an Error status naming it; the scheduler goes
on. The Framework is also the Handle its plugins receive. The Filter runners are in
`_filter_runners`, the PreScore/Score runners in `_score_runners`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kubesched._errors import ConfigError
from kubesched.api import Pod
from kubesched.clock import Clock
from kubesched.config import ResolvedProfile
from kubesched.features import fast_path_enabled
from kubesched.framework import (
    ActionType,
    ArrayFilterPlugin,
    ArrayNormalizeScorePlugin,
    ArrayScorePlugin,
    BatchFilterPlugin,
    BatchScorePlugin,
    BindPlugin,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EnqueueExtensions,
    EventRecorder,
    EventResource,
    FilterPlugin,
    NodeInfo,
    NodeToStatus,
    PermitPlugin,
    Plugin,
    PodInfo,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
    Snapshot,
    Status,
    WaitingPod,
)
from kubesched.runtime._cycle_recording import CycleRecorder, recorder_of
from kubesched.runtime._fast_runners import FastRunners
from kubesched.runtime._filter_runners import FilterRunners, PodNominator
from kubesched.runtime._plugin_status import SUCCESS, raised, wrap_error
from kubesched.runtime._score_runners import NodePluginScores, ScoreRunners
from kubesched.runtime._waiting_pods import MAX_PERMIT_TIMEOUT, WaitingPodImpl, WaitingPodsMap

_WRAPPABLE_POINTS: tuple[str, ...] = (
    "pre_enqueue_plugins",
    "pre_filter_plugins",
    "filter_plugins",
    "post_filter_plugins",
    "pre_score_plugins",
    "score_plugins",
    "reserve_plugins",
    "permit_plugins",
    "pre_bind_plugins",
    "bind_plugins",
    "post_bind_plugins",
)

__all__ = ["Framework", "NodePluginScores", "PodNominator"]


def _with_node_taint_update(events: list[ClusterEventWithHint]) -> list[ClusterEventWithHint]:
    """A plugin registering Node/Add but not Node/UpdateNodeTaint also gets the latter,
    always Queue: a node may become usable by losing a taint as well as by being added.

    upstream: scheduler.go buildQueueingHintMap (kubernetes#122292, for issue #109437)."""
    node_actions = [e.event.action for e in events if e.event.resource == EventResource.Node]
    if not any(a & ActionType.Add for a in node_actions) or any(
        a & ActionType.UpdateNodeTaint for a in node_actions
    ):
        return events
    taint_update = ClusterEvent(EventResource.Node, ActionType.UpdateNodeTaint)
    return [*events, ClusterEventWithHint(taint_update)]


class Framework(FilterRunners, ScoreRunners, FastRunners):
    """A profile's plugin instances by extension point, and their runners.

    Built from a `ResolvedProfile` as `kubesched.config.resolve` gives it (through
    `build_profiles` for a whole configuration): one instance of each plugin it names,
    constructed with its validated args.
    """

    def __init__(
        self,
        profile: ResolvedProfile,
        plugin_classes: Mapping[str, type[Plugin]],
        *,
        cluster: Any,
        clock: Clock,
        snapshot: Snapshot,
        event_recorder: EventRecorder,
        nominator: PodNominator | None = None,
        activator: Callable[[Sequence[Pod]], None] | None = None,
        event_reporter: Callable[[ClusterEvent, Any, Any], None] | None = None,
        fast_path: bool | None = None,
    ) -> None:
        self._profile = profile
        self._fast_path = fast_path_enabled(fast_path)
        self._cluster = cluster
        self._clock = clock
        self._snapshot = snapshot
        self._event_recorder = event_recorder
        self.nominator = nominator
        self.activator = activator
        self.event_reporter = event_reporter
        """Where `report_cluster_event` goes (the scheduler's event handlers)."""
        self.waiting_pods = WaitingPodsMap()
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score

        # one instance per plugin, shared by all its extension points (upstream Registry)
        self.plugins: dict[str, Plugin] = {}
        for names in profile.points.values():
            for name in names:
                if name not in self.plugins:
                    self.plugins[name] = self._build(name, plugin_classes)

        def at(point: str) -> list[Any]:  # the resolver placed only plugins of that point
            return [self.plugins[n] for n in profile.points.get(point, ())]

        self.queue_sort_plugins: list[QueueSortPlugin] = at("QueueSort")
        self.pre_enqueue_plugins: list[PreEnqueuePlugin] = at("PreEnqueue")
        self.pre_filter_plugins: list[PreFilterPlugin] = at("PreFilter")
        self.filter_plugins: list[FilterPlugin] = at("Filter")
        self.post_filter_plugins: list[PostFilterPlugin] = at("PostFilter")
        self.pre_score_plugins: list[PreScorePlugin] = at("PreScore")
        self.score_plugins: list[ScorePlugin] = at("Score")
        self.reserve_plugins: list[ReservePlugin] = at("Reserve")
        self.permit_plugins: list[PermitPlugin] = at("Permit")
        self.pre_bind_plugins: list[PreBindPlugin] = at("PreBind")
        self.bind_plugins: list[BindPlugin] = at("Bind")
        self.post_bind_plugins: list[PostBindPlugin] = at("PostBind")
        self.score_weights = {
            p.name: profile.weights.get(p.name, 1) or 1 for p in self.score_plugins
        }
        self._normalizers = {
            p.name
            for p in self.score_plugins
            if type(p).normalize_score is not ScorePlugin.normalize_score
        }
        # plugins that filter many nodes in one call (kubesched's BatchFilterPlugin)
        self._batch_filters = {
            p.name: p.filter_nodes for p in self.filter_plugins if isinstance(p, BatchFilterPlugin)
        }
        # plugins that score all nodes in one call (kubesched's BatchScorePlugin)
        self._batch_scorers = {
            p.name: p.score_nodes for p in self.score_plugins if isinstance(p, BatchScorePlugin)
        }
        # the array forms the fast path calls (plugin API 0.4)
        self._array_filters = {
            p.name: p.filter_mask for p in self.filter_plugins if isinstance(p, ArrayFilterPlugin)
        }
        self._array_scorers = {
            p.name: p.score_array for p in self.score_plugins if isinstance(p, ArrayScorePlugin)
        }
        self._array_normalizers = {
            p.name: p.normalize_score_array
            for p in self.score_plugins
            if p.name in self._normalizers and isinstance(p, ArrayNormalizeScorePlugin)
        }

    def _use_wrapped(self, wrapped: Mapping[str, Any]) -> None:
        """Every extension point's plugins replaced by what `wrapped` names for them (a
        plugin with some methods wrapped: run's metrics, a fault plan); QueueSort keeps its
        own."""
        for points in _WRAPPABLE_POINTS:
            setattr(self, points, [wrapped[p.name] for p in getattr(self, points)])

    def _build(self, name: str, plugin_classes: Mapping[str, type[Plugin]]) -> Plugin:
        cls = plugin_classes.get(name)
        if cls is None:
            raise ConfigError(f'plugin "{name}" does not exist')
        args = self._profile.args.get(name)
        if args is None:
            args = cls.Args()
        try:
            return cls(args, self)
        except Exception as exc:
            raise ConfigError(
                f'initializing plugin "{name}": {type(exc).__name__}: {exc}',
                path=f"profile {self._profile.scheduler_name!r}",
            ) from exc

    # -- Handle -------------------------------------------------------------------------
    @property
    def profile_name(self) -> str:
        return self._profile.scheduler_name

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshot

    @property
    def fast_path(self) -> bool:
        return self._fast_path

    @property
    def cluster(self) -> Any:
        return self._cluster

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def event_recorder(self) -> EventRecorder:
        return self._event_recorder

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None:
        for wp in self.waiting_pods:
            callback(wp)

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.waiting_pods.get(uid)

    def reject_waiting_pod(self, uid: str) -> bool:
        wp = self.waiting_pods.get(uid)
        return wp is not None and wp.reject("", "removed")

    def activate(self, pods: Sequence[Pod]) -> None:
        if self.activator is not None:
            self.activator(pods)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        if self.nominator is None:
            return []
        return self.nominator.nominated_pods_for_node(node_name)

    def plugins_at(self, extension_point: str) -> list[str]:
        return list(self._profile.points.get(extension_point, ()))

    def report_cluster_event(self, event: ClusterEvent, old: Any, new: Any) -> None:
        if self.event_reporter is not None:
            self.event_reporter(event, old, new)

    # -- events -------------------------------------------------------------------------
    def events_to_register(self) -> dict[str, list[ClusterEventWithHint]]:
        """What each rejecting plugin (PreEnqueue, PreFilter, Filter, Reserve, Permit)
        registered; plugins that declare nothing are registered for every event."""
        everything = [ClusterEventWithHint(ClusterEvent(EventResource.Wildcard, ActionType.All))]
        result: dict[str, list[ClusterEventWithHint]] = {}
        for group in (
            self.pre_enqueue_plugins,
            self.pre_filter_plugins,
            self.filter_plugins,
            self.reserve_plugins,
            self.permit_plugins,
        ):
            for p in group:
                if p.name in result:
                    continue
                if isinstance(p, EnqueueExtensions):
                    try:
                        events = list(p.events_to_register())
                    except Exception as exc:
                        raise ConfigError(
                            f'plugin "{p.name}" failed to register events: {exc}'
                        ) from exc
                    result[p.name] = _with_node_taint_update(events)
                else:
                    result[p.name] = everything
        return result

    # -- PreEnqueue / QueueSort ---------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: Pod) -> Status:
        for p in self.pre_enqueue_plugins:
            try:
                s = p.pre_enqueue(pod)
            except Exception as exc:
                s = raised(p, exc)
            if s is not None and not s.is_success:
                return s.with_plugin(p.name)
        return SUCCESS

    # -- PreFilter ----------------------------------------------------------------------
    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        """Upstream RunPreFilterPlugins: Skip disables the plugin's Filter; UUR stops at once;
        Unschedulable is remembered while the rest still run; results are intersected."""
        recorder = recorder_of(state)
        out = self._run_pre_filter_plugins(state, pod, nodes, recorder)
        if recorder is not None:
            recorder.pre_filter_finished(nodes, *out)
        return out

    def _run_pre_filter_plugins(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        recorder: CycleRecorder | None,
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        result: PreFilterResult | None = None
        with_nodes: list[str] = []
        skip: set[str] = set()
        rejected: Status | None = None
        rejectors: set[str] = set()
        for p in self.pre_filter_plugins:
            try:
                r, s = p.pre_filter(state, pod, nodes)
            except Exception as exc:
                if recorder is not None:
                    recorder.pre_filter_answered(p.name, None, exc)
                r, s = None, raised(p, exc)
            else:
                if recorder is not None:
                    recorder.pre_filter_answered(p.name, s, None)
            if s is not None and s.code is Code.Skip:
                skip.add(p.name)
                continue
            if s is not None and not s.is_success:
                s = s.with_plugin(p.name)
                if s.code is Code.UnschedulableAndUnresolvable:
                    return None, s, rejectors | {p.name}
                if s.code is Code.Unschedulable:
                    rejected = s
                    rejectors.add(p.name)
                    continue
                return None, wrap_error(f'running PreFilter plugin "{p.name}"', p.name, s), set()
            if r is not None and not r.all_nodes:
                with_nodes.append(p.name)
                result = r if result is None else result.merge(r)
                if not result.node_names:
                    if len(with_nodes) == 1:
                        msg = f"node(s) didn't satisfy plugin {with_nodes[0]}"
                    else:
                        names = " ".join(sorted(with_nodes))
                        msg = f"node(s) didn't satisfy plugin(s) [{names}] simultaneously"
                    return result, Status.unresolvable(msg), rejectors | set(with_nodes)
        state.skip_filter_plugins = skip
        # upstream returns pluginsWithNodes here too: the nodes a PreFilterResult left out
        # "didn't satisfy plugin(s) [...]", and those plugins' events can requeue the pod
        return result, (rejected or SUCCESS), rejectors | set(with_nodes)

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status:
        return self._run_extension("AddPod", state, pod_to_schedule, pod_info_to_add, node_info)

    def run_pre_filter_extension_remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status:
        return self._run_extension(
            "RemovePod", state, pod_to_schedule, pod_info_to_remove, node_info
        )

    def _run_extension(
        self, what: str, state: CycleState, pod: Pod, other: PodInfo, node_info: NodeInfo
    ) -> Status:
        for p in self.pre_filter_plugins:
            if p.name in state.skip_filter_plugins:
                continue
            ext = p.pre_filter_extensions()
            if ext is None:
                continue
            try:
                fn = ext.add_pod if what == "AddPod" else ext.remove_pod
                s = fn(state, pod, other, node_info)
            except Exception as exc:
                s = raised(p, exc)
            if s is not None and not s.is_success:
                return wrap_error(f'running {what} on PreFilter plugin "{p.name}"', p.name, s)
        return SUCCESS

    # -- PostFilter ---------------------------------------------------------------------
    def run_post_filter_plugins(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """First success wins; UUR or an error stops; Unschedulable results accumulate."""
        reasons: list[str] = []
        rejector = ""
        result: PostFilterResult | None = None
        for p in self.post_filter_plugins:
            try:
                r, s = p.post_filter(state, pod, statuses)
            except Exception as exc:
                r, s = None, raised(p, exc)
            if s is None or s.is_success:
                return r, SUCCESS
            if s.code is Code.UnschedulableAndUnresolvable:
                return r, s.with_plugin(p.name)
            if s.code is not Code.Unschedulable:
                return None, Status(
                    Code.Error, error=s.error or RuntimeError(s.message()), plugin=p.name
                )
            reasons.extend(s.reasons)
            rejector = rejector or p.name
            if r is not None and r.nominating_info is not None:
                result = r
        return result, Status(Code.Unschedulable, *reasons, plugin=rejector)

    # -- Reserve ------------------------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        for p in self.reserve_plugins:
            try:
                s = p.reserve(state, pod, node_name)
            except Exception as exc:
                s = raised(p, exc)
            if s is not None and not s.is_success:
                if s.is_rejected:
                    return s.with_plugin(p.name)
                return wrap_error(f'running Reserve plugin "{p.name}"', p.name, s)
        return SUCCESS

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Every Reserve plugin's unreserve, in reverse order; exceptions are swallowed
        (an unreserve must not fail) after being reported to the event recorder."""
        for p in reversed(self.reserve_plugins):
            try:
                p.unreserve(state, pod, node_name)
            except Exception as exc:
                self._event_recorder.event(
                    pod,
                    "Warning",
                    "UnreserveFailed",
                    "Unreserve",
                    f"plugin {p.name} raised {type(exc).__name__}: {exc}",
                )

    # -- Permit -------------------------------------------------------------------------
    def run_permit_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Any rejection wins; plugins that say Wait each get a timer (at most 15 min);
        a waiting pod is registered when at least one waits."""
        timeouts: dict[str, float] = {}
        for p in self.permit_plugins:
            try:
                s, timeout = p.permit(state, pod, node_name)
            except Exception as exc:
                s, timeout = raised(p, exc), 0.0
            if s is None or s.is_success:
                continue
            if s.is_rejected:
                return s.with_plugin(p.name)
            if s.code is Code.Wait:
                timeouts[p.name] = min(max(float(timeout), 0.0), MAX_PERMIT_TIMEOUT)
                continue
            return wrap_error(f'running Permit plugin "{p.name}"', p.name, s)
        if timeouts:
            wp = WaitingPodImpl(pod, timeouts)
            self.waiting_pods.add(wp)
            name = pod.metadata.name
            return Status.wait(
                f'one or more plugins asked to wait and no plugin rejected pod "{name}"'
            )
        return SUCCESS

    async def wait_on_permit(self, pod: Pod) -> Status:
        wp = self.waiting_pods.get(pod.metadata.uid)
        if wp is None:
            return SUCCESS
        try:
            s = await wp.wait()
        finally:
            self.waiting_pods.remove(pod.metadata.uid)
        if s.is_success or s.is_rejected:
            return s
        return Status(
            Code.Error,
            error=RuntimeError(f"waiting on permit for pod: {s.message()}"),
            plugin=s.plugin,
        )

    # -- binding cycle ------------------------------------------------------------------
    async def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        for p in self.pre_bind_plugins:
            try:
                s = await p.pre_bind(state, pod, node_name)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                s = raised(p, exc)
            if s is not None and not s.is_success:
                if s.is_rejected:
                    return s.with_plugin(p.name)
                return wrap_error(f'running PreBind plugin "{p.name}"', p.name, s)
        return SUCCESS

    async def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Binders in order: Skip passes on, Success stops; all Skip is a failure."""
        status: Status = Status.skip()
        for p in self.bind_plugins:
            try:
                s = await p.bind(state, pod, node_name)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                s = raised(p, exc)
            if s is not None and s.code is Code.Skip:
                status = s
                continue
            if s is None or s.is_success:
                return SUCCESS
            if s.is_rejected:
                return s.with_plugin(p.name)
            return wrap_error(f'running Bind plugin "{p.name}"', p.name, s)
        return status

    async def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        for p in self.post_bind_plugins:
            try:
                await p.post_bind(state, pod, node_name)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._event_recorder.event(
                    pod,
                    "Warning",
                    "PostBindFailed",
                    "PostBind",
                    f"plugin {p.name} raised {type(exc).__name__}: {exc}",
                )

    # -- introspection ------------------------------------------------------------------
    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    def queue_sort_less(self) -> Callable[[Any, Any], bool]:
        return self.queue_sort_plugins[0].less
