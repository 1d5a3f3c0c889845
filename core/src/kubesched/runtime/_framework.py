"""Framework: one profile's plugins and the runner of every extension point.

Upstream: pkg/scheduler/framework/runtime/framework.go. Each runner calls the plugins of
its point in the profile's order and turns their answers into one Status with upstream's
rules and messages. A plugin that raises gets an Error status naming it; the scheduler goes
on. The Framework is also the Handle its plugins receive.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from pydantic import BaseModel

from kubesched._errors import ConfigError
from kubesched.api import Pod
from kubesched.clock import Clock
from kubesched.framework import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    ActionType,
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
    NodeScore,
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
from kubesched.runtime._waiting_pods import MAX_PERMIT_TIMEOUT, WaitingPodImpl, WaitingPodsMap

__all__ = ["Framework", "NodePluginScores", "PodNominator", "ProfileSpec"]

_SUCCESS = Status()
_P = TypeVar("_P", bound=Plugin)


class PodNominator(Protocol):
    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]: ...

    def has_nominated_pods(self) -> bool: ...


@dataclass(frozen=True)
class ProfileSpec:
    """What the Framework needs of a resolved profile (see kubesched.config.ResolvedProfile)."""

    scheduler_name: str
    points: Mapping[str, Sequence[str]]
    weights: Mapping[str, int]
    args: Mapping[str, BaseModel]
    percentage_of_nodes_to_score: int | None = None


class NodePluginScores:
    """A feasible node's weighted score per plugin (`scores`: (plugin, score) in the
    profile's order) and their sum (`total_score`).

    The Score runner gives each node its row of the plugins' weighted scores, and
    `scores` pairs it with the plugin names when first read: selecting the host needs only
    the totals."""

    __slots__ = ("_plugins", "_row", "_scores", "name", "total_score")

    def __init__(
        self,
        name: str,
        scores: list[tuple[str, int]] | None = None,
        total_score: int = 0,
        *,
        plugins: Sequence[str] = (),
        row: Sequence[int] = (),
    ) -> None:
        self.name = name
        self.total_score = total_score
        self._scores = scores
        self._plugins = plugins
        self._row = row

    @property
    def scores(self) -> list[tuple[str, int]]:
        if self._scores is None:
            self._scores = list(zip(self._plugins, self._row, strict=True))
        return self._scores

    @scores.setter
    def scores(self, value: list[tuple[str, int]]) -> None:
        self._scores = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NodePluginScores):
            return NotImplemented
        return (self.name, self.scores, self.total_score) == (
            other.name,
            other.scores,
            other.total_score,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it replaces

    def __repr__(self) -> str:
        return (
            f"NodePluginScores(name={self.name!r}, scores={self.scores!r}, "
            f"total_score={self.total_score!r})"
        )


def _raised(plugin: Plugin, exc: BaseException) -> Status:
    error = RuntimeError(f"plugin {plugin.name} raised {type(exc).__name__}: {exc}")
    error.__cause__ = exc
    return Status(Code.Error, error=error, plugin=plugin.name)


def _wrap_error(prefix: str, plugin: str, status: Status) -> Status:
    return Status(Code.Error, error=RuntimeError(f"{prefix}: {status.message()}"), plugin=plugin)


class Framework:
    """A profile's plugin instances by extension point, and their runners."""

    def __init__(
        self,
        profile: ProfileSpec,
        plugin_classes: Mapping[str, type[Plugin]],
        *,
        cluster: Any,
        clock: Clock,
        snapshot: Snapshot,
        event_recorder: EventRecorder,
        nominator: PodNominator | None = None,
        activator: Callable[[Sequence[Pod]], None] | None = None,
        event_reporter: Callable[[ClusterEvent, Any, Any], None] | None = None,
    ) -> None:
        self._profile = profile
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

        def at(point: str, base: type[_P]) -> list[_P]:
            return [cast(_P, self.plugins[n]) for n in profile.points.get(point, ())]

        self.queue_sort_plugins = at("QueueSort", QueueSortPlugin)
        self.pre_enqueue_plugins = at("PreEnqueue", PreEnqueuePlugin)
        self.pre_filter_plugins = at("PreFilter", PreFilterPlugin)
        self.filter_plugins = at("Filter", FilterPlugin)
        self.post_filter_plugins = at("PostFilter", PostFilterPlugin)
        self.pre_score_plugins = at("PreScore", PreScorePlugin)
        self.score_plugins = at("Score", ScorePlugin)
        self.reserve_plugins = at("Reserve", ReservePlugin)
        self.permit_plugins = at("Permit", PermitPlugin)
        self.pre_bind_plugins = at("PreBind", PreBindPlugin)
        self.bind_plugins = at("Bind", BindPlugin)
        self.post_bind_plugins = at("PostBind", PostBindPlugin)
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
                        result[p.name] = list(p.events_to_register())
                    except Exception as exc:
                        raise ConfigError(
                            f'plugin "{p.name}" failed to register events: {exc}'
                        ) from exc
                else:
                    result[p.name] = everything
        return result

    # -- PreEnqueue / QueueSort ---------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: Pod) -> Status:
        for p in self.pre_enqueue_plugins:
            try:
                s = p.pre_enqueue(pod)
            except Exception as exc:
                s = _raised(p, exc)
            if s is not None and not s.is_success:
                return s.with_plugin(p.name)
        return _SUCCESS

    # -- PreFilter ----------------------------------------------------------------------
    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        """Upstream RunPreFilterPlugins: Skip disables the plugin's Filter; UUR stops at once;
        Unschedulable is remembered while the rest still run; results are intersected."""
        result: PreFilterResult | None = None
        with_nodes: list[str] = []
        skip: set[str] = set()
        rejected: Status | None = None
        rejectors: set[str] = set()
        for p in self.pre_filter_plugins:
            try:
                r, s = p.pre_filter(state, pod, nodes)
            except Exception as exc:
                r, s = None, _raised(p, exc)
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
                return None, _wrap_error(f'running PreFilter plugin "{p.name}"', p.name, s), set()
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
        return result, (rejected or _SUCCESS), rejectors | set(with_nodes)

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
                s = _raised(p, exc)
            if s is not None and not s.is_success:
                return _wrap_error(f'running {what} on PreFilter plugin "{p.name}"', p.name, s)
        return _SUCCESS

    # -- Filter -------------------------------------------------------------------------
    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """The node's status: the first non-success stops (rejections keep their code)."""
        skip = state.skip_filter_plugins
        for p in self.filter_plugins:
            if skip and p.name in skip:
                continue
            try:
                s = p.filter(state, pod, node_info)
            except Exception as exc:
                s = _raised(p, exc)
            if s is not None and s.code is not Code.Success:
                if s.is_rejected:
                    return s.with_plugin(p.name)
                return _wrap_error(f'running "{p.name}" filter plugin', p.name, s)
        return _SUCCESS

    def run_filter_plugins_on_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status]:
        """`run_filter_plugins_with_nominated_pods` of each node, in the order given, with
        one call per plugin for the whole of `nodes` rather than one per node and plugin.

        Plugin by plugin in profile order, each sees the nodes every earlier plugin let
        through: through `filter_nodes` when it has it (BatchFilterPlugin), else `filter`
        node by node. A node's status is its first failing plugin's, attributed or wrapped
        exactly as `run_filter_plugins` does. Nodes with nominated pods take the per-node
        path. Every node is evaluated: the caller decides which answers count."""
        nominator = self.nominator
        if nominator is not None and nominator.has_nominated_pods():
            nominated = [bool(nominator.nominated_pods_for_node(n.name)) for n in nodes]
            if any(nominated):
                others = [n for n, has in zip(nodes, nominated, strict=True) if not has]
                batched = iter(self._filter_nodes_batched(state, pod, others))
                return [
                    self.run_filter_plugins_with_nominated_pods(state, pod, n)
                    if has
                    else next(batched)
                    for n, has in zip(nodes, nominated, strict=True)
                ]
        return self._filter_nodes_batched(state, pod, nodes)

    def _filter_nodes_batched(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status]:
        statuses: list[Status] = [_SUCCESS] * len(nodes)
        live = list(nodes)
        live_index = list(range(len(nodes)))
        skip = state.skip_filter_plugins
        for p in self.filter_plugins:
            if not live:
                break
            if skip and p.name in skip:
                continue
            answers = self._filter_one_plugin(p, state, pod, live)
            if answers.count(None) == len(answers):
                continue  # the usual case: every node passed
            still: list[NodeInfo] = []
            still_index: list[int] = []
            for i, info, s in zip(live_index, live, answers, strict=True):
                if s is None or s.code is Code.Success:
                    still.append(info)
                    still_index.append(i)
                elif s.is_rejected:
                    statuses[i] = s.with_plugin(p.name)
                else:
                    statuses[i] = _wrap_error(f'running "{p.name}" filter plugin', p.name, s)
            live, live_index = still, still_index
        return statuses

    def _filter_one_plugin(
        self, p: FilterPlugin, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> list[Status | None]:
        """One plugin's answer for each node: `filter_nodes` when it has it (node by node
        when that raises), else `filter` on each node; an exception is an Error."""
        batch = self._batch_filters.get(p.name)
        if batch is not None:
            try:
                answers = batch(state, pod, nodes)
                if not isinstance(answers, list):
                    answers = list(answers)
            except Exception:
                pass  # `filter` node by node says which node fails, and how
            else:
                if len(answers) == len(nodes):
                    return answers
                wrong = Status.as_error(
                    f"filter_nodes returned {len(answers)} statuses for {len(nodes)} nodes"
                )
                return [wrong] * len(nodes)
        out: list[Status | None] = []
        filter_ = p.filter
        for info in nodes:
            try:
                out.append(filter_(state, pod, info))
            except Exception as exc:
                out.append(_raised(p, exc))
        return out

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status:
        """Filter twice when pods of equal or higher priority are nominated to the node:
        once as if they were there, once without them; both must pass."""
        nominator = self.nominator
        if (
            nominator is None
            or not nominator.has_nominated_pods()
            or not nominator.nominated_pods_for_node(node_info.name)
        ):
            return self.run_filter_plugins(state, pod, node_info)
        status = _SUCCESS
        pods_added = False
        for i in range(2):
            state_to_use, info_to_use = state, node_info
            if i == 0:
                pods_added, state_to_use, info_to_use, err = self._add_nominated_pods(
                    pod, state, node_info
                )
                if err is not None:
                    return err
            elif not pods_added or not status.is_success:
                break
            status = self.run_filter_plugins(state_to_use, pod, info_to_use)
            if not status.is_success and not status.is_rejected:
                return status
        return status

    def _add_nominated_pods(
        self, pod: Pod, state: CycleState, node_info: NodeInfo
    ) -> tuple[bool, CycleState, NodeInfo, Status | None]:
        if self.nominator is None or node_info.node is None:
            return False, state, node_info, None
        nominated = self.nominator.nominated_pods_for_node(node_info.name)
        if not nominated:
            return False, state, node_info, None
        info_out = node_info.clone()
        state_out = state.clone()
        added = False
        for pi in nominated:
            if pi.pod.priority >= pod.priority and pi.pod.metadata.uid != pod.metadata.uid:
                info_out.add_pod_info(pi)
                s = self.run_pre_filter_extension_add_pod(state_out, pod, pi, info_out)
                if not s.is_success:
                    return False, state, node_info, s
                added = True
        return added, state_out, info_out, None

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
                r, s = None, _raised(p, exc)
            if s is None or s.is_success:
                return r, _SUCCESS
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

    # -- PreScore / Score ---------------------------------------------------------------
    def run_pre_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Status:
        skip: set[str] = set()
        for p in self.pre_score_plugins:
            try:
                s = p.pre_score(state, pod, nodes)
            except Exception as exc:
                s = _raised(p, exc)
            if s is not None and s.code is Code.Skip:
                skip.add(p.name)
                continue
            if s is not None and not s.is_success:
                return _wrap_error(f'running PreScore plugin "{p.name}"', p.name, s)
        state.skip_score_plugins = skip
        return _SUCCESS

    def run_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[NodePluginScores], Status]:
        """Score, NormalizeScore, range check [0, 100] and weights, per upstream
        RunScorePlugins: plugin by plugin, the first failure ends the cycle.

        A plugin with `score_nodes` (BatchScorePlugin) is called once for all nodes, the
        others once per node; the weighted scores are then gathered column-wise, so the
        per-node work left is building each node's NodePluginScores."""
        plugin_names: list[str] = []
        columns: list[Sequence[int]] = []
        for p in self.score_plugins:
            if p.name in state.skip_score_plugins:
                continue
            values, s = self._score_one_plugin(p, state, pod, nodes)
            if s is not None:
                return [], s
            if p.name in self._normalizers:
                scores = [NodeScore(info.name, v) for info, v in zip(nodes, values, strict=True)]
                try:
                    s = p.normalize_score(state, pod, scores)
                except Exception as exc:
                    s = _raised(p, exc)
                if s is not None and not s.is_success:
                    msg = f'running Normalize on Score plugins: plugin "{p.name}" failed with'
                    return [], _wrap_error(msg, p.name, s)
                values = [ns.score for ns in scores]
            if nodes and (min(values) < MIN_NODE_SCORE or max(values) > MAX_NODE_SCORE):
                bad = next(v for v in values if not MIN_NODE_SCORE <= v <= MAX_NODE_SCORE)
                msg = (
                    f'applying score defaultWeights on Score plugins: plugin "{p.name}" '
                    f"returns an invalid score {bad}, it should in the range of "
                    f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                )
                return [], Status(Code.Error, error=RuntimeError(msg), plugin=p.name)
            weight = self.score_weights[p.name]
            plugin_names.append(p.name)
            columns.append(values if weight == 1 else [v * weight for v in values])
        if not columns:
            return [NodePluginScores(n.name, []) for n in nodes], _SUCCESS
        return [
            NodePluginScores(info.name, None, sum(row), plugins=plugin_names, row=row)
            for info, row in zip(nodes, zip(*columns, strict=True), strict=True)
        ], _SUCCESS

    def _score_one_plugin(
        self, p: ScorePlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Sequence[int], Status | None]:
        """One plugin's raw scores of `nodes`, or the Error status that ends the cycle."""
        msg = f'running Score plugins: plugin "{p.name}" failed with'
        batch = self._batch_scorers.get(p.name)
        if batch is not None:
            try:
                values, s = batch(state, pod, nodes)
                if not isinstance(values, list) and (s is None or s.is_success):
                    # e.g. a numpy array: plain ints, as `score` gives
                    tolist = getattr(values, "tolist", None)
                    values = tolist() if callable(tolist) else list(values)
            except Exception as exc:
                values, s = [], _raised(p, exc)
            if s is not None and not s.is_success:
                return [], _wrap_error(msg, p.name, s)
            if len(values) != len(nodes):
                wrong = Status.as_error(
                    f"score_nodes returned {len(values)} scores for {len(nodes)} nodes"
                )
                return [], _wrap_error(msg, p.name, wrong)
            return values, None
        scored: list[int] = []
        score = p.score
        for info in nodes:
            try:
                value, s = score(state, pod, info)
            except Exception as exc:
                value, s = 0, _raised(p, exc)
            if s is not None and not s.is_success:
                return [], _wrap_error(msg, p.name, s)
            scored.append(value)
        return scored, None

    # -- Reserve ------------------------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        for p in self.reserve_plugins:
            try:
                s = p.reserve(state, pod, node_name)
            except Exception as exc:
                s = _raised(p, exc)
            if s is not None and not s.is_success:
                if s.is_rejected:
                    return s.with_plugin(p.name)
                return _wrap_error(f'running Reserve plugin "{p.name}"', p.name, s)
        return _SUCCESS

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
                s, timeout = _raised(p, exc), 0.0
            if s is None or s.is_success:
                continue
            if s.is_rejected:
                return s.with_plugin(p.name)
            if s.code is Code.Wait:
                timeouts[p.name] = min(max(float(timeout), 0.0), MAX_PERMIT_TIMEOUT)
                continue
            return _wrap_error(f'running Permit plugin "{p.name}"', p.name, s)
        if timeouts:
            wp = WaitingPodImpl(pod, timeouts)
            self.waiting_pods.add(wp)
            name = pod.metadata.name
            return Status.wait(
                f'one or more plugins asked to wait and no plugin rejected pod "{name}"'
            )
        return _SUCCESS

    async def wait_on_permit(self, pod: Pod) -> Status:
        wp = self.waiting_pods.get(pod.metadata.uid)
        if wp is None:
            return _SUCCESS
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
                s = _raised(p, exc)
            if s is not None and not s.is_success:
                if s.is_rejected:
                    return s.with_plugin(p.name)
                return _wrap_error(f'running PreBind plugin "{p.name}"', p.name, s)
        return _SUCCESS

    async def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Binders in order: Skip passes on, Success stops; all Skip is a failure."""
        status: Status = Status.skip()
        for p in self.bind_plugins:
            try:
                s = await p.bind(state, pod, node_name)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                s = _raised(p, exc)
            if s is not None and s.code is Code.Skip:
                status = s
                continue
            if s is None or s.is_success:
                return _SUCCESS
            if s.is_rejected:
                return s.with_plugin(p.name)
            return _wrap_error(f'running Bind plugin "{p.name}"', p.name, s)
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
