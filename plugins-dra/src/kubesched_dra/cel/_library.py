"""The CEL environment of DRA selectors: the `device` variable, the Kubernetes quantity and
semver libraries, ``cel.bind`` and the string extension.

upstream: staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go (newCompiler) on
k8s.io/apiserver/pkg/cel/library (quantity.go, semverlib.go) and cel-go's ext.Bindings and
ext.Strings. The runtime is cel-expr-python (Google's CEL C++ runtime, whose type checker
writes cel-go's messages). Quantity and semver values are protobuf messages named as
upstream's CEL types (``kubernetes.Quantity``, ``kubernetes.Semver``) holding their
canonical text; this module is the only one that touches cel-expr-python or protobuf.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Final

from cel_expr_python import cel  # type: ignore[import-untyped]
from cel_expr_python.ext import ext_bindings, ext_strings  # type: ignore[import-untyped]
from google.protobuf import (  # type: ignore[import-untyped]
    descriptor_pb2,
    descriptor_pool,
    message_factory,
)

from kubesched.api import format_quantity, parse_quantity
from kubesched_dra.cel._semver import SemverError, Version, normalize_and_parse, parse_semver

__all__ = [
    "BOOL_TYPE",
    "DYN_TYPE",
    "ERROR_TYPE",
    "QUANTITY_TYPE",
    "SEMVER_TYPE",
    "LibraryError",
    "environment",
    "quantity",
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


def _message_classes() -> tuple[Any, Any, Any]:
    """A private descriptor pool with one message per opaque type, each holding its text."""
    file = descriptor_pb2.FileDescriptorProto(
        name="kubesched_dra/cel.proto", package="kubernetes", syntax="proto3"
    )
    for name in ("Quantity", "Semver"):
        message = file.message_type.add(name=name)
        message.field.add(
            name="_v",
            number=1,
            type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
            label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
        )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    quantity_class = message_factory.GetMessageClass(pool.FindMessageTypeByName(QUANTITY_TYPE))
    semver_class = message_factory.GetMessageClass(pool.FindMessageTypeByName(SEMVER_TYPE))
    return pool, quantity_class, semver_class


_POOL, _QUANTITY, _SEMVER = _message_classes()


def quantity(value: Fraction) -> Any:
    """The CEL value of a quantity (a device's capacity, or quantity()'s result)."""
    return _QUANTITY(_v=format_quantity(value))


def semver(version: Version) -> Any:
    """The CEL value of a version (a device's version attribute, or semver()'s result).

    Build metadata is dropped: blang compares versions without it, and CEL's ``==`` on
    the message compares the text."""
    return _SEMVER(_v=version.canonical())


@functools.lru_cache(maxsize=4096)
def _quantity_value(text: str) -> Fraction:
    return parse_quantity(text)


def _as_quantity(value: Any) -> Fraction | None:
    return _quantity_value(value._v) if type(value) is _QUANTITY else None


def _as_semver(value: Any) -> Version | None:
    return parse_semver(value._v) if type(value) is _SEMVER else None


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


def _declarations() -> list[Any]:
    q, s = cel.Type(QUANTITY_TYPE), cel.Type(SEMVER_TYPE)
    string, boolean, integer = cel.Type.STRING, cel.Type.BOOL, cel.Type.INT

    def overload(
        overload_id: str,
        result: Any,
        params: list[Any],
        impl: Callable[..., Any] | None,
        member: bool = False,
    ) -> Any:
        # An overload without impl shares the one given to a sibling with the same kinds:
        # the runtime keys implementations by (name, receiver, argument kinds), and both
        # message types are one kind to it.
        if impl is None:
            return cel.Overload(overload_id, result, params, is_member=member)
        return cel.Overload(overload_id, result, params, is_member=member, impl=impl)

    def function(name: str, *overloads: Any) -> Any:
        return cel.FunctionDecl(name, list(overloads))

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
            overload("semver_less", boolean, [s, s], None, True),
        ),
        function(
            "isGreaterThan",
            overload("quantity_greater", boolean, [q, q], _is_greater_than, True),
            overload("semver_greater", boolean, [s, s], None, True),
        ),
        function(
            "compareTo",
            overload("quantity_compare_to", integer, [q, q], _compare, True),
            overload("semver_compare_to", integer, [s, s], None, True),
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


@functools.cache
def environment() -> Any:
    """The one CEL environment of device selectors (built on first use, then shared).

    `device` is declared as a map from field name to dyn: the runtime's type checker
    cannot hold upstream's object type (kubernetes.DRADevice) without a protobuf
    schema for attribute values, so field names and attribute types are checked when
    the expression runs (docs/cel.md lists what this changes)."""
    return cel.NewEnv(
        _POOL,
        variables={"device": cel.Type.Map(cel.Type.STRING, cel.Type.DYN)},
        functions=_declarations(),
        extensions=[ext_bindings.ExtBindings(), ext_strings.ExtStrings()],
    )
