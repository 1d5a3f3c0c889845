"""Resource names and a pod's effective requests.

Upstream: k8s.io/component-helpers/resource/helpers.go (PodRequests,
AggregateContainerRequests, IsPodLevelRequestsSet ...), pkg/scheduler/util/pod_resources.go
(the non-zero defaults) and pkg/scheduler/framework/types.go (PodInfo.CalculateResource).
Quantities are summed exactly, as Go's resource.Quantity adds them, and only the total is
turned into the integers the scheduler compares: CPU in millicores, everything else in base
units rounded up, as Quantity.MilliValue/Value do.

Like upstream's helper these functions know no feature gate: a caller that honours
`PodLevelResources` passes `pod_level=feature_enabled("PodLevelResources")`, one that does not
(upstream's queueing hints) leaves the default, which counts pod-level requests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Final

from kubesched.api._pod import Container, Pod

__all__ = [
    "CPU",
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "EPHEMERAL_STORAGE",
    "HUGEPAGES_PREFIX",
    "MEMORY",
    "PODS",
    "aggregate_container_limits",
    "aggregate_container_requests",
    "is_hugepages",
    "is_pod_level_requests_set",
    "is_pod_level_resources_set",
    "is_supported_pod_level_resource",
    "node_non_zero_requests",
    "pod_requests",
    "resource_units",
]

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"
HUGEPAGES_PREFIX = "hugepages-"

DEFAULT_MILLI_CPU_REQUEST = 100
"""What a container without a CPU request counts as when scoring (0.1 core)."""
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
"""What a container without a memory request counts as when scoring (200 MiB)."""

_CPU_DEFAULT: Final = {CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000)}
_MEMORY_DEFAULT: Final = {MEMORY: Fraction(DEFAULT_MEMORY_REQUEST)}
_NON_ZERO_DEFAULTS: Final = {**_CPU_DEFAULT, **_MEMORY_DEFAULT}

Amounts = dict[str, Fraction]


def resource_units(name: str, quantity: Fraction) -> int:
    """A quantity in the integer units the scheduler compares: millicores for CPU."""
    if name == CPU:
        return math.ceil(quantity * 1000)
    return math.ceil(quantity)


def _units(amounts: Mapping[str, Fraction]) -> dict[str, int]:
    return {name: resource_units(name, q) for name, q in amounts.items()}


# -- pod-level resources (KEP-2837) --------------------------------------------------------


def is_hugepages(name: str) -> bool:
    """`hugepages-2Mi`, `hugepages-1Gi` ... (upstream v1helper.IsHugePageResourceName)."""
    return name.startswith(HUGEPAGES_PREFIX)


def is_supported_pod_level_resource(name: str) -> bool:
    """Whether `spec.resources` may name this resource: cpu, memory and hugepages-* in v1.34
    (upstream IsSupportedPodLevelResource)."""
    return name in (CPU, MEMORY) or is_hugepages(name)


def is_pod_level_resources_set(pod: Pod) -> bool:
    """Pod-level requests or limits name at least one supported resource."""
    res = pod.spec.resources
    if res is None:
        return False
    return any(is_supported_pod_level_resource(n) for n in (*res.requests, *res.limits))


def is_pod_level_requests_set(pod: Pod) -> bool:
    """Pod-level requests name at least one supported resource."""
    res = pod.spec.resources
    return res is not None and any(is_supported_pod_level_resource(n) for n in res.requests)


# -- container aggregation ---------------------------------------------------------------


def _add(into: Amounts, other: Mapping[str, Fraction]) -> None:
    for name, value in other.items():
        into[name] = into.get(name, Fraction(0)) + value


def _max(into: Amounts, other: Mapping[str, Fraction]) -> None:
    for name, value in other.items():
        if name not in into or value > into[name]:
            into[name] = value


def _aggregate(pod: Pod, amounts_of: Callable[[Container], Mapping[str, Fraction]]) -> Amounts:
    """App containers and sidecars summed, at least the largest init-container moment.

    upstream: aggregateContainerResourcesByFn (KEP-753: an init container runs beside the
    sidecars started before it)."""
    total: Amounts = {}
    for c in pod.spec.containers:
        _add(total, amounts_of(c))
    sidecars: Amounts = {}
    init_peak: Amounts = {}
    for init in pod.spec.init_containers:
        own = amounts_of(init)
        if init.restart_policy == "Always":
            _add(total, own)
            _add(sidecars, own)
            moment = dict(sidecars)
        else:
            moment = dict(own)
            _add(moment, sidecars)
        _max(init_peak, moment)
    _max(total, init_peak)
    return total


def _with_non_missing(
    requests: Mapping[str, Fraction], non_missing: Mapping[str, Fraction]
) -> Amounts:
    # upstream applyNonMissing: a request set explicitly, even to zero, is kept
    return {**non_missing, **requests}


def aggregate_container_requests(
    pod: Pod, non_missing: Mapping[str, Fraction] | None = None
) -> Amounts:
    """The containers' effective requests, exact (upstream AggregateContainerRequests);
    `non_missing` stands in for a resource a container does not request."""
    if non_missing:
        fill = non_missing
        return _aggregate(pod, lambda c: _with_non_missing(c.resources.requests, fill))
    return _aggregate(pod, lambda c: c.resources.requests)


def aggregate_container_limits(pod: Pod) -> Amounts:
    """The containers' effective limits, exact (upstream AggregateContainerLimits)."""
    return _aggregate(pod, lambda c: c.resources.limits)


def _pod_requests(pod: Pod, non_missing: Mapping[str, Fraction] | None, pod_level: bool) -> Amounts:
    # upstream: PodRequests (without status resources: a pod being scheduled has none)
    reqs = aggregate_container_requests(pod, non_missing)
    if pod_level and is_pod_level_requests_set(pod):
        assert pod.spec.resources is not None
        for name, q in pod.spec.resources.requests.items():
            if is_supported_pod_level_resource(name):
                reqs[name] = q
    _add(reqs, pod.spec.overhead)
    return reqs


def pod_requests(pod: Pod, *, non_zero: bool = False, pod_level: bool = True) -> dict[str, int]:
    """The pod's effective requests: its supported pod-level requests where set (with
    `pod_level`), else the containers' (app containers and sidecars summed, at least the
    largest init-container moment), plus overhead.

    With `non_zero`, a container that does not request CPU or memory counts as requesting
    the scoring defaults (100m, 200Mi), as NodeResourcesFit and BalancedAllocation score
    (upstream NonMissingContainerRequests); pod-level requests still take precedence.
    """
    return _units(_pod_requests(pod, _NON_ZERO_DEFAULTS if non_zero else None, pod_level))


def node_non_zero_requests(pod: Pod, *, pod_level: bool = True) -> dict[str, int]:
    """CPU and memory as NodeInfo.NonZeroRequested counts the pod.

    upstream: PodInfo.CalculateResource and getNonMissingContainerRequests. Without
    pod-level requests every container lacking a CPU or memory request counts the default;
    with them, a default is used only for a resource neither the pod level nor any
    container requests.
    """
    if not (pod_level and is_pod_level_requests_set(pod)):
        non_missing: Mapping[str, Fraction] = _NON_ZERO_DEFAULTS
    else:
        requests = _pod_requests(pod, None, pod_level)
        non_missing = {
            **({} if CPU in requests else _CPU_DEFAULT),
            **({} if MEMORY in requests else _MEMORY_DEFAULT),
        }
    reqs = _pod_requests(pod, non_missing, pod_level)
    return {name: resource_units(name, reqs.get(name, Fraction(0))) for name in (CPU, MEMORY)}
