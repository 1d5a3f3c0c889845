"""Field errors as the API server writes them, and the name and label rules every kind shares.

upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go (Error,
ErrorBody, ToAggregate), pkg/util/validation/validation.go (IsDNS1123Label,
IsDNS1123Subdomain, IsQualifiedName, IsValidLabelValue, IsValidPortName, RegexError),
pkg/apis/meta/v1/validation/validation.go (ValidateLabels, ValidateLabelSelector) and
pkg/api/validation/objectmeta.go (NameIsDNSSubdomain, NameIsDNSLabel).

A field error reads ``<path>: <Type>: <value>: <detail>``. Values print as Go's ErrorBody
prints them: strings quoted, numbers and booleans bare, and a value whose Go type has a
String method (a resource.Quantity, shown with `Stringer`) bare as that method returns it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from kubesched.api import LabelSelector

__all__ = [
    "FieldError",
    "Stringer",
    "aggregate",
    "duplicate",
    "forbidden",
    "invalid",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_qualified_name",
    "is_valid_label_value",
    "is_valid_port_name",
    "name_is_dns_label",
    "name_is_dns_subdomain",
    "not_found",
    "not_supported",
    "quantity_string",
    "required",
    "validate_label_name",
    "validate_label_selector",
    "validate_labels",
]

REQUIRED: Final = "Required value"
INVALID: Final = "Invalid value"
NOT_SUPPORTED: Final = "Unsupported value"
DUPLICATE: Final = "Duplicate value"
FORBIDDEN: Final = "Forbidden"
NOT_FOUND: Final = "Not found"
# ErrorBody leaves the value out for these types
_NO_VALUE: Final = frozenset({REQUIRED, FORBIDDEN})


class Stringer(str):
    """A value Go prints through its String method: shown as is, not quoted."""


@dataclass(frozen=True)
class FieldError:
    """One `field.Error`: its type (``Invalid value``), field path, bad value and detail."""

    type: str
    field: str
    value: object = None
    detail: str = ""

    def __str__(self) -> str:
        body = self.type if self.type in _NO_VALUE else f"{self.type}: {_go_value(self.value)}"
        return f"{self.field}: {body}: {self.detail}" if self.detail else f"{self.field}: {body}"


def _go_value(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, Stringer):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    # strconv.Quote; JSON's escapes agree with it for printable text
    return json.dumps(str(value), ensure_ascii=False)


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, path, None, detail)


def invalid(path: str, value: object, detail: str) -> FieldError:
    return FieldError(INVALID, path, value, detail)


def not_supported(path: str, value: object, supported: Sequence[str]) -> FieldError:
    detail = "supported values: " + ", ".join(_go_value(s) for s in supported)
    return FieldError(NOT_SUPPORTED, path, value, detail if supported else "")


def duplicate(path: str, value: object, detail: str = "") -> FieldError:
    return FieldError(DUPLICATE, path, value, detail)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, path, None, detail)


def not_found(path: str, value: object, detail: str = "") -> FieldError:
    return FieldError(NOT_FOUND, path, value, detail)


def aggregate(errors: Iterable[FieldError]) -> str:
    """The errors as `StatusError` prints them: one as itself, several as ``[a, b]``,
    repeated messages once (upstream ErrorList.ToAggregate)."""
    messages = list(dict.fromkeys(str(e) for e in errors))
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"


# -- resource quantities ---------------------------------------------------------------------

_DECIMAL_SUFFIXES: Final = {
    -9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"
}  # fmt: skip
_BINARY_SUFFIXES: Final = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def quantity_string(value: Fraction) -> str:
    """The canonical form `resource.Quantity.String()` gives a value: ``500m``, ``1k``,
    ``1536Mi``.

    upstream: staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go
    (CanonicalizeBytes). Deviation: a parsed quantity keeps the format it was written in,
    which our exact values no longer carry; a whole multiple of 1024 (at least 1Ki) is
    written in binary units when that is shorter than in decimal ones (``1Gi``, ``1536Mi``
    but ``2G``).
    """
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    decimal = _decimal_si(magnitude)
    if magnitude.denominator == 1 and magnitude >= 1024 and magnitude % 1024 == 0:
        amount, power = int(magnitude), 0
        while amount % 1024 == 0 and power < len(_BINARY_SUFFIXES) - 1:
            amount, power = amount // 1024, power + 1
        binary = f"{amount}{_BINARY_SUFFIXES[power]}"
        if len(binary) < len(decimal):
            return sign + binary
    return sign + decimal


def _decimal_si(magnitude: Fraction) -> str:
    # mantissa * 10**exponent with the mantissa free of factors of 10, then the exponent
    # lowered to a multiple of 3 (AsCanonicalBytes); values are exact to 1n
    mantissa, exponent = int(magnitude * 10**9), -9
    while mantissa % 10 == 0:
        mantissa, exponent = mantissa // 10, exponent + 1
    while exponent % 3:
        mantissa, exponent = mantissa * 10, exponent - 1
    return f"{mantissa}{_DECIMAL_SUFFIXES.get(exponent, f'e{exponent}')}"


# -- names and labels ------------------------------------------------------------------------


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


def _mask_trailing_dash(name: str) -> str:
    # upstream maskTrailingDash: a generateName prefix may end in '-'
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def name_is_dns_subdomain(name: str, prefix: bool = False) -> list[str]:
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool = False) -> list[str]:
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def validate_label_name(name: str, path: str) -> list[FieldError]:
    return [invalid(path, name, m) for m in is_qualified_name(name)]


def validate_labels(labels: Mapping[str, str], path: str) -> list[FieldError]:
    """Keys and values of a label map; upstream reports both at the map's own path."""
    errors: list[FieldError] = []
    for key, value in labels.items():
        errors += validate_label_name(key, path)
        errors += [invalid(path, value, m) for m in is_valid_label_value(value)]
    return errors


def validate_label_selector(selector: LabelSelector | None, path: str) -> list[FieldError]:
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
