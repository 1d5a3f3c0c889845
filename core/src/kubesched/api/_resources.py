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
from typing import Final, TypeVar

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
#
# The aggregation below is written once for any amount that adds and compares: exact
# Fractions (the reference, and the public aggregate_* functions) or integer nano-units,
# which is what pod_requests and node_non_zero_requests compute in (every parsed quantity is
# a whole number of nano-units, see _quantity; a quantity that is not falls back to the
# exact path). Integers add several times faster than Fractions, and these run for every pod
# several times per cycle (NodeResourcesFit, BalancedAllocation, PodInfo).

_V = TypeVar("_V", Fraction, int)


def _add(into: dict[str, _V], other: Mapping[str, _V]) -> None:
    for name, value in other.items():
        current = into.get(name)
        into[name] = value if current is None else current + value


def _max(into: dict[str, _V], other: Mapping[str, _V]) -> None:
    for name, value in other.items():
        if name not in into or value > into[name]:
            into[name] = value


def _aggregate(pod: Pod, amounts_of: Callable[[Container], Mapping[str, _V]]) -> dict[str, _V]:
    """App containers and sidecars summed, at least the largest init-container moment.

    upstream: aggregateContainerResourcesByFn (KEP-753: an init container runs beside the
    sidecars started before it)."""
    total: dict[str, _V] = {}
    for c in pod.spec.containers:
        _add(total, amounts_of(c))
    init_containers = pod.spec.init_containers
    if not init_containers:
        return total
    sidecars: dict[str, _V] = {}
    init_peak: dict[str, _V] = {}
    for init in init_containers:
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


def aggregate_container_requests(
    pod: Pod, non_missing: Mapping[str, Fraction] | None = None
) -> Amounts:
    """The containers' effective requests, exact (upstream AggregateContainerRequests);
    `non_missing` stands in for a resource a container does not request."""
    return _requests_of(pod, non_missing, _exact)


def aggregate_container_limits(pod: Pod) -> Amounts:
    """The containers' effective limits, exact (upstream AggregateContainerLimits)."""
    return _aggregate(pod, lambda c: c.resources.limits)


def _requests_of(
    pod: Pod,
    non_missing: Mapping[str, _V] | None,
    convert: Callable[[Mapping[str, Fraction]], Mapping[str, _V]],
) -> dict[str, _V]:
    if non_missing:
        # upstream applyNonMissing: a request set explicitly, even to zero, is kept
        fill = non_missing
        return _aggregate(pod, lambda c: {**fill, **convert(c.resources.requests)})
    return _aggregate(pod, lambda c: convert(c.resources.requests))


def _pod_requests(
    pod: Pod,
    non_missing: Mapping[str, _V] | None,
    pod_level: bool,
    convert: Callable[[Mapping[str, Fraction]], Mapping[str, _V]],
) -> dict[str, _V]:
    # upstream: PodRequests (without status resources: a pod being scheduled has none)
    reqs = _requests_of(pod, non_missing, convert)
    if pod_level and is_pod_level_requests_set(pod):
        assert pod.spec.resources is not None
        for name, q in convert(pod.spec.resources.requests).items():
            if is_supported_pod_level_resource(name):
                reqs[name] = q
    if pod.spec.overhead:
        _add(reqs, convert(pod.spec.overhead))
    return reqs


# -- the two kinds of arithmetic ------------------------------------------------------------


def _exact(amounts: Mapping[str, Fraction]) -> Mapping[str, Fraction]:
    return amounts


_NANO: Final = 10**9
_NANO_PER_MILLI: Final = 10**6


class _NotNano(Exception):
    """A quantity that is not a whole number of nano-units: compute exactly instead."""


def _nano(amounts: Mapping[str, Fraction]) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, q in amounts.items():
        try:
            numerator, denominator = q.numerator, q.denominator
        except AttributeError:  # not a Fraction or an int (hand-built model)
            raise _NotNano from None
        if denominator == 1:
            out[name] = numerator * _NANO
        elif _NANO % denominator == 0:
            out[name] = numerator * (_NANO // denominator)
        else:
            raise _NotNano
    return out


def _nano_units(amounts: Mapping[str, int]) -> dict[str, int]:
    # resource_units on nano-units: ceil(q * 1000) for CPU, ceil(q) for the rest
    return {
        name: -(-n // (_NANO_PER_MILLI if name == CPU else _NANO)) for name, n in amounts.items()
    }


_NANO_CPU_DEFAULT: Final = _nano(_CPU_DEFAULT)
_NANO_MEMORY_DEFAULT: Final = _nano(_MEMORY_DEFAULT)
_NANO_NON_ZERO_DEFAULTS: Final = {**_NANO_CPU_DEFAULT, **_NANO_MEMORY_DEFAULT}


def pod_requests(pod: Pod, *, non_zero: bool = False, pod_level: bool = True) -> dict[str, int]:
    """The pod's effective requests: its supported pod-level requests where set (with
    `pod_level`), else the containers' (app containers and sidecars summed, at least the
    largest init-container moment), plus overhead.

    With `non_zero`, a container that does not request CPU or memory counts as requesting
    the scoring defaults (100m, 200Mi), as NodeResourcesFit and BalancedAllocation score
    (upstream NonMissingContainerRequests); pod-level requests still take precedence.
    """
    try:
        fill = _NANO_NON_ZERO_DEFAULTS if non_zero else None
        return _nano_units(_pod_requests(pod, fill, pod_level, _nano))
    except _NotNano:
        return _exact_pod_requests(pod, non_zero=non_zero, pod_level=pod_level)


def _exact_pod_requests(pod: Pod, *, non_zero: bool, pod_level: bool) -> dict[str, int]:
    """pod_requests in exact Fractions: the reference the integer path is tested against."""
    fill = _NON_ZERO_DEFAULTS if non_zero else None
    return _units(_pod_requests(pod, fill, pod_level, _exact))


def node_non_zero_requests(pod: Pod, *, pod_level: bool = True) -> dict[str, int]:
    """CPU and memory as NodeInfo.NonZeroRequested counts the pod.

    upstream: PodInfo.CalculateResource and getNonMissingContainerRequests. Without
    pod-level requests every container lacking a CPU or memory request counts the default;
    with them, a default is used only for a resource neither the pod level nor any
    container requests.
    """
    try:
        reqs = _non_zero_requests(
            pod, pod_level, _nano, _NANO_CPU_DEFAULT, _NANO_MEMORY_DEFAULT, _NANO_NON_ZERO_DEFAULTS
        )
        return _nano_units({CPU: reqs.get(CPU, 0), MEMORY: reqs.get(MEMORY, 0)})
    except _NotNano:
        return _exact_node_non_zero_requests(pod, pod_level=pod_level)


def _exact_node_non_zero_requests(pod: Pod, *, pod_level: bool) -> dict[str, int]:
    """node_non_zero_requests in exact Fractions (the reference of the integer path)."""
    reqs = _non_zero_requests(
        pod, pod_level, _exact, _CPU_DEFAULT, _MEMORY_DEFAULT, _NON_ZERO_DEFAULTS
    )
    return {name: resource_units(name, reqs.get(name, Fraction(0))) for name in (CPU, MEMORY)}


def _non_zero_requests(
    pod: Pod,
    pod_level: bool,
    convert: Callable[[Mapping[str, Fraction]], Mapping[str, _V]],
    cpu_default: Mapping[str, _V],
    memory_default: Mapping[str, _V],
    both_defaults: Mapping[str, _V],
) -> dict[str, _V]:
    if not (pod_level and is_pod_level_requests_set(pod)):
        non_missing = both_defaults
    else:
        requests = _pod_requests(pod, None, pod_level, convert)
        non_missing = {
            **({} if CPU in requests else cpu_default),
            **({} if MEMORY in requests else memory_default),
        }
    return _pod_requests(pod, non_missing, pod_level, convert)
