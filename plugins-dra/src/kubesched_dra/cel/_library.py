"""The CEL environment of DRA selectors: the `device` variable, the Kubernetes quantity and
semver libraries, ``cel.bind`` and the string extension.

upstream: staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go (newCompiler) on
k8s.io/apiserver/pkg/cel/library (quantity.go, semverlib.go) and cel-go's ext.Bindings and
ext.Strings. The runtime is cel-expr-python (Google's CEL C++ runtime, whose type checker
writes cel-go's messages).

Two environments with the same functions: the checking one declares quantities and
versions as upstream's opaque types (``kubernetes.Quantity``, ``kubernetes.Semver``), so
type errors read as upstream's; the running one, which executes expressions the checking
one accepted, carries them as strings with a private-use prefix and their canonical
text. cel-expr-python keeps a reference to every Python object that crosses a function
call, which for protobuf messages (its only opaque values) is about a kilobyte per call
for the life of the process; strings cost a tenth of that. This module is the only one
that touches cel-expr-python.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Final

from cel_expr_python import cel  # type: ignore[import-untyped]
from cel_expr_python.ext import ext_bindings, ext_strings  # type: ignore[import-untyped]

from kubesched.api import format_quantity, parse_quantity
from kubesched_dra.cel._semver import SemverError, Version, normalize_and_parse, parse_semver

__all__ = [
    "BOOL_TYPE",
    "DYN_TYPE",
    "ERROR_TYPE",
    "QUANTITY_TYPE",
    "SEMVER_TYPE",
    "LibraryError",
    "checking_environment",
    "opaque_type_name",
    "quantity",
    "running_environment",
    "semver",
]

QUANTITY_TYPE: Final = "kubernetes.Quantity"
SEMVER_TYPE: Final = "kubernetes.Semver"
BOOL_TYPE: Final[Any] = cel.Type.BOOL
DYN_TYPE: Final[Any] = cel.Type.DYN
ERROR_TYPE: Final[Any] = cel.Type.ERROR

# upstream apimachinery resource.ErrFormatWrong: what quantity() says about bad text.
_QUANTITY_FORMAT_WRONG: Final = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1


class LibraryError(ValueError):
    """A library function's runtime error; the runtime reports its message as the error."""


# A quantity or a version as the running environment holds it. The prefix is a
# private-use character, which no attribute value written by a driver carries.
_QUANTITY_TAG: Final = "\ue000kubernetes.Quantity:"
_SEMVER_TAG: Final = "\ue000kubernetes.Semver:"


def quantity(value: Fraction) -> str:
    """The CEL value of a quantity (a device's capacity, or quantity()'s result); equal
    quantities have equal values (``quantity("1Gi") == quantity("1024Mi")``)."""
    return _QUANTITY_TAG + format_quantity(value)


def semver(version: Version) -> str:
    """The CEL value of a version (a device's version attribute, or semver()'s result).

    Build metadata is dropped: blang compares versions without it, so equal versions
    have equal values."""
    return _SEMVER_TAG + version.canonical()


def opaque_type_name(value: object) -> str | None:
    """``kubernetes.Quantity`` or ``kubernetes.Semver`` for such a value, else None."""
    if isinstance(value, str):
        if value.startswith(_QUANTITY_TAG):
            return QUANTITY_TYPE
        if value.startswith(_SEMVER_TAG):
            return SEMVER_TYPE
    return None


@functools.lru_cache(maxsize=4096)
def _quantity_value(text: str) -> Fraction:
    return parse_quantity(text)


def _as_quantity(value: Any) -> Fraction | None:
    if isinstance(value, str) and value.startswith(_QUANTITY_TAG):
        return _quantity_value(value[len(_QUANTITY_TAG) :])
    return None


def _as_semver(value: Any) -> Version | None:
    if isinstance(value, str) and value.startswith(_SEMVER_TAG):
        return parse_semver(value[len(_SEMVER_TAG) :])
    return None


def _no_such_overload() -> LibraryError:
    return LibraryError("no such overload")


# --- quantity library (upstream apiserver/pkg/cel/library/quantity.go) ---------------------


def _quantity_of(text: str) -> Any:
    try:
        return quantity(parse_quantity(text))
    except ValueError:
        raise LibraryError(_QUANTITY_FORMAT_WRONG) from None


def _is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except ValueError:
        return False
    return True


def _require_quantity(value: Any) -> Fraction:
    result = _as_quantity(value)
    if result is None:
        raise _no_such_overload()
    return result


def _as_int64(value: Fraction) -> int | None:
    # upstream Quantity.AsInt64: only whole values in int64's range.
    if value.denominator != 1 or not _INT64_MIN <= value.numerator <= _INT64_MAX:
        return None
    return value.numerator


def _sign(value: Any) -> int:
    q = _require_quantity(value)
    return (q > 0) - (q < 0)


def _is_integer(value: Any) -> bool:
    return _as_int64(_require_quantity(value)) is not None


def _as_integer(value: Any) -> int:
    result = _as_int64(_require_quantity(value))
    if result is None:
        raise LibraryError("cannot convert value to integer")
    return result


def _as_approximate_float(value: Any) -> float:
    return float(_require_quantity(value))


def _operand(value: Any) -> Fraction:
    if isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    return _require_quantity(value)


def _add(value: Any, other: Any) -> Any:
    return quantity(_require_quantity(value) + _operand(other))


def _sub(value: Any, other: Any) -> Any:
    return quantity(_require_quantity(value) - _operand(other))


# --- semver library (upstream apiserver/pkg/cel/library/semverlib.go) ----------------------


def _semver_of(text: str, normalize: bool = False) -> Any:
    try:
        return semver(normalize_and_parse(text) if normalize else parse_semver(text))
    except SemverError as error:
        raise LibraryError(str(error)) from None


def _is_semver(text: str, normalize: bool = False) -> bool:
    try:
        normalize_and_parse(text) if normalize else parse_semver(text)
    except SemverError:
        return False
    return True


def _require_semver(value: Any) -> Version:
    result = _as_semver(value)
    if result is None:
        raise _no_such_overload()
    return result


def _major(value: Any) -> int:
    return _require_semver(value).major


def _minor(value: Any) -> int:
    return _require_semver(value).minor


def _patch(value: Any) -> int:
    return _require_semver(value).patch


# --- shared by both: one implementation per name, as the runtime dispatches on kinds ---------


def _compare(value: Any, other: Any) -> int:
    a, b = _as_quantity(value), _as_quantity(other)
    if a is not None and b is not None:
        return (a > b) - (a < b)
    va, vb = _as_semver(value), _as_semver(other)
    if va is not None and vb is not None:
        return va.compare(vb)
    raise _no_such_overload()


def _is_less_than(value: Any, other: Any) -> bool:
    return _compare(value, other) == -1


def _is_greater_than(value: Any, other: Any) -> bool:
    return _compare(value, other) == 1


def _declarations(running: bool) -> list[Any]:
    """The library's functions: for checking with the opaque types and no
    implementations, for running with strings and the implementations."""
    string, boolean, integer = cel.Type.STRING, cel.Type.BOOL, cel.Type.INT
    if running:
        q = s = string
    else:
        q = cel.Type.AbstractType(QUANTITY_TYPE)
        s = cel.Type.AbstractType(SEMVER_TYPE)

    def overload(
        overload_id: str,
        result: Any,
        params: list[Any],
        impl: Callable[..., Any] | None,
        member: bool = False,
    ) -> Any:
        if not running:
            return cel.Overload(overload_id, result, params, is_member=member)
        return cel.Overload(overload_id, result, params, is_member=member, impl=impl)

    def function(name: str, *overloads: Any) -> Any:
        return cel.FunctionDecl(name, list(overloads))

    def semver_twin(overload_id: str, result: Any, params: list[Any]) -> list[Any]:
        # The semver twin of a quantity method: only checking tells them apart; running,
        # both are (string, string) and the quantity one's implementation serves both.
        return [] if running else [overload(overload_id, result, params, None, True)]

    return [
        function("quantity", overload("string_to_quantity", q, [string], _quantity_of)),
        function("isQuantity", overload("is_quantity_string", boolean, [string], _is_quantity)),
        function("sign", overload("quantity_sign", integer, [q], _sign, True)),
        function("isInteger", overload("quantity_is_integer", boolean, [q], _is_integer, True)),
        function("asInteger", overload("quantity_get_int", integer, [q], _as_integer, True)),
        function(
            "asApproximateFloat",
            overload("quantity_get_float", cel.Type.DOUBLE, [q], _as_approximate_float, True),
        ),
        function(
            "add",
            overload("quantity_add", q, [q, q], _add, True),
            overload("quantity_add_int", q, [q, integer], _add, True),
        ),
        function(
            "sub",
            overload("quantity_sub", q, [q, q], _sub, True),
            overload("quantity_sub_int", q, [q, integer], _sub, True),
        ),
        function(
            "isLessThan",
            overload("quantity_less", boolean, [q, q], _is_less_than, True),
            *semver_twin("semver_less", boolean, [s, s]),
        ),
        function(
            "isGreaterThan",
            overload("quantity_greater", boolean, [q, q], _is_greater_than, True),
            *semver_twin("semver_greater", boolean, [s, s]),
        ),
        function(
            "compareTo",
            overload("quantity_compare_to", integer, [q, q], _compare, True),
            *semver_twin("semver_compare_to", integer, [s, s]),
        ),
        function(
            "semver",
            overload("string_to_semver", s, [string], _semver_of),
            overload("string_bool_to_semver", s, [string, boolean], _semver_of),
        ),
        function(
            "isSemver",
            overload("is_semver_string", boolean, [string], _is_semver),
            overload("is_semver_string_bool", boolean, [string, boolean], _is_semver),
        ),
        function("major", overload("semver_major", integer, [s], _major, True)),
        function("minor", overload("semver_minor", integer, [s], _minor, True)),
        function("patch", overload("semver_patch", integer, [s], _patch, True)),
    ]


_DEVICE: Final[Any] = cel.Type.Map(cel.Type.STRING, cel.Type.DYN)


@functools.cache
def checking_environment() -> Any:
    """The environment that type-checks selectors (built on first use, then shared).

    `device` is declared as a map from field name to dyn: the C++ checker cannot hold
    upstream's object type (kubernetes.DRADevice) without a protobuf schema for
    attribute values, so field names and attribute types are checked when the
    expression runs (docs/cel.md lists what this changes)."""
    return cel.NewEnv(
        variables={"device": _DEVICE},
        functions=_declarations(running=False),
        extensions=[ext_bindings.ExtBindings(), ext_strings.ExtStrings()],
    )


@functools.cache
def running_environment() -> Any:
    """The environment that runs selectors the checking one accepted (compiled there
    without checking)."""
    return cel.NewEnv(
        variables={"device": _DEVICE},
        functions=_declarations(running=True),
        extensions=[ext_bindings.ExtBindings(), ext_strings.ExtStrings()],
    )
