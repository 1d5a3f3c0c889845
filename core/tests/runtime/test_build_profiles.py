"""build_profiles: a resolved configuration becomes one Framework per profile (upstream
profile.NewMap), after NewMap's checks."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched import ConfigError
from kubesched.clock import VirtualClock
from kubesched.config import (
    KubeSchedulerConfiguration,
    ResolvedConfig,
    ResolvedProfile,
    parse_config,
    resolve,
)
from kubesched.framework import BindPlugin, FilterPlugin, Plugin, QueueSortPlugin, Snapshot
from kubesched.runtime import Framework, PluginRegistry, build_profiles


class Sort(QueueSortPlugin):
    name = "Sort"

    def less(self, a: Any, b: Any) -> bool:
        return False


class OtherSort(Sort):
    name = "OtherSort"


class Binder(BindPlugin):
    name = "Binder"

    async def bind(self, *args: Any) -> Any:
        return None


class Fits(FilterPlugin):
    name = "Fits"

    def filter(self, *args: Any) -> Any:
        return None


PLUGINS: dict[str, type[Plugin]] = {p.name: p for p in (Sort, OtherSort, Binder, Fits)}


class Recorder:
    def __init__(self, name: str) -> None:
        self.name = name

    def event(self, *args: Any, **kwargs: Any) -> None:
        pass


def build(resolved: ResolvedConfig) -> dict[str, Framework]:
    return build_profiles(
        resolved,
        PLUGINS,
        cluster=None,
        clock=VirtualClock(),
        snapshot=Snapshot(),
        recorder_factory=Recorder,
    )


def only(*names: str) -> dict[str, Any]:
    return {"multiPoint": {"enabled": [{"name": n} for n in names], "disabled": [{"name": "*"}]}}


def test_each_profile_becomes_a_framework_with_its_own_plugins_and_recorder() -> None:
    config = parse_config(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {"schedulerName": "a", "plugins": only("Sort", "Binder", "Fits")},
                {"schedulerName": "b", "plugins": only("Sort", "Binder")},
            ],
        }
    )
    profiles = build(resolve(config, PluginRegistry.of(*PLUGINS.values())))
    assert list(profiles) == ["a", "b"]
    assert [p.name for p in profiles["a"].filter_plugins] == ["Fits"]
    assert profiles["b"].filter_plugins == []
    assert profiles["b"].profile_name == "b"
    assert isinstance(profiles["b"].event_recorder, Recorder)
    assert profiles["b"].event_recorder.name == "b"


def hand_written(*profiles: ResolvedProfile) -> ResolvedConfig:
    return ResolvedConfig("sched.yaml", KubeSchedulerConfiguration(), list(profiles))


def test_two_profiles_with_one_scheduler_name_are_refused() -> None:
    points = {"QueueSort": ["Sort"], "Bind": ["Binder"]}
    resolved = hand_written(ResolvedProfile("a", points), ResolvedProfile("a", points))
    with pytest.raises(ConfigError) as info:
        build(resolved)
    assert str(info.value) == (
        'sched.yaml: profiles[1].schedulerName: Duplicate value: "a": '
        "already used by profiles[0].schedulerName"
    )


def test_profiles_sorting_the_queue_differently_are_refused() -> None:
    resolved = hand_written(
        ResolvedProfile("a", {"QueueSort": ["Sort"], "Bind": ["Binder"]}),
        ResolvedProfile("b", {"QueueSort": ["OtherSort"], "Bind": ["Binder"]}),
    )
    with pytest.raises(ConfigError) as info:
        build(resolved)
    assert str(info.value) == (
        'sched.yaml: profiles[1].plugins.queueSort: Invalid value: ["OtherSort"]: '
        'must be the same for all profiles (profiles[0] uses ["Sort"])'
    )
