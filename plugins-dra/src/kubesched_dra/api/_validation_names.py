"""Name rules of resource.k8s.io/v1 with the API server's messages: driver, pool, device,
request and class names, qualified attribute names, and the list helpers every object
uses (too many items, duplicates).

upstream: pkg/apis/resource/validation/validation.go (validatePoolName,
validateQualifiedName, validateFullyQualifiedName, validateCIdentifier, validateSlice,
validateSet) and pkg/apis/core/validation/validation.go (ValidateCSIDriverName,
ValidateDNS1123Label, ValidateDNS1123Subdomain).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable, Sequence
from typing import Final, TypeVar

from kubesched.api.field import (
    ErrorList,
    FieldError,
    Path,
    duplicate,
    invalid,
    required,
    too_long,
    too_many,
)
from kubesched.api.validation import is_dns1123_label, is_dns1123_subdomain

__all__ = [
    "DRIVER_NAME_MAX_LENGTH",
    "validate_driver_name",
    "validate_fully_qualified_name",
    "validate_label",
    "validate_pool_name",
    "validate_qualified_name",
    "validate_set",
    "validate_slice",
    "validate_subdomain",
]

T = TypeVar("T")

DRIVER_NAME_MAX_LENGTH: Final = 63
_POOL_NAME_MAX_LENGTH: Final = 253
_DEVICE_MAX_ID_LENGTH: Final = 32

_C_IDENTIFIER: Final = re.compile("[A-Za-z_][A-Za-z0-9_]*")
# upstream validation.IsCIdentifier: RegexError(cIdentifierErrMsg, cIdentifierFmt, ...)
_C_IDENTIFIER_MSG: Final = (
    "a valid C identifier must start with alphabetic character or '_', followed by a "
    "string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or "
    "'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')"
)


# The same few names (drivers, attribute names, device name prefixes) come back on every
# device of every slice: their problems are computed once per name.
_label_problems = functools.lru_cache(maxsize=4096)(lambda v: tuple(is_dns1123_label(v)))
_subdomain_problems = functools.lru_cache(maxsize=4096)(lambda v: tuple(is_dns1123_subdomain(v)))


def validate_label(value: str, path: Path) -> ErrorList:
    """upstream corevalidation.ValidateDNS1123Label (device and request names)."""
    return [invalid(path, value, m) for m in _label_problems(value)]


def validate_subdomain(value: str, path: Path) -> ErrorList:
    """upstream corevalidation.ValidateDNS1123Subdomain (device class names)."""
    return [invalid(path, value, m) for m in _subdomain_problems(value)]


def validate_driver_name(name: str, path: Path) -> ErrorList:
    """upstream ValidateCSIDriverName: an empty name is both required and invalid."""
    errors: ErrorList = []
    if not name:
        errors.append(required(path))
    if len(name.encode()) > DRIVER_NAME_MAX_LENGTH:
        errors.append(too_long(path, name, DRIVER_NAME_MAX_LENGTH))
    errors += [invalid(path, name, m) for m in _subdomain_problems(name.lower())]
    return errors


def validate_pool_name(name: str, path: Path) -> ErrorList:
    """One or more DNS subdomains separated by slashes, at most 253 bytes."""
    if not name:
        return [required(path)]
    errors: ErrorList = []
    if len(name.encode()) > _POOL_NAME_MAX_LENGTH:
        errors.append(too_long(path, "", _POOL_NAME_MAX_LENGTH))
    for part in name.split("/"):
        errors += [invalid(path, part, m) for m in is_dns1123_subdomain(part)]
    return errors


def _c_identifier(value: str, path: Path) -> ErrorList:
    errors: ErrorList = []
    if len(value.encode()) > _DEVICE_MAX_ID_LENGTH:
        errors.append(too_long(path, "", _DEVICE_MAX_ID_LENGTH))
    if not _C_IDENTIFIER.fullmatch(value):
        errors.append(invalid(path, value, _C_IDENTIFIER_MSG))
    return errors


def validate_qualified_name(name: str, path: Path) -> ErrorList:
    """An attribute or capacity name: a C identifier, optionally after a driver-style
    domain and a slash."""
    return [FieldError(e.type, str(path), e.value, e.detail) for e in _qualified_name(name)]


@functools.lru_cache(maxsize=4096)
def _qualified_name(name: str) -> tuple[FieldError, ...]:
    return tuple(_qualified_name_errors(name, Path()))


def _qualified_name_errors(name: str, path: Path) -> ErrorList:
    parts = name.split("/")
    if len(parts) == 1:
        return _c_identifier(parts[0], path)
    if len(parts) > 2:
        return [invalid(path, name, "must not contain more than one slash")]
    domain, ident = parts
    errors: ErrorList = []
    if not domain:
        errors.append(invalid(path, "", "the domain must not be empty"))
    else:
        errors += validate_driver_name(domain, path)
    if not ident:
        errors.append(invalid(path, "", "the name must not be empty"))
    else:
        errors += _c_identifier(ident, path)
    return errors


def validate_fully_qualified_name(name: str, path: Path) -> ErrorList:
    """A qualified name that has its domain (`matchAttribute`)."""
    errors = validate_qualified_name(name, path)
    if "/" not in name:
        errors.append(
            invalid(
                path,
                name,
                "a fully qualified name must be a domain and a name separated by a slash",
            )
        )
    return errors


def validate_slice(
    items: Sequence[T], max_size: int, check: Callable[[T, Path], ErrorList], path: Path
) -> ErrorList:
    """Too many items stops there (upstream: short-circuits for DOS protection); otherwise
    each item's errors at `path[i]`. A negative `max_size` has no limit."""
    if 0 <= max_size < len(items):
        return [too_many(path, len(items), max_size)]
    errors: ErrorList = []
    for i, item in enumerate(items):
        errors += check(item, path.index(i))
    return errors


def validate_set(
    items: Sequence[T],
    max_size: int,
    check: Callable[[T, Path], ErrorList],
    key: Callable[[T], Hashable],
    path: Path,
) -> ErrorList:
    """`validate_slice`, then a Duplicate error at each item whose key came before."""
    errors = validate_slice(items, max_size, check, path)
    if 0 <= max_size < len(items):
        return errors
    seen: set[Hashable] = set()
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            errors.append(duplicate(path.index(i), k))
        seen.add(k)
    return errors
