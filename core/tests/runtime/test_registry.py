"""Plugin discovery through the `kubesched.plugins` entry points."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from kubesched import ConfigError
from kubesched.api import Pod
from kubesched.config import parse_config, resolve
from kubesched.framework import (
    BindPlugin,
    CycleState,
    FilterPlugin,
    NodeInfo,
    Plugin,
    QueuedPodInfo,
    QueueSortPlugin,
    ReservePlugin,
    Status,
)
from kubesched.runtime import PluginRegistry, _registry


class GoodFilter(FilterPlugin):
    name = "GoodFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class HalfDone(FilterPlugin, ReservePlugin):
    """Filter and Reserve without `filter` and `unreserve`."""

    name = "HalfDone"

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None


class NoPoints(Plugin):
    name = "NoPoints"


@dataclass
class FakeDist:
    name: str
    version: str = "1.0"


@dataclass
class FakeEntryPoint:
    name: str
    value: str
    dist: FakeDist | None
    target: Any = None
    error: Exception | None = None

    def load(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.target


@pytest.fixture
def discovered(monkeypatch: pytest.MonkeyPatch) -> Any:
    def install(*eps: FakeEntryPoint) -> PluginRegistry:
        monkeypatch.setattr(_registry, "entry_points", lambda group: list(eps))
        return PluginRegistry.discover()

    return install


def test_a_good_plugin_is_loaded_with_its_distribution(discovered: Any) -> None:
    reg = discovered(
        FakeEntryPoint("GoodFilter", "m:GoodFilter", FakeDist("pkg", "2.1"), GoodFilter)
    )
    entry = reg.entries["GoodFilter"]
    assert entry.ok and entry.plugin is GoodFilter
    assert (entry.distribution, entry.version, entry.extension_points) == ("pkg", "2.1", ["Filter"])
    assert reg.plugins == {"GoodFilter": GoodFilter}


@pytest.mark.parametrize(
    ("ep", "error"),
    [
        (
            FakeEntryPoint(
                "Broken", "m:B", FakeDist("pkg"), error=ImportError("no module named m")
            ),
            "ImportError: no module named m",
        ),
        (
            FakeEntryPoint("Other", "m:GoodFilter", FakeDist("pkg"), GoodFilter),
            'entry point "Other" loads a plugin whose name is "GoodFilter"',
        ),
        (
            FakeEntryPoint("F", "m:f", FakeDist("pkg"), len),
            "m:f is not a kubesched.framework.Plugin subclass",
        ),
        (
            FakeEntryPoint("NoPoints", "m:N", FakeDist("pkg"), NoPoints),
            "m:N implements no extension point",
        ),
        (
            FakeEntryPoint("HalfDone", "m:HalfDone", FakeDist("pkg"), HalfDone),
            "m:HalfDone does not implement FilterPlugin.filter, ReservePlugin.unreserve",
        ),
    ],
)
def test_bad_entry_points_are_listed_with_their_error(
    discovered: Any, ep: FakeEntryPoint, error: str
) -> None:
    reg = discovered(ep)
    entry = reg.entries[ep.name]
    assert not entry.ok
    assert entry.error == error
    assert ep.name not in reg.plugins
    assert reg.broken == {ep.name: error}


def test_two_distributions_with_one_name_are_both_named(discovered: Any) -> None:
    reg = discovered(
        FakeEntryPoint("GoodFilter", "a:GoodFilter", FakeDist("pkg-a"), GoodFilter),
        FakeEntryPoint("GoodFilter", "b:GoodFilter", FakeDist("pkg-b"), GoodFilter),
    )
    assert reg.broken["GoodFilter"] == (
        'a plugin named "GoodFilter" is provided by both pkg-a and pkg-b'
    )


def config(*names: str) -> Any:
    return parse_config(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {
                    "schedulerName": "s",
                    "plugins": {"multiPoint": {"enabled": [{"name": n} for n in names]}},
                }
            ],
        }
    )


class Sort(QueueSortPlugin):
    name = "Sort"

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return False


class Bind(BindPlugin):
    name = "Bind"

    async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None


def test_a_plugin_missing_a_method_of_its_points_is_refused_at_load() -> None:
    missing = r"HalfDone does not implement FilterPlugin\.filter, ReservePlugin\.unreserve"
    with pytest.raises(ValueError, match=missing):
        PluginRegistry().register(HalfDone)
    with pytest.raises(TypeError, match="abstract"):
        HalfDone(HalfDone.Args(), None)  # type: ignore[abstract, arg-type]


def test_a_broken_plugin_is_fatal_only_when_a_profile_uses_it(discovered: Any) -> None:
    reg = discovered(FakeEntryPoint("Broken", "m:B", FakeDist("pkg-x"), error=ImportError("boom")))
    reg.register(Sort)
    reg.register(Bind)
    resolved = resolve(config("Sort", "Bind"), reg)
    assert resolved.profiles[0].points["Bind"] == ["Bind"]
    with pytest.raises(ConfigError) as err:
        resolve(config("Sort", "Bind", "Broken"), reg)
    assert "Broken" in str(err.value) and "boom" in str(err.value)


def test_provider_is_the_distribution_found_else_the_one_kubesched_publishes_it_in(
    discovered: Any,
) -> None:
    reg = discovered(FakeEntryPoint("GoodFilter", "m:GoodFilter", FakeDist("pkg"), GoodFilter))
    assert reg.provider("GoodFilter") == "pkg"
    assert reg.provider("Coscheduling") == "kubesched-coscheduling"  # not installed
    assert reg.provider("VolumeBinding") == "kubesched-volumebinding"
    assert reg.provider("Nope") is None
