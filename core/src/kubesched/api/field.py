"""Field errors as Kubernetes words them: one toolkit for every validation in kubesched.

upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/field (path.go: Path with
Child/Index/Key; errors.go: Error, ErrorBody, the Invalid/Required/... constructors,
ErrorList.ToAggregate) and pkg/util/errors (the aggregate's ``[a, b]`` text).

The configuration loader, the memory cluster's create-time validation and every plugin's
args report problems through these, so a mistake reads as kube-scheduler or the API server
would print it::

    path = field.new_path("scoringStrategy", "resources").index(0).child("weight")
    errors: field.ErrorList = [field.invalid(path, 0, "not in valid range (0, 100]")]
    field.aggregate(errors)
    # 'scoringStrategy.resources[0].weight: Invalid value: 0: not in valid range (0, 100]'

A bad value prints as Go's ErrorBody prints it: strings quoted (``%q``), numbers and
booleans bare, None as ``null``, a list of strings as ``[]string{"a", "b"}`` (``%#v``), and a
`Stringer` (text Go would get from a String method) as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

__all__ = [
    "DUPLICATE",
    "FORBIDDEN",
    "INTERNAL",
    "INVALID",
    "NOT_FOUND",
    "NOT_SUPPORTED",
    "REQUIRED",
    "TOO_LONG",
    "TOO_MANY",
    "ErrorList",
    "FieldError",
    "Path",
    "Stringer",
    "aggregate",
    "duplicate",
    "forbidden",
    "go_quote",
    "go_value",
    "internal_error",
    "invalid",
    "new_path",
    "not_found",
    "not_supported",
    "required",
    "too_long",
    "too_many",
]

# -- paths (field.Path) ------------------------------------------------------------------


@dataclass(frozen=True)
class Path:
    """A field path; `str()` renders it as `field.Path.String()` does:
    ``spec.containers[0].name``, ``requests[cpu]``. `Path()` is the root (its first child
    has no leading dot); `Path(text)` continues from a path rendered already."""

    text: str = ""

    def child(self, name: str, *more: str) -> Path:
        """``path.name`` (field.Path.Child), one level per name."""
        path = self.text
        for part in (name, *more):
            path = f"{path}.{part}" if path else part
        return Path(path)

    def index(self, i: int) -> Path:
        """``path[i]`` (field.Path.Index)."""
        return Path(f"{self.text}[{i}]")

    def key(self, k: str) -> Path:
        """``path[k]`` (field.Path.Key: a map key, unquoted)."""
        return Path(f"{self.text}[{k}]")

    def __str__(self) -> str:
        return self.text


def new_path(name: str, *more: str) -> Path:
    """field.NewPath: the path of a top-level field and its children."""
    return Path().child(name, *more)


# -- values (ErrorBody) ------------------------------------------------------------------


class Stringer(str):
    """A bad value shown as it is, unquoted: what Go prints for a value with a String
    method (a resource.Quantity), or a value already rendered by the caller."""

    __slots__ = ()


def go_quote(text: str) -> str:
    """strconv.Quote; JSON's escapes agree with it for printable text."""
    return json.dumps(text, ensure_ascii=False)


def go_value(value: object) -> str:
    """A bad value as field.Error prints it."""
    if value is None:
        return "null"
    if isinstance(value, Stringer):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        if not value:
            return "[]string(nil)"
        return "[]string{" + ", ".join(go_quote(str(v)) for v in value) + "}"
    return go_quote(str(value))


# -- errors (field.Error) ----------------------------------------------------------------

REQUIRED: Final = "Required value"
INVALID: Final = "Invalid value"
NOT_SUPPORTED: Final = "Unsupported value"
DUPLICATE: Final = "Duplicate value"
FORBIDDEN: Final = "Forbidden"
NOT_FOUND: Final = "Not found"
TOO_LONG: Final = "Too long"
TOO_MANY: Final = "Too many"
INTERNAL: Final = "Internal error"
# ErrorBody leaves the value out for these types
_NO_VALUE: Final = frozenset({REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL})


@dataclass(frozen=True)
class FieldError:
    """One `field.Error`: its type as printed (``Invalid value``), the field's path, the
    bad value and a detail. `str()` is the whole message, `body()` the part after the
    path."""

    type: str
    field: str
    value: object = None
    detail: str = ""

    def body(self) -> str:
        """field.Error.ErrorBody: ``<Type>: <value>: <detail>``, without the path."""
        text = self.type if self.type in _NO_VALUE else f"{self.type}: {go_value(self.value)}"
        return f"{text}: {self.detail}" if self.detail else text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


ErrorList: TypeAlias = list[FieldError]
"""field.ErrorList: every problem found, in the order found."""


def required(path: Path | str, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, str(path), None, detail)


def invalid(path: Path | str, value: object, detail: str) -> FieldError:
    return FieldError(INVALID, str(path), value, detail)


def not_supported(path: Path | str, value: object, supported: Sequence[str]) -> FieldError:
    """``Unsupported value: <value>: supported values: "a", "b"``."""
    detail = "supported values: " + ", ".join(go_quote(s) for s in supported)
    return FieldError(NOT_SUPPORTED, str(path), value, detail if supported else "")


def duplicate(path: Path | str, value: object, detail: str = "") -> FieldError:
    return FieldError(DUPLICATE, str(path), value, detail)


def forbidden(path: Path | str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, str(path), None, detail)


def not_found(path: Path | str, value: object, detail: str = "") -> FieldError:
    return FieldError(NOT_FOUND, str(path), value, detail)


def too_long(path: Path | str, value: object, max_length: int) -> FieldError:
    """The value is left out of the message; a negative `max_length` is not shown."""
    detail = f"may not be more than {max_length} bytes" if max_length >= 0 else "value is too long"
    return FieldError(TOO_LONG, str(path), value, detail)


def too_many(path: Path | str, actual: int, max_quantity: int) -> FieldError:
    detail = (
        f"must have at most {max_quantity} items" if max_quantity >= 0 else "has too many items"
    )
    return FieldError(TOO_MANY, str(path), actual, detail)


def internal_error(path: Path | str, error: BaseException | str) -> FieldError:
    return FieldError(INTERNAL, str(path), None, str(error))


def aggregate(errors: Iterable[object]) -> str:
    """The errors' text as utilerrors' Aggregate prints it (ErrorList.ToAggregate().Error()):
    one message alone, several as ``[a, b]``, a message repeated only once; empty when
    there are none. Takes FieldErrors or any messages."""
    messages = list(dict.fromkeys(str(e) for e in errors))
    if len(messages) <= 1:
        return messages[0] if messages else ""
    return "[" + ", ".join(messages) + "]"
