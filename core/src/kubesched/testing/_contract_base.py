"""What every contract class shares: the plugin under test, when a contract applies, and
how examples are drawn.

A test class names its plugin with class attributes (`plugin_cls`, or `plugin_name` to load
it through its entry point, and `plugin_args`, the `pluginConfig` args as a config file
writes them). An autouse fixture reads them once per test, skips tests whose extension
point the plugin does not implement (saying so), and leaves the plugin on `self.under_test`.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, TypeVar

import importlib_metadata
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from kubesched.api import K8sModel
from kubesched.framework import (
    EXTENSION_POINTS,
    FilterPlugin,
    Plugin,
    PreFilterPlugin,
    ScorePlugin,
    extension_points_of,
)
from kubesched.runtime import ENTRY_POINT_GROUP
from kubesched.testing import strategies as kst
from kubesched.testing._fingerprint import plugin_state
from kubesched.testing._harness import PluginHarness, validate_args
from kubesched.testing._scenario import ClusterScenario, Scenario

__all__ = [
    "DEFAULT_EXAMPLES",
    "ConformanceSetupError",
    "ConformanceWarning",
    "ContractBase",
    "PluginUnderTest",
    "applies_to",
    "contract",
]

DEFAULT_EXAMPLES = 25
"""Generated examples per check (`--kubesched-examples` changes it)."""
DEFAULT_E2E_EXAMPLES = 4
"""Generated clusters for the end-to-end check (`--kubesched-e2e-examples`)."""

REJECTING_POINTS = ("PreEnqueue", "PreFilter", "Filter", "Reserve", "Permit")
"""Points whose plugins must say which cluster events may undo a rejection."""

_POINT_ATTR = "__kubesched_point__"
_T = TypeVar("_T")


class ConformanceSetupError(Exception):
    """The test class does not name a usable plugin."""


@dataclass
class PluginUnderTest:
    """The plugin a contract class checks: its class, name and raw args."""

    cls: type[Plugin]
    raw_args: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.cls.name

    @cached_property
    def args(self) -> BaseModel:
        try:
            return validate_args(self.cls, self.raw_args)
        except ValidationError as exc:
            raise ConformanceSetupError(
                f"plugin_args {dict(self.raw_args)!r} are not valid {self.cls.Args.__qualname__}: "
                f"{exc}"
            ) from None

    def harness(
        self, scenario: Scenario | None = None, objects: Sequence[K8sModel] = ()
    ) -> PluginHarness:
        """A fresh instance built by the factory with a Handle over `scenario`."""
        return PluginHarness(self.cls, self.args, scenario, objects)

    @classmethod
    def from_test_class(cls, test_cls: type[Any]) -> PluginUnderTest:
        plugin = getattr(test_cls, "plugin_cls", None)
        name = getattr(test_cls, "plugin_name", None)
        raw = dict(getattr(test_cls, "plugin_args", None) or {})
        if plugin is None:
            if not name:
                raise ConformanceSetupError(
                    f"{test_cls.__qualname__} names no plugin: set `plugin_cls = MyPlugin` "
                    "(or `plugin_name` to load it through its entry point)"
                )
            plugin = load_entry_point(name)
        if not (isinstance(plugin, type) and issubclass(plugin, Plugin)):
            raise ConformanceSetupError(f"{plugin!r} is not a kubesched.framework.Plugin class")
        return cls(plugin, raw)


def load_entry_point(name: str) -> type[Plugin]:
    """The class the `kubesched.plugins` entry point `name` loads."""
    found = list(importlib_metadata.entry_points(group=ENTRY_POINT_GROUP, name=name))
    if not found:
        raise ConformanceSetupError(f'no "{ENTRY_POINT_GROUP}" entry point is named "{name}"')
    loaded = found[0].load()
    if not (isinstance(loaded, type) and issubclass(loaded, Plugin)):
        raise ConformanceSetupError(f"entry point {name} = {found[0].value} is not a Plugin")
    return loaded


def contract(point: str) -> Callable[[type[_T]], type[_T]]:
    """Class decorator: the tests this class defines check extension point `point`."""

    def mark(cls: type[_T]) -> type[_T]:
        for attr, value in vars(cls).items():
            if attr.startswith("test_") and callable(value):
                setattr(value, _POINT_ATTR, point)
        return cls

    return mark


def applies_to(point: str, plugin: PluginUnderTest) -> str | None:
    """None when checks of `point` apply to the plugin, else the reason they do not."""
    cls = plugin.cls
    points = extension_points_of(cls)
    if point in ("Plugin", "Args", "EndToEnd"):
        return None
    if point in EXTENSION_POINTS:
        return None if point in points else f"{plugin.name} does not implement {point}"
    if point == "PreFilterExtensions":
        if not issubclass(cls, PreFilterPlugin):
            return f"{plugin.name} does not implement PreFilter"
        plugin_obj = plugin.harness().plugin
        assert isinstance(plugin_obj, PreFilterPlugin)
        if plugin_obj.pre_filter_extensions() is None:
            return f"{plugin.name} has no PreFilterExtensions (pre_filter_extensions() is None)"
        return None
    if point == "EnqueueExtensions":
        if not set(points) & set(REJECTING_POINTS):
            return f"{plugin.name} implements none of {', '.join(REJECTING_POINTS)}"
        return None
    if point == "VectorizedFilter":
        if not callable(getattr(cls, "filter_vectorized", None)):
            return f"{plugin.name} offers no vectorized Filter (filter_vectorized)"
        return None
    if point == "BatchFilter":
        if not (issubclass(cls, FilterPlugin) and callable(getattr(cls, "filter_nodes", None))):
            return f"{plugin.name} offers no batch Filter (filter_nodes)"
        return None
    if point == "BatchScore":
        if not (issubclass(cls, ScorePlugin) and callable(getattr(cls, "score_nodes", None))):
            return f"{plugin.name} offers no batch Score (score_nodes)"
        return None
    if point == "ArrayFilter":
        if not (issubclass(cls, FilterPlugin) and callable(getattr(cls, "filter_mask", None))):
            return f"{plugin.name} offers no array Filter (filter_mask)"
        return None
    if point == "ArrayScore":
        if not (issubclass(cls, ScorePlugin) and callable(getattr(cls, "score_array", None))):
            return f"{plugin.name} offers no array Score (score_array)"
        return None
    if point == "VectorizedScore":
        if not (issubclass(cls, ScorePlugin) and callable(getattr(cls, "score_vectorized", None))):
            return f"{plugin.name} offers no vectorized Score (score_vectorized)"
        return None
    raise ValueError(f"unknown contract point {point!r}")


class ContractBase:
    """Base of every contract class: the plugin under test and the hooks to adapt it.

    Override the hooks when the plugin needs more than generic pods and nodes: its own
    objects in the cluster (`cluster_objects`), pods of a certain shape (`scenarios`,
    `cluster_scenarios`) or a view of its state that leaves caches out (`plugin_state`).
    """

    plugin_cls: ClassVar[type[Plugin] | None] = None
    """The plugin class under test."""
    plugin_name: ClassVar[str | None] = None
    """Or its name, to load it through its `kubesched.plugins` entry point."""
    plugin_args: ClassVar[Mapping[str, Any]] = {}
    """Its `pluginConfig` args, as a config file writes them (camelCase)."""
    examples: ClassVar[int | None] = None
    """Generated examples per check (default 25, or `--kubesched-examples`)."""
    e2e_examples: ClassVar[int | None] = None
    """Generated clusters for the end-to-end check (default 4)."""
    strict: ClassVar[bool] = False
    """Fail on what is only a warning by default (a rejecting plugin without
    events_to_register); `--kubesched-strict` turns it on for every class."""

    under_test: PluginUnderTest

    @pytest.fixture(autouse=True)
    def _kubesched_applies(self, request: pytest.FixtureRequest) -> None:
        point = getattr(request.function, _POINT_ATTR, None)
        if point is None:
            return
        try:
            self.under_test = request.getfixturevalue("kubesched_plugin")
        except pytest.FixtureLookupError:
            pytest.fail(
                "the conformance kit is not loaded: add `pytest_plugins = "
                '["kubesched.testing"]` to your conftest.py (or run pytest -p kubesched.testing)',
                pytrace=False,
            )
        self._examples = _option(request, "kubesched_examples", self.examples, DEFAULT_EXAMPLES)
        self._e2e_examples = _option(
            request, "kubesched_e2e_examples", self.e2e_examples, DEFAULT_E2E_EXAMPLES
        )
        self._strict = self.strict or bool(request.config.getoption("kubesched_strict", False))
        reason = applies_to(point, self.under_test)
        if reason is not None:
            pytest.skip(f"not applicable: {reason}")

    # -- hooks ----------------------------------------------------------------------------
    def scenarios(self) -> st.SearchStrategy[Scenario]:
        """The scheduling decisions the per-point checks run on."""
        return kst.scenarios()

    def cluster_scenarios(self) -> st.SearchStrategy[ClusterScenario]:
        """The clusters the end-to-end check simulates."""
        return kst.cluster_scenarios()

    def cluster_objects(self, scenario: Scenario) -> Sequence[K8sModel]:
        """Objects to create in the cluster besides the scenario's nodes and pods."""
        return ()

    def plugin_state(self, harness: PluginHarness) -> Any:
        """A comparable view of the plugin's state (Reserve/Unreserve must restore it).
        The default walks the instance's attributes, leaving the Handle out."""
        skip = {id(harness.framework), id(harness.cluster), id(harness.snapshot)}
        return plugin_state(harness.plugin, skip)

    # -- helpers --------------------------------------------------------------------------
    def harness(self, scenario: Scenario | None = None) -> PluginHarness:
        objects = self.cluster_objects(scenario) if scenario is not None else ()
        return self.under_test.harness(scenario, objects)

    def advise(self, message: str) -> None:
        """A conformance warning: upstream allows it, but it is probably a mistake. Fails
        the check in strict mode."""
        if self._strict:
            pytest.fail(f"{message} (strict mode)", pytrace=False)
        warnings.warn(ConformanceWarning(message), stacklevel=2)

    def for_all(self, strategy: st.SearchStrategy[_T], check: Callable[[_T], None]) -> None:
        """Run `check` on examples drawn from `strategy` (reproducibly)."""
        _run_examples(strategy, check, self._examples)

    def for_all_clusters(self, check: Callable[[ClusterScenario], None]) -> None:
        _run_examples(self.cluster_scenarios(), check, self._e2e_examples)


class ConformanceWarning(UserWarning):
    """What the conformance kit advises against without failing the plugin."""


def _option(request: pytest.FixtureRequest, name: str, own: int | None, default: int) -> int:
    value = request.config.getoption(name, default=None)
    if value is not None:
        return int(value)
    return own if own is not None else default


_POOLS: dict[tuple[str, int], list[Any]] = {}
"""Examples drawn once per strategy and count, shared by every check of the session."""


def _run_examples(strategy: st.SearchStrategy[_T], check: Callable[[_T], None], n: int) -> None:
    """Run `check` on `n` examples of `strategy`.

    The examples are drawn once per session and reused by every check (each gets its own
    deep copy), which makes the kit several times faster than drawing anew. When a check
    fails, hypothesis replays the same draws with shrinking on, so the failure is reported
    on a minimal example."""
    for example in _pool(strategy, n):
        try:
            _described(check, copy.deepcopy(example))
        except Exception:
            _drive(strategy, n, lambda drawn: _described(check, drawn), shrink=True)
            raise  # hypothesis did not fail again: report the pooled example's failure


def _described(check: Callable[[_T], None], example: _T) -> None:
    """Run the check; a failure carries a readable account of its example."""
    try:
        check(example)
    except Exception as exc:
        describe = getattr(example, "describe", None)
        exc.add_note(describe() if callable(describe) else f"Example: {example!r}")
        raise


def _pool(strategy: st.SearchStrategy[_T], n: int) -> list[_T]:
    key = (repr(strategy), n)
    if key not in _POOLS:
        drawn: list[_T] = []
        _drive(strategy, n, lambda example: drawn.append(copy.deepcopy(example)), shrink=False)
        _POOLS[key] = drawn
    return _POOLS[key]


def _drive(
    strategy: st.SearchStrategy[_T], n: int, sink: Callable[[_T], None], *, shrink: bool
) -> None:
    # one definition of `run` for drawing and for replaying: derandomized hypothesis seeds
    # from the test function's source, so both see the same examples in the same order
    @settings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.generate, Phase.shrink) if shrink else (Phase.generate,),
        report_multiple_bugs=False,
    )
    @given(strategy)
    def run(example: _T) -> None:
        sink(example)

    run()
