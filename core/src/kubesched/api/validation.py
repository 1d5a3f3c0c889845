"""Name and label syntax as the API machinery checks it, with upstream's messages.

upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go
(IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName, IsValidLabelValue, IsValidPortName,
RegexError) and pkg/apis/meta/v1/validation/validation.go (ValidateLabelName,
ValidateLabels, ValidateLabelSelector). The `is_*` checks return the problems with a
value (empty when valid); the `validate_*` ones return field errors at a path. Lengths
count bytes, as Go's `len` does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from kubesched.api._labels import LabelSelector
from kubesched.api.field import ErrorList, Path, forbidden, invalid, required

__all__ = [
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "is_valid_port_name",
    "validate_label_name",
    "validate_label_selector",
    "validate_labels",
]


def _regex_error(message: str, pattern: str, *examples: str) -> str:
    """upstream RegexError, its doubled spaces before "or" included."""
    if not examples:
        return f"{message} (regex used for validation is '{pattern}')"
    listed = " or ".join(f"'{e}', " for e in examples)
    return f"{message} (e.g. {listed}regex used for validation is '{pattern}')"


def _max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


_DNS1123_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG: Final = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_FMT: Final = _DNS1123_LABEL_FMT + r"(\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character"
)
_QUALIFIED_NAME_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_MSG: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character"
)
_LABEL_VALUE_FMT: Final = f"({_QUALIFIED_NAME_FMT})?"
_LABEL_VALUE_MSG: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_RE: Final = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE: Final = re.compile(_DNS1123_SUBDOMAIN_FMT)
_QUALIFIED_NAME_RE: Final = re.compile(_QUALIFIED_NAME_FMT)
_LABEL_VALUE_RE: Final = re.compile(_LABEL_VALUE_FMT)
_PORT_NAME_CHARS_RE: Final = re.compile("[-a-z0-9]+")


def _too_long(value: str, limit: int) -> bool:
    return len(value.encode()) > limit  # Go's len counts bytes


def is_dns1123_label(value: str) -> list[str]:
    errors = [_max_len_error(63)] if _too_long(value, 63) else []
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errors.append("must not contain dots")
        else:
            errors.append(
                _regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc")
            )
    return errors


def is_dns1123_subdomain(value: str) -> list[str]:
    errors = [_max_len_error(253)] if _too_long(value, 253) else []
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errors.append(_regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def is_qualified_name(value: str) -> list[str]:
    """A label key: an optional DNS subdomain prefix and '/', then a name of at most 63."""
    examples = ("MyName", "my.name", "123-abc")
    parts = value.split("/")
    errors: list[str] = []
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors += [f"prefix part {m}" for m in is_dns1123_subdomain(prefix)]
    else:
        detail = _regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, *examples)
        return [
            f"a qualified name {detail} with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part must be non-empty")
    elif _too_long(name, 63):
        errors.append("name part " + _max_len_error(63))
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errors.append(
            "name part " + _regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, *examples)
        )
    return errors


def is_valid_label_value(value: str) -> list[str]:
    errors = [_max_len_error(63)] if _too_long(value, 63) else []
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(
            _regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errors


def is_valid_port_name(port: str) -> list[str]:
    errors = [_max_len_error(15)] if _too_long(port, 15) else []
    if not _PORT_NAME_CHARS_RE.fullmatch(port):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search("[a-z]", port):
        errors.append("must contain at least one letter (a-z)")
    if "--" in port:
        errors.append("must not contain consecutive hyphens")
    if port.startswith("-") or port.endswith("-"):
        errors.append("must not begin or end with a hyphen")
    return errors


def validate_label_name(name: str, path: Path | str) -> ErrorList:
    return [invalid(path, name, m) for m in is_qualified_name(name)]


def validate_labels(labels: Mapping[str, str], path: Path | str) -> ErrorList:
    """Keys and values of a label map; upstream reports both at the map's own path."""
    errors: ErrorList = []
    for key, value in labels.items():
        errors += validate_label_name(key, path)
        errors += [invalid(path, value, m) for m in is_valid_label_value(value)]
    return errors


def validate_label_selector(selector: LabelSelector | None, path: Path | str) -> ErrorList:
    """A LabelSelector on create (values must be valid label values)."""
    if selector is None:
        return []
    errors = validate_labels(selector.match_labels, f"{path}.matchLabels")
    for i, req in enumerate(selector.match_expressions):
        at = f"{path}.matchExpressions[{i}]"
        if req.operator in ("In", "NotIn") and not req.values:
            errors.append(
                required(f"{at}.values", "must be specified when `operator` is 'In' or 'NotIn'")
            )
        elif req.operator in ("Exists", "DoesNotExist") and req.values:
            errors.append(
                forbidden(
                    f"{at}.values",
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                )
            )
        errors += validate_label_name(req.key, f"{at}.key")
        for j, value in enumerate(req.values):
            errors += [invalid(f"{at}.values[{j}]", value, m) for m in is_valid_label_value(value)]
    return errors
