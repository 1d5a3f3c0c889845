"""Contracts on the plugin as a whole: its entry point, factory, signatures and Args; the
queue-side points (QueueSort, PreEnqueue, EnqueueExtensions); the binding cycle's points."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import importlib_metadata
import pydantic
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.framework import (
    EXTENSION_POINTS,
    ClusterEvent,
    ClusterEventWithHint,
    EnqueueExtensions,
    PodInfo,
    PreEnqueuePlugin,
    QueuedPodInfo,
    QueueSortPlugin,
    Status,
    extension_points_of,
)
from kubesched.runtime import ENTRY_POINT_GROUP
from kubesched.testing import strategies as kst
from kubesched.testing._contract_base import ContractBase, contract
from kubesched.testing._fingerprint import fingerprint
from kubesched.testing._harness import PluginHarness, validate_args

__all__ = [
    "ArgsContract",
    "BindContract",
    "EnqueueExtensionsContract",
    "PluginContract",
    "PostBindContract",
    "PreBindContract",
    "PreEnqueueContract",
    "QueueSortContract",
]

_UNKNOWN_FIELD = "conformanceUnknownField"


@contract("Plugin")
class PluginContract(ContractBase):
    """The plugin is found by its name and built by its factory."""

    def test_entry_point_resolves_to_plugin(self) -> None:
        """the kubesched.plugins entry point with the plugin's name loads this class"""
        name = self.under_test.name
        assert name, f"{self.under_test.cls.__qualname__} sets no `name`"
        found = list(importlib_metadata.entry_points(group=ENTRY_POINT_GROUP, name=name))
        assert found, (
            f'no "{ENTRY_POINT_GROUP}" entry point is named "{name}": add '
            f'`{name} = "{self.under_test.cls.__module__}:{self.under_test.cls.__qualname__}"` '
            f'under [project.entry-points."{ENTRY_POINT_GROUP}"] and reinstall the package'
        )
        dists = sorted({ep.dist.name for ep in found if ep.dist is not None})
        assert len(dists) <= 1, f'"{name}" is provided by several distributions: {dists}'
        loaded = found[0].load()
        assert loaded is self.under_test.cls, (
            f"entry point {name} = {found[0].value} loads {loaded!r}, not {self.under_test.cls!r}"
        )
        assert getattr(loaded, "name", None) == name, (
            f'entry point "{name}" loads a plugin named "{getattr(loaded, "name", None)}"'
        )

    def test_builds_with_default_args(self) -> None:
        """the factory builds the plugin from default args and a test Handle"""
        cls = self.under_test.cls
        assert extension_points_of(cls), f"{cls.__qualname__} implements no extension point"
        try:
            defaults = cls.Args.model_validate({})
        except pydantic.ValidationError as exc:
            raise AssertionError(
                f"{cls.Args.__qualname__} cannot be built from no fields (give every field a "
                f"default, as upstream's defaulting does): {exc}"
            ) from None
        built = PluginHarness(cls, defaults).plugin
        assert isinstance(built, cls), f"the factory built {built!r}, not a {cls.__qualname__}"

    def test_extension_point_signatures(self) -> None:
        """every extension-point method keeps the framework's signature and (a)sync-ness"""
        cls = self.under_test.cls
        problems: list[str] = []
        for point in extension_points_of(cls):
            base = EXTENSION_POINTS[point]
            for attr, expected in vars(base).items():
                if attr.startswith("_") or not inspect.isfunction(expected):
                    continue
                actual = getattr(cls, attr)
                problems += _signature_problems(point, attr, expected, actual)
        assert not problems, "; ".join(problems)


def _positional(fn: Callable[..., Any]) -> int | None:
    """How many positional arguments `fn` takes (None: any number)."""
    params = inspect.signature(fn).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in params if p.kind in kinds)


def _signature_problems(
    point: str, attr: str, expected: Callable[..., Any], actual: Callable[..., Any]
) -> list[str]:
    problems = []
    want_async = inspect.iscoroutinefunction(expected)
    if inspect.iscoroutinefunction(actual) != want_async:
        kind = "a coroutine (async def)" if want_async else "a plain method (not async)"
        problems.append(f"{point}: {attr} must be {kind}")
    need, have = _positional(expected), _positional(actual)
    if have is not None and need is not None and have != need:
        problems.append(
            f"{point}: {attr}{inspect.signature(actual)} does not take the framework's "
            f"arguments {attr}{inspect.signature(expected)}"
        )
    return problems


@contract("Args")
class ArgsContract(ContractBase):
    """`Args` validates `pluginConfig` precisely."""

    def test_args_accept_configured(self) -> None:
        """Args accepts the configured args"""
        validate_args(self.under_test.cls, self.under_test.raw_args)

    def test_args_reject_unknown_fields(self) -> None:
        """Args rejects an unknown field, naming it"""
        model = self.under_test.cls.Args
        raw = {**self.under_test.raw_args, _UNKNOWN_FIELD: 1}
        try:
            model.model_validate(raw)
        except pydantic.ValidationError as exc:
            assert _UNKNOWN_FIELD in str(exc), f"the error does not name the field: {exc}"
        else:
            raise AssertionError(
                f"{model.__qualname__} accepted an unknown field {_UNKNOWN_FIELD!r}: set "
                'model_config = ConfigDict(extra="forbid")'
            )

    def test_args_reject_wrong_types(self) -> None:
        """Args rejects a value of the wrong type for each field, naming the field"""
        model = self.under_test.cls.Args
        try:
            model.model_validate(["not", "a", "mapping"])
        except pydantic.ValidationError:
            pass
        else:
            raise AssertionError(f"{model.__qualname__} accepted a list as its args")
        problems = []
        for field, wrong in _wrong_values(model).items():
            raw = {**self.under_test.raw_args, field: wrong}
            try:
                model.model_validate(raw)
            except pydantic.ValidationError as exc:
                if field not in str(exc):
                    problems.append(f"the error for {field}={wrong!r} does not name it: {exc}")
            else:
                problems.append(f"{field}={wrong!r} was accepted")
        assert not problems, "; ".join(problems)


_JSON_KINDS = {"string", "integer", "number", "boolean", "array", "object", "null"}
_WRONG = (
    ("object", {"conformance": "wrong type"}),
    ("string", "conformance-wrong-type"),
    ("array", ["conformance", "wrong", "type"]),
)


def _wrong_values(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    """Each field (by its config name) with a value of a JSON type the field cannot take;
    fields that take anything are left out."""
    schema = model.model_json_schema(by_alias=True)
    defs = schema.get("$defs", {})
    result: dict[str, Any] = {}
    for field, prop in schema.get("properties", {}).items():
        kinds = _kinds(prop, defs)
        if not kinds or not kinds <= _JSON_KINDS:
            continue
        for kind, value in _WRONG:
            if kind not in kinds:
                result[field] = value
                break
    return result


def _kinds(prop: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> set[str]:
    if depth > 8:
        return {"any"}
    if "$ref" in prop:
        return _kinds(defs.get(prop["$ref"].split("/")[-1], {}), defs, depth + 1)
    if "type" in prop:
        t = prop["type"]
        return set(t) if isinstance(t, list) else {t}
    for key in ("anyOf", "oneOf", "allOf"):
        if key in prop:
            kinds: set[str] = set()
            for sub in prop[key]:
                kinds |= _kinds(sub, defs, depth + 1)
            return kinds
    if "enum" in prop or "const" in prop:
        values = prop.get("enum", [prop.get("const")])
        return {_json_kind(v) for v in values}
    return {"any"}


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "any"


def _queued(pods: tuple[Pod, ...], times: tuple[float, ...]) -> list[QueuedPodInfo]:
    return [QueuedPodInfo(PodInfo(p), timestamp=t) for p, t in zip(pods, times, strict=True)]


@contract("QueueSort")
class QueueSortContract(ContractBase):
    """`less` orders the active queue."""

    def test_queue_sort_is_a_strict_order(self) -> None:
        """less is irreflexive, asymmetric and transitive"""
        plugin = self.harness().plugin
        assert isinstance(plugin, QueueSortPlugin)
        pods = st.tuples(*(kst.pods(name=n, namespace="default") for n in "abc"))
        times = st.tuples(*(st.sampled_from((0.0, 1.0, 2.0)) for _ in range(3)))

        def check(drawn: tuple[tuple[Pod, ...], tuple[float, ...]]) -> None:
            infos = _queued(*drawn)
            for a in infos:
                assert not plugin.less(a, a), f"less({a.key}, {a.key}) is True"
                for b in infos:
                    assert not (plugin.less(a, b) and plugin.less(b, a)), (
                        f"less({a.key}, {b.key}) and less({b.key}, {a.key}) are both True"
                    )
                    for c in infos:
                        if plugin.less(a, b) and plugin.less(b, c):
                            assert plugin.less(a, c), (
                                f"less is not transitive on {a.key, b.key, c.key}"
                            )

        self.for_all(st.tuples(pods, times), check)


@contract("PreEnqueue")
class PreEnqueueContract(ContractBase):
    """`pre_enqueue` gates pods without side effects."""

    def test_pre_enqueue_is_pure(self) -> None:
        """PreEnqueue does not mutate the pod and answers the same twice"""

        def check(pod: Pod) -> None:
            plugin = self.harness().plugin
            assert isinstance(plugin, PreEnqueuePlugin)
            before = fingerprint(pod)
            first, second = plugin.pre_enqueue(pod), plugin.pre_enqueue(pod)
            assert fingerprint(pod) == before, "PreEnqueue mutated the pod"
            for s in (first, second):
                assert s is None or isinstance(s, Status), f"PreEnqueue returned {s!r}"
            assert _answer(first) == _answer(second), f"{first!r} then {second!r}"

        self.for_all(kst.pods(gates=True), check)


def _answer(s: Status | None) -> tuple[int, str]:
    return (0, "") if s is None else (int(s.code), s.message())


@contract("EnqueueExtensions")
class EnqueueExtensionsContract(ContractBase):
    """Plugins that reject pods say which cluster events may make them schedulable."""

    def test_events_to_register_declared(self) -> None:
        """events_to_register, where declared, returns events with hints"""
        plugin = self.harness().plugin
        if not isinstance(plugin, EnqueueExtensions):
            # upstream allows it: the plugin is then registered for every cluster event
            # (pkg/scheduler/framework/runtime/framework.go, fillEventToPluginMap)
            self.advise(
                f"{self.under_test.name} rejects pods but does not implement "
                "EnqueueExtensions: without events_to_register, every cluster event "
                "retries its pods"
            )
            return
        events = plugin.events_to_register()
        assert isinstance(events, list), f"events_to_register returned {type(events).__name__}"
        for e in events:
            assert isinstance(e, ClusterEventWithHint), f"{e!r} is not a ClusterEventWithHint"
            assert isinstance(e.event, ClusterEvent), f"{e.event!r} is not a ClusterEvent"
            assert e.hint is None or callable(e.hint), f"the hint of {e.event} is not callable"


def _coroutine_check(point: str, attr: str) -> Callable[[ContractBase], None]:
    def test(self: ContractBase) -> None:
        method = getattr(self.under_test.cls, attr)
        assert inspect.iscoroutinefunction(method), (
            f"{point}: {attr} runs in the binding cycle and must be `async def`"
        )

    test.__doc__ = f"{point}: {attr} is a coroutine function"
    return test


@contract("PreBind")
class PreBindContract(ContractBase):
    test_pre_bind_is_coroutine = _coroutine_check("PreBind", "pre_bind")


@contract("Bind")
class BindContract(ContractBase):
    test_bind_is_coroutine = _coroutine_check("Bind", "bind")


@contract("PostBind")
class PostBindContract(ContractBase):
    test_post_bind_is_coroutine = _coroutine_check("PostBind", "post_bind")
