"""Field errors of a configuration file, and how they become a ConfigError.

The wording is `kubesched.api.field`'s (upstream field.Error): an error reads
``<path>: <Type>: <value>: <detail>``; `ConfigError` carries the path and the rest (the
error's body) is its detail, so the message is ``<file>: <path>: <Type>: <value>: <detail>``.
Values are shown as written in the file (JSON), not as Go prints them. Several errors are
raised as one ConfigError (the first one's path), one complete line per error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from kubesched._errors import ConfigError, printable
from kubesched.api import field as kfield

__all__ = [
    "FieldErrors",
    "duplicate",
    "format_value",
    "invalid",
    "join_path",
    "plugin_args_error",
    "pydantic_errors",
    "required",
    "unsupported",
]

_MAX_VALUE_CHARS = 120


def format_value(value: Any) -> str:
    """A value as upstream prints it in an error: strings quoted, ``null``, ``true``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True, mode="json", exclude_defaults=True)
    try:
        text = json.dumps(value, ensure_ascii=False, default=str, separators=(", ", ": "))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _MAX_VALUE_CHARS else text[: _MAX_VALUE_CHARS - 3] + "..."


def _shown(value: Any) -> kfield.Stringer:
    return kfield.Stringer(format_value(value))


def invalid(value: Any, detail: str) -> str:
    """The body of field.Invalid: ``Invalid value: <value>: <detail>``."""
    return kfield.invalid("", _shown(value), detail).body()


def required(detail: str = "") -> str:
    return kfield.required("", detail).body()


def duplicate(value: Any, detail: str = "") -> str:
    return kfield.duplicate("", _shown(value), detail).body()


def unsupported(value: Any, supported: Sequence[str]) -> str:
    return kfield.not_supported("", _shown(value), supported).body()


def join_path(prefix: str, loc: Iterable[int | str]) -> str:
    """``profiles`` + (0, "plugins") → ``profiles[0].plugins``."""
    path = kfield.Path(prefix)
    for part in loc:
        path = path.index(part) if isinstance(part, int) else path.child(part)
    return str(path)


def _known_fields(model: type[BaseModel] | None, loc: Sequence[int | str]) -> list[str] | None:
    """The field names (as written in files) of the model found at ``loc`` under ``model``."""
    current: Any = model
    for part in loc:
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        if isinstance(part, int):
            continue  # an item of the list whose model was found at the previous part
        by_alias = {f.alias or n: f.annotation for n, f in current.model_fields.items()}
        annotation = by_alias.get(part)
        # unwrap list[X] and X | None down to a model, when there is one
        while get_origin(annotation) is not None:
            inner = [a for a in get_args(annotation) if a is not type(None)]
            annotation = inner[-1] if inner else None
        current = annotation
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [f.alias or n for n, f in current.model_fields.items()]
    return None


def pydantic_errors(
    exc: ValidationError, prefix: str, model: type[BaseModel] | None = None
) -> list[tuple[str, str]]:
    """(path, detail) for each error of ``exc``, paths as written in files under ``prefix``."""
    result: list[tuple[str, str]] = []
    for error in exc.errors(include_url=False):
        loc = tuple(p for p in error["loc"] if isinstance(p, int | str))
        path = join_path(prefix, loc)
        kind = error["type"]
        if kind == "extra_forbidden":
            known = _known_fields(model, loc[:-1]) if model is not None else None
            detail = "unknown field"
            if known:
                detail += f"; expected one of: {', '.join(known)}"
        elif kind == "missing":
            detail = required()
        else:
            message = str(error["msg"]).removeprefix("Value error, ")
            detail = invalid(error.get("input"), message)
        result.append((path, detail))
    return result


def plugin_args_error(
    exc: ValidationError, model: type[BaseModel], plugin: str, file: str | None
) -> ConfigError:
    """A plugin's args (a file holding what `pluginConfig[].args` holds) that do not
    validate: ``<file>: args of <plugin>: <field>: <detail>``, one line per problem."""
    errors = FieldErrors()
    for path, detail in pydantic_errors(exc, "", model):
        errors.add(f"args of {plugin}: {path}" if path else f"args of {plugin}", detail)
    return errors.error(file)


@dataclass
class FieldErrors:
    """Collects (path, detail) pairs so every problem is reported at once."""

    items: list[tuple[str, str]] = field(default_factory=list)

    def add(self, path: str, detail: str) -> None:
        self.items.append((path, detail))

    def extend(self, items: Iterable[tuple[str, str]]) -> None:
        self.items.extend(items)

    def __bool__(self) -> bool:
        return bool(self.items)

    def error(self, file: str | None) -> ConfigError:
        """One ConfigError for all collected errors (there must be at least one)."""
        (path, detail), *rest = self.items
        for other_path, other_detail in rest:
            parts = (file, printable(other_path), printable(other_detail))  # one line each
            line = ": ".join(part for part in parts if part)
            detail += "\n" + line
        return ConfigError(detail, file=file, path=path or None)

    def raise_if_any(self, file: str | None) -> None:
        if self.items:
            raise self.error(file)
