"""Resource names and a pod's effective requests.

Upstream: k8s.io/component-helpers/resource/helpers.go (PodRequests) and
pkg/scheduler/util/pod_resources.go (non-zero defaults). Requests are integers: CPU in
millicores, everything else in base units rounded up, as Quantity.MilliValue/Value do.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction

from kubesched.api._pod import Container, Pod

__all__ = [
    "CPU",
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "EPHEMERAL_STORAGE",
    "MEMORY",
    "PODS",
    "pod_requests",
    "resource_units",
]

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

DEFAULT_MILLI_CPU_REQUEST = 100
"""What a container without a CPU request counts as when scoring (0.1 core)."""
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
"""What a container without a memory request counts as when scoring (200 MiB)."""


def resource_units(name: str, quantity: Fraction) -> int:
    """A quantity in the integer units the scheduler compares: millicores for CPU."""
    if name == CPU:
        return math.ceil(quantity * 1000)
    return math.ceil(quantity)


def _container_requests(container: Container, non_zero: bool) -> dict[str, int]:
    reqs = {name: resource_units(name, q) for name, q in container.resources.requests.items()}
    if non_zero:
        reqs.setdefault(CPU, DEFAULT_MILLI_CPU_REQUEST)
        reqs.setdefault(MEMORY, DEFAULT_MEMORY_REQUEST)
    return reqs


def _add(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, value in other.items():
        into[name] = into.get(name, 0) + value


def _max(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, value in other.items():
        if value > into.get(name, 0):
            into[name] = value


def _sum(containers: Iterable[Container], non_zero: bool) -> dict[str, int]:
    total: dict[str, int] = {}
    for c in containers:
        _add(total, _container_requests(c, non_zero))
    return total


def pod_requests(pod: Pod, *, non_zero: bool = False) -> dict[str, int]:
    """The pod's effective requests: app containers and sidecars summed, at least the
    largest init-container moment, plus overhead.

    With `non_zero`, a container that does not request CPU or memory counts as
    requesting the scoring defaults (100m, 200Mi), as upstream's NonMissingContainerRequests.
    """
    spec = pod.spec
    reqs = _sum(spec.containers, non_zero)
    sidecars: dict[str, int] = {}
    init_peak: dict[str, int] = {}
    for init in spec.init_containers:
        own = _container_requests(init, non_zero)
        if init.restart_policy == "Always":
            # a sidecar keeps running: it adds to every later init container and to the app
            _add(sidecars, own)
            moment = dict(sidecars)
        else:
            moment = dict(own)
            _add(moment, sidecars)
        _max(init_peak, moment)
    _add(reqs, sidecars)
    _max(reqs, init_peak)
    _add(reqs, {name: resource_units(name, q) for name, q in spec.overhead.items()})
    return reqs
