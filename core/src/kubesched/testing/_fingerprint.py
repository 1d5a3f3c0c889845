"""Fingerprints: comparable, deep copies of the state a check must see unchanged.

`fingerprint(x)` walks a value (containers, pydantic models, dataclasses, objects with
`__dict__` or `__slots__`) into nested tuples that compare equal exactly when the walked
state is equal. Caches that are filled on first use and change no answer (a PodInfo's
derived requests, a Snapshot's columns) are left out, so reading does not look like writing.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
from collections.abc import Collection, Mapping
from fractions import Fraction
from typing import Any

from pydantic import BaseModel

from kubesched.framework import CycleState, NodeInfo, PodInfo, Snapshot

__all__ = ["fingerprint", "plugin_state"]

_MAX_DEPTH = 12


def fingerprint(value: Any, skip: Collection[int] = ()) -> Any:
    """A structural copy of `value`; objects whose id is in `skip` become "<skipped>"."""
    return _Walker(frozenset(skip)).walk(value, 0)


def plugin_state(plugin: Any, skip: Collection[int] = ()) -> Any:
    """What a plugin instance holds (its attributes, the Handle left out)."""
    handle = getattr(plugin, "handle", None)
    ids = {id(handle), *skip} if handle is not None else set(skip)
    attrs = {k: v for k, v in _attributes(plugin).items() if k != "handle"}
    return fingerprint(attrs, ids)


def _attributes(obj: Any) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                attrs[name] = getattr(obj, name)
    attrs.update(getattr(obj, "__dict__", {}))
    return attrs


class _Walker:
    def __init__(self, skip: frozenset[int]) -> None:
        self.skip = skip
        self.path: set[int] = set()

    def walk(self, value: Any, depth: int) -> Any:
        if value is None or isinstance(value, bool | int | float | str | bytes | Fraction):
            return value
        if isinstance(value, enum.Enum):
            return (type(value).__qualname__, value.name)
        if id(value) in self.skip:
            return "<skipped>"
        if depth > _MAX_DEPTH:
            return "<deep>"
        if id(value) in self.path:
            return "<cycle>"
        self.path.add(id(value))
        try:
            return self._walk_object(value, depth + 1)
        finally:
            self.path.discard(id(value))

    def _walk_object(self, value: Any, depth: int) -> Any:
        w = self.walk
        if isinstance(value, BaseModel):
            return (type(value).__qualname__, w(value.model_dump(), depth))
        if isinstance(value, PodInfo):
            return ("PodInfo", w(value.pod, depth))
        if isinstance(value, Snapshot):
            infos = [w(n, depth) for n in value.node_info_list]
            return ("Snapshot", value.generation, infos, sorted(value.node_info_map))
        if isinstance(value, CycleState):
            return ("CycleState", sorted(value.skip_filter_plugins))
        if isinstance(value, NodeInfo):
            return ("NodeInfo", *(w(getattr(value, s), depth) for s in NodeInfo.__slots__))
        if isinstance(value, Mapping):
            items = [(w(k, depth), w(v, depth)) for k, v in value.items()]
            return ("map", tuple(sorted(items, key=repr)))
        if isinstance(value, list | tuple):
            return (type(value).__name__, tuple(w(v, depth) for v in value))
        if isinstance(value, set | frozenset):
            return ("set", tuple(sorted((w(v, depth) for v in value), key=repr)))
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
            return (type(value).__qualname__, w(fields, depth))
        if inspect.isroutine(value) or isinstance(value, type):
            return ("callable", getattr(value, "__qualname__", type(value).__qualname__))
        attrs = _attributes(value)
        if attrs:
            return (type(value).__qualname__, w(attrs, depth))
        return ("object", type(value).__qualname__)
