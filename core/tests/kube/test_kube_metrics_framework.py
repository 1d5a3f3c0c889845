"""The instrumented profile `kubesched run` builds: the same plugins, events and answers
as a plain Framework, with its calls counted (upstream instrumented_plugins.go)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("prometheus_client", reason="needs the kube extra (prometheus_client)")

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.config import ResolvedProfile
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    NodeColumns,
    NodeInfo,
    Plugin,
    RowMask,
    Rows,
    Snapshot,
    Status,
)
from kubesched.run import SchedulerMetrics
from kubesched.runtime import Framework
from kubesched.testing import make_node, make_pod


class NodeWatcher(FilterPlugin, EnqueueExtensions):
    name = "NodeWatcher"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("no") if node_info.name == "bad" else None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.Node, ActionType.Add))]


class Plain(FilterPlugin):
    name = "Plain"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class _Recorder:
    def event(self, *args: Any, **kwargs: Any) -> None:
        pass


def _build(build: Any) -> Framework:
    classes: dict[str, type[Plugin]] = {"NodeWatcher": NodeWatcher, "Plain": Plain}
    profile = ResolvedProfile("prof", {"Filter": ["NodeWatcher", "Plain"]}, {}, {})
    framework: Framework = build(
        profile,
        classes,
        cluster=None,
        clock=VirtualClock(),
        snapshot=Snapshot(),
        event_recorder=_Recorder(),
    )
    return framework


def test_an_instrumented_profile_is_the_plain_one_counted() -> None:
    metrics = SchedulerMetrics()
    plain, counted = _build(Framework), _build(metrics.framework)
    # the wrapped plugins keep their class: the same events, the same kinds
    assert counted.events_to_register() == plain.events_to_register()
    kinds = [p.__class__ for p in counted.filter_plugins]
    assert kinds == [type(p) for p in plain.filter_plugins]
    watcher = counted.filter_plugins[0]
    assert isinstance(watcher, NodeWatcher) and isinstance(watcher, EnqueueExtensions)
    assert counted.plugins["NodeWatcher"] is not watcher  # the instance itself stays as built
    pod = make_pod("p").obj()
    for name in ("good", "bad"):
        info = NodeInfo(make_node(name).alloc(cpu="1", pods=10).obj())
        assert counted.run_filter_plugins(CycleState(), pod, info) == plain.run_filter_plugins(
            CycleState(), pod, info
        )
    evaluations = metrics.plugins.evaluations
    assert evaluations[("NodeWatcher", "Filter", "prof")] == 2
    assert evaluations[("Plain", "Filter", "prof")] == 1  # not reached on "bad"


class Masked(NodeWatcher):
    """NodeWatcher with an array form (plugin API 0.4)."""

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        mask: RowMask = np.array([columns.names[r] != "bad" for r in rows.tolist()], np.bool_)
        return mask


def test_the_fast_path_counts_each_node_once_per_plugin_as_the_per_node_path() -> None:
    metrics = SchedulerMetrics()
    infos = [NodeInfo(make_node(n).alloc(cpu="1", pods=10).obj()) for n in ("a", "bad", "c")]
    profile = ResolvedProfile("prof", {"Filter": ["NodeWatcher", "Plain"]}, {}, {})
    counted: Framework = metrics.framework(
        profile,
        {"NodeWatcher": Masked, "Plain": Plain},
        cluster=None,
        clock=VirtualClock(),
        snapshot=Snapshot(infos),
        event_recorder=_Recorder(),
    )
    passed, rejected = counted.filter_rows(
        CycleState(), make_pod("p").obj(), np.arange(3, dtype=np.intp)
    )
    assert passed.tolist() == [True, False, True]
    assert rejected[1].message() == "no" and rejected[1].plugin == "NodeWatcher"
    evaluations = metrics.plugins.evaluations
    # the mask counts the two rows it passes, `filter` the one it rejects
    assert evaluations[("NodeWatcher", "Filter", "prof")] == 3
    assert evaluations[("Plain", "Filter", "prof")] == 2


class ExactMasked(Masked):
    """Masked, promising its mask rejects only what `filter` rejects."""

    filter_mask_exact = True


def test_rows_an_exact_mask_rejects_are_counted_once_built_or_not() -> None:
    metrics = SchedulerMetrics()
    infos = [NodeInfo(make_node(n).alloc(cpu="1", pods=10).obj()) for n in ("a", "bad", "c")]
    profile = ResolvedProfile("prof", {"Filter": ["NodeWatcher", "Plain"]}, {}, {})
    counted: Framework = metrics.framework(
        profile,
        {"NodeWatcher": ExactMasked, "Plain": Plain},
        cluster=None,
        clock=VirtualClock(),
        snapshot=Snapshot(infos),
        event_recorder=_Recorder(),
    )
    state, pod = CycleState(), make_pod("p").obj()
    passed, rejected, deferred = counted.filter_rows_deferring(
        state, pod, np.arange(3, dtype=np.intp)
    )
    assert passed.tolist() == [True, False, True] and rejected == {}
    assert deferred is not None and deferred.tolist() == [-1, 0, -1]
    evaluations = metrics.plugins.evaluations
    # as the per-node path (and upstream's Filter on each node): NodeWatcher saw 3 nodes
    assert evaluations[("NodeWatcher", "Filter", "prof")] == 3
    assert evaluations[("Plain", "Filter", "prof")] == 2
    (status,) = counted.deferred_statuses(0, state, pod, ["bad"])
    assert status.message() == "no" and status.plugin == "NodeWatcher"
    assert evaluations[("NodeWatcher", "Filter", "prof")] == 3  # not counted twice
