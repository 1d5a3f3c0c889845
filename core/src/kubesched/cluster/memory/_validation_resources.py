"""Resource names and quantities as the API server validates them: container requests and
limits, pod-level resources, pod overhead and node capacity.

upstream: pkg/apis/core/validation/validation.go (validateResourceRequirements,
validateContainerResourceName, validatePodResourceName, ValidateResourceQuantityValue,
validatePodResourceConsistency, ValidateNodeResources) and pkg/apis/core/helper/helpers.go
(IsStandardResourceName, IsExtendedResourceName, IsOvercommitAllowed ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Final

from kubesched._errors import QuantityError
from kubesched.api import (
    CPU,
    HUGEPAGES_PREFIX,
    MEMORY,
    Pod,
    ResourceRequirements,
    aggregate_container_requests,
    int_value,
    is_hugepages,
    is_supported_pod_level_resource,
    milli_value,
    parse_quantity,
)
from kubesched.api.field import FieldError, Stringer, forbidden, invalid, not_supported, required
from kubesched.api.validation import is_qualified_name
from kubesched.cluster.memory._validation_field import quantity_string

__all__ = [
    "validate_container_resource_name",
    "validate_pod_resource_consistency",
    "validate_pod_resource_name",
    "validate_quantities",
    "validate_requirements",
]

NameCheck = Callable[[str, str], list[FieldError]]

_STANDARD_CONTAINER_RESOURCES: Final = frozenset({CPU, MEMORY, "ephemeral-storage"})
_INTEGER_RESOURCES: Final = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)
_STANDARD_RESOURCES: Final = _INTEGER_RESOURCES | frozenset(
    {
        CPU,
        MEMORY,
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "storage",
        "requests.storage",
    }
)
# upstream resourcehelper.SupportedPodLevelResources(), listed sorted as sets.List does
_POD_LEVEL_RESOURCES: Final = (CPU, HUGEPAGES_PREFIX, MEMORY)


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    if _is_native(name) or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


def _overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not is_hugepages(name)


def _is_standard(name: str) -> bool:
    return name in _STANDARD_RESOURCES or name.startswith((HUGEPAGES_PREFIX, "requests.hugepages-"))


def validate_quantity(name: str, value: Fraction, path: str) -> list[FieldError]:
    """upstream ValidateResourceQuantityValue: not negative; whole for integer resources."""
    errors: list[FieldError] = []
    if value < 0:
        errors.append(invalid(path, quantity_string(value), "must be greater than or equal to 0"))
    if (name in _INTEGER_RESOURCES or _is_extended(name)) and milli_value(value) % 1000:
        errors.append(invalid(path, Stringer(quantity_string(value)), "must be an integer"))
    return errors


def validate_quantities(amounts: Mapping[str, Fraction], path: str) -> list[FieldError]:
    """Each quantity of a node's capacity or allocatable, at ``<path>.<name>``."""
    errors: list[FieldError] = []
    for name, value in amounts.items():
        errors += validate_quantity(name, value, f"{path}.{name}")
    return errors


def _validate_resource_name(name: str, path: str) -> list[FieldError]:
    errors = [invalid(path, name, m) for m in is_qualified_name(name)]
    if not errors and "/" not in name and not _is_standard(name):
        errors.append(invalid(path, name, "must be a standard resource type or fully qualified"))
    return errors


def validate_container_resource_name(name: str, path: str) -> list[FieldError]:
    errors = _validate_resource_name(name, path)
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not is_hugepages(name):
            errors.append(invalid(path, name, "must be a standard resource for containers"))
    elif not _is_native(name) and not _is_extended(name):
        errors.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errors


def validate_pod_resource_name(name: str, path: str) -> list[FieldError]:
    errors = _validate_resource_name(name, path)
    if not errors and not is_supported_pod_level_resource(name):
        errors.append(not_supported(path, name, _POD_LEVEL_RESOURCES))
    return errors


def _hugepage_value(name: str, value: Fraction, path: str) -> list[FieldError]:
    """upstream IsHugePageResourceValueDivisible: whole pages of the size in the name."""
    try:
        page = parse_quantity(name.removeprefix(HUGEPAGES_PREFIX))
    except QuantityError:
        page = Fraction(0)
    if page > 0 and milli_value(page) % 1000 == 0 and int_value(value) % int_value(page) == 0:
        return []
    text = quantity_string(value)
    return [invalid(path, text, f"{text} is not positive integer multiple of {name}")]


@lru_cache(maxsize=1024)
def _name_ok(check_name: NameCheck, name: str) -> bool:
    """Whether `check_name` finds nothing wrong with `name` (what it finds does not depend
    on the path it reports at): every pod names the same few resources."""
    return not check_name(name, "")


def validate_requirements(
    resources: ResourceRequirements, check_name: NameCheck, path: str
) -> list[FieldError]:
    """upstream validateResourceRequirements for a container (or overhead) or the pod level."""
    errors: list[FieldError] = []
    limits_path, requests_path = f"{path}.limits", f"{path}.requests"
    cpu_or_memory = hugepages = False
    for name, amount in resources.limits.items():
        at = f"{limits_path}[{name}]"
        if not _name_ok(check_name, name):
            errors += check_name(name, at)
        errors += validate_quantity(name, amount, at)
        if is_hugepages(name):
            hugepages = True
            errors += _hugepage_value(name, amount, at)
        cpu_or_memory = cpu_or_memory or name in (CPU, MEMORY)
    for name, request in resources.requests.items():
        at = f"{requests_path}[{name}]"
        if not _name_ok(check_name, name):
            errors += check_name(name, at)
        errors += validate_quantity(name, request, at)
        limit = resources.limits.get(name)
        # upstream reports these two at the requests map, not at the resource
        if limit is not None and request != limit and not _overcommit_allowed(name):
            detail = f"must be equal to {name} limit of {quantity_string(limit)}"
            errors.append(invalid(requests_path, quantity_string(request), detail))
        elif limit is not None and request > limit:
            detail = f"must be less than or equal to {name} limit of {quantity_string(limit)}"
            errors.append(invalid(requests_path, quantity_string(request), detail))
        elif limit is None and not _overcommit_allowed(name):
            errors.append(
                required(limits_path, "Limit must be set for non overcommitable resources")
            )
        if is_hugepages(name):
            hugepages = True
            errors += _hugepage_value(name, request, at)
        cpu_or_memory = cpu_or_memory or name in (CPU, MEMORY)
    if hugepages and not cpu_or_memory:
        errors.append(forbidden(path, "HugePages require cpu or memory"))
    return errors


def validate_pod_resource_consistency(pod: Pod, path: str) -> list[FieldError]:
    """Pod-level requests cover the containers' aggregate; no container limit exceeds the
    pod's. A resource the pod level does not name is not compared.

    upstream: validatePodResourceConsistency, whose container path is built from the
    pod-level path (``spec.resources.containers[0][cpu].limits``), kept as is.
    """
    resources = pod.spec.resources
    if resources is None:
        return []
    errors: list[FieldError] = []
    for name, total in aggregate_container_requests(pod).items():
        pod_request = resources.requests.get(name)
        if pod_request is not None and total > pod_request:
            detail = "must be greater than or equal to aggregate container requests of "
            detail += quantity_string(total)
            errors.append(invalid(f"{path}.requests[{name}]", quantity_string(pod_request), detail))
    for i, container in enumerate(pod.spec.containers):
        for name, limit in container.resources.limits.items():
            pod_limit = resources.limits.get(name)
            if pod_limit is not None and limit > pod_limit:
                detail = f"must be less than or equal to pod limits of {quantity_string(pod_limit)}"
                at = f"{path}.containers[{i}][{name}].limits"
                errors.append(invalid(at, quantity_string(limit), detail))
    return errors
