"""Field errors and label-syntax checks, worded as apimachinery words them.

Upstream: k8s.io/apimachinery/pkg/util/validation (IsQualifiedName, IsValidLabelValue,
IsDNS1123Subdomain), .../validation/field (Path, Error and its `ErrorBody`) and
.../util/errors (the aggregate's `[a, b]` text). Plugin args and selector parsing report
problems through these so a mistake reads as kube-scheduler would print it, e.g.
`[0].matchExpressions[0].key: Invalid value: "invalid key": name part must consist of ...`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Final

__all__ = [
    "aggregate",
    "child",
    "duplicate",
    "go_value",
    "index",
    "invalid",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "key",
    "not_supported",
    "qualified_name_errors",
]

# -- paths (field.Path.String) ---------------------------------------------------------------


def child(path: str, name: str) -> str:
    """`path.name` (just `name` at the root)."""
    return f"{path}.{name}" if path else name


def index(path: str, i: int) -> str:
    """`path[i]`."""
    return f"{path}[{i}]"


def key(path: str, k: str) -> str:
    """`path[k]`, as field.Path.Key renders a map key."""
    return f"{path}[{k}]"


# -- errors (field.Error.Error) -----------------------------------------------------------


def _go_quote(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def go_value(value: object) -> str:
    """A bad value as field.Error prints it: strings quoted, numbers and booleans bare,
    string lists as Go's `%#v` (`[]string{"a", "b"}`, empty as `[]string(nil)`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _go_quote(value)
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        if not value:
            return "[]string(nil)"
        return "[]string{" + ", ".join(_go_quote(str(v)) for v in value) + "}"
    return str(value)


def invalid(path: str, value: object, detail: str) -> str:
    """field.Invalid: `path: Invalid value: <value>: detail`."""
    return f"{path}: Invalid value: {go_value(value)}: {detail}"


def not_supported(path: str, value: object, supported: Sequence[str]) -> str:
    """field.NotSupported: `path: Unsupported value: <value>: supported values: "a", "b"`."""
    quoted = ", ".join(_go_quote(v) for v in supported)
    return f"{path}: Unsupported value: {go_value(value)}: supported values: {quoted}"


def duplicate(path: str, value: object) -> str:
    """field.Duplicate: `path: Duplicate value: <value>`."""
    return f"{path}: Duplicate value: {go_value(value)}"


def aggregate(messages: Iterable[str]) -> str:
    """utilerrors.NewAggregate(...).Error(): one message alone, several (duplicates dropped)
    as `[a, b]`; empty when there are none."""
    unique = list(dict.fromkeys(messages))
    if len(unique) <= 1:
        return unique[0] if unique else ""
    return "[" + ", ".join(unique) + "]"


# -- label syntax (util/validation) -------------------------------------------------------

_QUALIFIED_NAME_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_RE: Final = re.compile(_QUALIFIED_NAME_FMT)
_QUALIFIED_NAME_MAX_LENGTH: Final = 63
_QUALIFIED_NAME_ERR: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character"
)
_LABEL_VALUE_FMT: Final = f"({_QUALIFIED_NAME_FMT})?"
_LABEL_VALUE_RE: Final = re.compile(_LABEL_VALUE_FMT)
_LABEL_VALUE_MAX_LENGTH: Final = 63
_LABEL_VALUE_ERR: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT: Final = f"{_DNS1123_LABEL_FMT}(\\.{_DNS1123_LABEL_FMT})*"
_DNS1123_SUBDOMAIN_RE: Final = re.compile(_DNS1123_SUBDOMAIN_FMT)
_DNS1123_SUBDOMAIN_MAX_LENGTH: Final = 253
_DNS1123_SUBDOMAIN_ERR: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character"
)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.RegexError, including its doubled spaces between examples."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def is_dns1123_subdomain(value: str) -> list[str]:
    """Problems with `value` as a lowercase RFC 1123 subdomain (empty when valid)."""
    errs: list[str] = []
    if len(value) > _DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(_max_len_error(_DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_ERR, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """Problems with `value` as a qualified name (`[prefix/]name`), e.g. a label key."""
    parts = value.split("/")
    errs: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs += [f"prefix part {m}" for m in is_dns1123_subdomain(prefix)]
    else:
        regex = _regex_error(
            _QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"
        )
        return [
            f"a qualified name {regex} with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > _QUALIFIED_NAME_MAX_LENGTH:
        errs.append(f"name part {_max_len_error(_QUALIFIED_NAME_MAX_LENGTH)}")
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        regex = _regex_error(
            _QUALIFIED_NAME_ERR, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"
        )
        errs.append(f"name part {regex}")
    return errs


def qualified_name_errors(path: str, value: str) -> list[str]:
    """Field errors for `value` as a label key or resource name (upstream
    ValidateLabelName: one `Invalid value` per IsQualifiedName problem)."""
    return [invalid(path, value, e) for e in is_qualified_name(value)]


def is_valid_label_value(value: str) -> list[str]:
    """Problems with `value` as a label value (empty is valid)."""
    errs: list[str] = []
    if len(value) > _LABEL_VALUE_MAX_LENGTH:
        errs.append(_max_len_error(_LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(
            _regex_error(_LABEL_VALUE_ERR, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errs
