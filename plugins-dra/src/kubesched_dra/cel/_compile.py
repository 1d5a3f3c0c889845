"""Compiling a selector once and evaluating it against devices, with upstream's messages.

upstream: staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go
(CompileCELExpression, DeviceMatches) and errors.go (EnhanceRuntimeError).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from kubesched_dra.cel._device import CELDevice
from kubesched_dra.cel._errors import CELCompileError, CELRuntimeError
from kubesched_dra.cel._library import (
    BOOL_TYPE,
    DYN_TYPE,
    ERROR_TYPE,
    checking_environment,
    opaque_type_name,
    running_environment,
)

__all__ = ["CompilationResult", "compile_expression"]

# "INVALID_ARGUMENT: ERROR: <input>:1:3: ... [INVALID_ARGUMENT]": the runtime's status code
# around the checker's text, which is cel-go's.
_STATUS_PREFIX: Final = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX: Final = re.compile(r" \[[A-Z_]+\]$")
_MISSING_KEY: Final = re.compile(r'^Key not found in map : "?(.*?)"?$')
# upstream errors.go (EnhanceRuntimeError)
_NO_SUCH_KEY_HINT: Final = (
    ". Consider using CEL optional chaining (?), has() macro, or orValue() for optional fields"
)
_DYN_RANGE: Final = "expression of type 'dyn' cannot be the range of a comprehension"
# Domains an expression indexes literally: `attributes["gpu.example.com"]`.
_INDEXED_DOMAIN: Final = re.compile(
    r"""\b(attributes|capacity)\s*\[\s*(?:"([^"\\]*)"|'([^'\\]*)')"""
)
# cel-go's names of the result types that cannot be a selector's result.
_TYPE_NAMES: Final = {
    "INT": "int",
    "UINT": "uint",
    "DOUBLE": "double",
    "STRING": "string",
    "BYTES": "bytes",
    "LIST": "list",
    "MAP": "map",
    "NULL_TYPE": "null_type",
    "TIMESTAMP": "google.protobuf.Timestamp",
    "DURATION": "google.protobuf.Duration",
    "TYPE": "type",
}


def _strip_status(text: str) -> str:
    return _STATUS_SUFFIX.sub("", _STATUS_PREFIX.sub("", text.strip()))


def _runtime_message(text: str) -> str:
    """The runtime's error in cel-go's words, enhanced as upstream's EnhanceRuntimeError."""
    text = _strip_status(text)
    missing = _MISSING_KEY.match(text)
    if missing:
        text = f"no such key: {missing.group(1)}"
    elif text.startswith("No matching overloads found"):
        text = "no such overload"
    elif text == "divide by zero":
        text = "division by zero"
    elif text == "modulus by zero":
        text = "modulus by zero"
    if text.startswith("no such key:"):
        text += _NO_SUCH_KEY_HINT
    return text


def _type_name(type_: Any) -> str:
    name = str(type_.name())
    return _TYPE_NAMES.get(name, name)


@dataclass(frozen=True, eq=False)
class CompilationResult:
    """One compiled selector: either a program or the compile error (never both).

    `indexed_domains` are the attribute and capacity domains the expression names
    literally; a device lacking one gets an empty map for it, which is what upstream's
    map-with-default gives (``device.attributes["other.com"].x`` is "no such key: x",
    ``has(device.attributes["other.com"].x)`` is false)."""

    expression: str
    error: CELCompileError | None = None
    _program: Any = field(default=None, repr=False)
    indexed_domains: frozenset[str] = frozenset()

    def device_matches(self, device: CELDevice) -> bool:
        """Evaluate against one device. Raises :class:`CELRuntimeError` with upstream's
        text (``no such key: model. Consider using ...``) when evaluation fails or the
        result is not a bool; compile errors are the caller's to report first."""
        if self._program is None:
            raise RuntimeError(f"CEL expression {self.expression!r} did not compile: {self.error}")
        if device.error is not None:
            raise CELRuntimeError(device.error)
        result = self._program.eval(data={"device": device.activation(self.indexed_domains)})
        kind = result.type()
        if kind == BOOL_TYPE:
            return bool(result.value())
        if kind == ERROR_TYPE:
            raise CELRuntimeError(_runtime_message(str(result.value())))
        name = opaque_type_name(result.value()) or _type_name(kind)
        raise CELRuntimeError(
            f"CEL result of type {name} could not be converted to bool: "
            f"type conversion error from '{name}' to 'bool'"
        )


def compile_expression(expression: str) -> CompilationResult:
    """Compile and type-check `expression` in the DRA environment; never raises for a bad
    expression: the error is in the result, as upstream's CompilationResult.Error
    (``compilation failed: ERROR: <input>:1:1: ...``, ``must evaluate to bool or the
    unknown type, not int``)."""
    try:
        checked = checking_environment().compile(expression)
        output = checked.return_type()
    except RuntimeError as error:
        message = _strip_status(str(error))
        if _DYN_RANGE not in message:
            return CompilationResult(expression, CELCompileError("compilation failed: " + message))
        # The C++ checker rejects a comprehension over a dyn value (`device.attributes`
        # is one here, a map upstream), which cel-go accepts: such an expression is
        # checked when it runs instead.
        output = DYN_TYPE
    if output != BOOL_TYPE and output != DYN_TYPE:
        return CompilationResult(
            expression,
            CELCompileError(f"must evaluate to bool or the unknown type, not {_type_name(output)}"),
        )
    program = running_environment().compile(expression, disable_check=True)
    domains = frozenset(
        match.group(2) if match.group(2) is not None else match.group(3)
        for match in _INDEXED_DOMAIN.finditer(expression)
    )
    return CompilationResult(expression, None, program, domains)
