"""Fields no Kubernetes type has, found as `kubectl apply` finds them with its default strict
field validation (``--validate=strict``): a misspelt ``resource:`` is reported, not ignored.

The field names come from kubesched/api/_field_schema.json, generated from the Kubernetes
API's models (core/tools/generate_field_schema.py). It covers the core kinds kubesched
loads (Pod, Node, Namespace, PriorityClass, the storage kinds, PodDisruptionBudget, the
workload kinds) and the List wrappers; kinds it does not know (PodGroup and other custom
resources) are not checked.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final, Literal

__all__ = ["FieldValidation", "UnknownField", "list_fields", "unknown_fields"]

FieldValidation = Literal["strict", "warn", "ignore"]
"""As kubectl's --validate: an unknown field is an error, a warning, or not looked for."""

Loc = tuple[str | int, ...]

_SCHEMA_FILE: Final = "_field_schema.json"


@dataclass(frozen=True)
class UnknownField:
    """A field at `loc` (its parent's path plus its name) that its type does not have, and
    the known field it most likely meant."""

    loc: Loc
    name: str
    suggestion: str | None

    @property
    def detail(self) -> str:
        hint = f' (did you mean "{self.suggestion}"?)' if self.suggestion else ""
        return f'unknown field "{self.name}"{hint}'


@functools.cache
def _schema() -> dict[str, Any]:
    text = resources.files("kubesched.api").joinpath(_SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _walk(data: Any, type_name: str, loc: Loc) -> Iterator[UnknownField]:
    if not isinstance(data, dict):
        return  # a wrong type is the model's to report
    fields: dict[str, str] = _schema()["types"][type_name]
    for key, value in data.items():
        if not isinstance(key, str):
            continue
        ref = fields.get(key)
        if ref is None:
            close = difflib.get_close_matches(key, list(fields), n=1, cutoff=0.6)
            yield UnknownField((*loc, key), key, close[0] if close else None)
        elif ref.startswith("[]"):
            if isinstance(value, list):
                for i, item in enumerate(value):
                    yield from _walk(item, ref[2:], (*loc, key, i))
        elif ref.startswith("{}"):
            if isinstance(value, dict):
                for name, item in value.items():
                    yield from _walk(item, ref[2:], (*loc, key, str(name)))
        elif ref:
            yield from _walk(value, ref, (*loc, key))


def unknown_fields(
    data: dict[str, Any], api_version: str, kind: str, loc: Loc
) -> list[UnknownField]:
    """The unknown fields of a document of this kind, in document order; none when the kind
    is not in the schema."""
    type_name = _schema()["kinds"].get(f"{api_version}/{kind}")
    return [] if type_name is None else list(_walk(data, type_name, loc))


def list_fields(data: dict[str, Any], loc: Loc) -> list[UnknownField]:
    """The unknown fields of a List wrapper itself (its items are checked one by one)."""
    wrapper = {k: v for k, v in data.items() if k != "items"}
    return list(_walk(wrapper, _schema()["list"], loc))
