"""A plugin instance in a test: built by its factory with a real Handle over an embedded
cluster, and driven through one scheduling cycle the way the framework would drive it.

`PluginHarness` is what the conformance contracts use, and is handy in a plugin's own
behaviour tests too:

    h = PluginHarness(MyPlugin, MyPlugin.Args(), scenario)
    state = CycleState()
    outcome = h.filter_phase(state)      # PreFilter, then Filter on the nodes it allows
    assert outcome.statuses["node-1"].is_success

The Handle is a `kubesched.runtime.Framework` for a profile holding only this plugin, so
`handle.cluster`, `handle.snapshot`, `handle.clock`, waiting pods and the runners all work.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from kubesched.api import K8sModel, KindRegistry, Pod
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.config import ResolvedProfile
from kubesched.framework import (
    FilterPlugin,
    NodeInfo,
    NodeScore,
    Plugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ScorePlugin,
    Snapshot,
    Status,
    extension_points_of,
)
from kubesched.runtime import Framework, make_plugin_manager
from kubesched.testing._scenario import Scenario

__all__ = [
    "FilterPhase",
    "PluginHarness",
    "RecordingEventRecorder",
    "ScorePhase",
    "shared_kinds",
    "status_of",
    "validate_args",
]


def status_of(value: Status | None) -> Status:
    """None means Success."""
    return value if value is not None else Status()


@functools.cache
def shared_kinds() -> KindRegistry:
    """Core kinds plus every kind installed plugin packages register (loaded once)."""
    return default_kinds(make_plugin_manager())


@dataclass
class RecordingEventRecorder:
    """Keeps the events a plugin records: (reason, action, message, object key)."""

    events: list[tuple[str, str, str, str]] = field(default_factory=list)
    related: list[str | None] = field(default_factory=list)
    """The related object's key of each event (None when it names none)."""

    def event(
        self,
        obj: Any,
        event_type: str,
        reason: str,
        action: str,
        message: str,
        related: Any = None,
    ) -> None:
        self.events.append((reason, action, message, _key_of(obj)))
        self.related.append(None if related is None else _key_of(related))


def _key_of(obj: Any) -> str:
    meta = getattr(obj, "metadata", None)
    return f"{meta.namespace or ''}/{meta.name}" if meta is not None else repr(obj)


@dataclass
class FilterPhase:
    """What PreFilter and Filter said about one pod.

    `pre_filter` is the plugin's PreFilter status (Success when it has none); `result` its
    PreFilterResult; `statuses` the Filter status of each node Filter was run on: none when
    PreFilter skipped or rejected, only the result's nodes when it narrowed them.
    """

    pre_filter: Status
    result: PreFilterResult | None
    statuses: dict[str, Status]

    @property
    def ran_filter(self) -> bool:
        return self.pre_filter.is_success

    @property
    def feasible(self) -> list[str]:
        return [name for name, s in self.statuses.items() if s.is_success]

    def answers(self) -> dict[str, tuple[int, str]]:
        """Each node's (code, message): what two runs must agree on."""
        return {name: (int(s.code), s.message()) for name, s in self.statuses.items()}


@dataclass
class ScorePhase:
    """What PreScore, Score and NormalizeScore said about the feasible nodes.

    `status` is the first failure of Score or NormalizeScore (Success when none);
    `raw` the scores Score returned, `scores` the same after NormalizeScore.
    """

    pre_score: Status
    status: Status
    raw: list[int]
    scores: list[NodeScore]

    @property
    def complete(self) -> bool:
        """Whether every node got a final score."""
        return self.status.is_success and bool(self.scores)


_T = TypeVar("_T")


class PluginHarness:
    """One plugin built by its factory, its Handle, and a cluster holding the scenario."""

    def __init__(
        self,
        plugin_cls: type[Plugin],
        args: BaseModel,
        scenario: Scenario | None = None,
        objects: Iterable[K8sModel] = (),
    ) -> None:
        self.plugin_cls = plugin_cls
        self.name: str = plugin_cls.name
        self.scenario = scenario
        self.clock: VirtualClock = VirtualClock()
        self.cluster: MemoryCluster = MemoryCluster(shared_kinds(), self.clock)
        self.recorder: RecordingEventRecorder = RecordingEventRecorder()
        to_create: list[K8sModel] = list(objects)
        if scenario is not None:
            to_create += [*scenario.nodes, *scenario.existing, scenario.pod]
        self.cluster.create_many(to_create)
        self.snapshot: Snapshot = scenario.snapshot() if scenario is not None else Snapshot()
        points = {point: [self.name] for point in extension_points_of(plugin_cls)}
        profile = ResolvedProfile(
            scheduler_name="default-scheduler",
            points=points,
            weights={self.name: 1},
            args={self.name: args},
        )
        self.framework = Framework(
            profile,
            {self.name: plugin_cls},
            cluster=self.cluster,
            clock=self.clock,
            snapshot=self.snapshot,
            event_recorder=self.recorder,
        )
        self.plugin: Plugin = self.framework.plugins[self.name]

    # -- the cycle, as the framework runs it for this one plugin -------------------------
    @property
    def pod(self) -> Pod:
        if self.scenario is None:
            raise ValueError("this harness has no scenario")
        return self.scenario.pod

    @property
    def nodes(self) -> list[NodeInfo]:
        return self.snapshot.list()

    def filter_phase(self, state: Any, pod: Pod | None = None) -> FilterPhase:
        """PreFilter (when the plugin has it), then Filter on each node it lets through.

        Filter only runs when the plugin is a FilterPlugin and PreFilter succeeded.
        """
        pod = pod or self.pod
        result: PreFilterResult | None = None
        pre = Status()
        if isinstance(self.plugin, PreFilterPlugin):
            result, raw = self.plugin.pre_filter(state, pod, self.nodes)
            pre = status_of(raw)
        statuses: dict[str, Status] = {}
        if pre.is_success and isinstance(self.plugin, FilterPlugin):
            for info in self.nodes_for(result):
                statuses[info.name] = status_of(self.plugin.filter(state, pod, info))
        return FilterPhase(pre, result, statuses)

    def feasible(self, phase: FilterPhase) -> list[NodeInfo]:
        """The nodes Score would see: those Filter accepted; every node PreFilter leaves
        when the plugin has no Filter (or PreFilter skipped it); none after a rejection."""
        if phase.pre_filter.is_skip:
            return self.nodes_for(None)
        if not phase.pre_filter.is_success:
            return []
        if isinstance(self.plugin, FilterPlugin):
            accepted = set(phase.feasible)
            return [n for n in self.nodes if n.name in accepted]
        return self.nodes_for(phase.result)

    def score_phase(
        self, state: Any, nodes: Sequence[NodeInfo], pod: Pod | None = None, *, force: bool = False
    ) -> ScorePhase:
        """PreScore (when the plugin has it), then Score on `nodes` and NormalizeScore when
        the plugin overrides it. With `force`, Score runs even after a PreScore Skip."""
        pod = pod or self.pod
        pre = Status()
        if isinstance(self.plugin, PreScorePlugin):
            pre = status_of(self.plugin.pre_score(state, pod, nodes))
        phase = ScorePhase(pre, Status(), [], [])
        if not isinstance(self.plugin, ScorePlugin):
            return phase
        if not (pre.is_success or (force and pre.is_skip)):
            return phase
        for info in nodes:
            value, raw_status = self.plugin.score(state, pod, info)
            phase.status = status_of(raw_status)
            if not phase.status.is_success:
                return phase
            phase.raw.append(value)
            phase.scores.append(NodeScore(info.name, value))
        if type(self.plugin).normalize_score is not ScorePlugin.normalize_score:
            phase.status = status_of(self.plugin.normalize_score(state, pod, phase.scores))
        return phase

    def run_in_loop(self, call: Callable[[], _T]) -> _T:
        """Call `call` inside a running event loop on this harness's virtual clock, for
        plugin methods that start tasks; tasks still pending afterwards are cancelled."""
        loop = VirtualTimeLoop(self.clock)

        async def main() -> _T:
            value = call()
            await asyncio.sleep(0)
            return value

        try:
            return loop.run_until_complete(main())
        finally:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

    def nodes_for(
        self, result: PreFilterResult | None, nodes: Sequence[NodeInfo] | None = None
    ) -> list[NodeInfo]:
        """The nodes a PreFilterResult leaves to Filter (all of them for None)."""
        infos = list(nodes if nodes is not None else self.nodes)
        if result is None or result.node_names is None:
            return infos
        return [n for n in infos if n.name in result.node_names]


def validate_args(plugin_cls: type[Plugin], raw: Mapping[str, Any]) -> BaseModel:
    """The plugin's Args from a `pluginConfig` args mapping (camelCase keys)."""
    return plugin_cls.Args.model_validate(dict(raw))
