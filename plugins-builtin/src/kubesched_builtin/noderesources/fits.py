"""Whether a node has room for a pod's requests: the check behind NodeResourcesFit's Filter.

Upstream: pkg/scheduler/framework/plugins/noderesources/fit.go (fitsRequest). A resource is
short when the pod requests more than the node has left (allocatable minus what its pods
request); every short resource is reported, the pod count first. Since v1.34
(kubernetes/kubernetes#131345) a shortage is unresolvable when the pod asks for more than
the node's whole allocatable of a resource (CPU, memory, ephemeral storage or a scalar one):
evicting pods cannot help, so Filter says UnschedulableAndUnresolvable and preemption skips
the node. Too many pods stays resolvable.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Pod
from kubesched.framework import Code, NodeInfo, PodInfo, Resource, Status

__all__ = [
    "REASON_TOO_MANY_PODS",
    "InsufficientResource",
    "checked_scalar_requests",
    "fits",
    "fits_request",
    "insufficient_reason",
    "insufficient_status",
    "is_extended_resource_name",
    "nodes_short_of",
    "shortages",
]

REASON_TOO_MANY_PODS = "Too many pods"


def insufficient_reason(resource: str) -> str:
    return f"Insufficient {resource}"


@dataclass(frozen=True)
class InsufficientResource:
    """One resource the node lacks for the pod, with the numbers that show it;
    `unresolvable` when even an empty node would lack it (the request exceeds `capacity`,
    the node's allocatable)."""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


def insufficient_status(short: Sequence[InsufficientResource]) -> Status | None:
    """Filter's verdict on the shortages `fits_request` found: every reason, in order;
    UnschedulableAndUnresolvable when any of them is (upstream Fit.Filter)."""
    if not short:
        return None
    code = (
        Code.UnschedulableAndUnresolvable
        if any(r.unresolvable for r in short)
        else Code.Unschedulable
    )
    return Status(code, *(r.reason for r in short))


def is_extended_resource_name(name: str) -> bool:
    """An extended resource: domain-prefixed and outside `kubernetes.io` (upstream
    v1helper.IsExtendedResourceName). Only these can be ignored through the args."""
    if "/" not in name or "kubernetes.io/" in name:
        return False
    return not name.startswith("requests.")


def checked_scalar_requests(
    pod_request: Resource, ignored_resources: Set[str], ignored_groups: Set[str]
) -> list[tuple[str, int]]:
    """The pod's non-zero scalar requests that Filter checks, ignored extended ones left out."""
    checked: list[tuple[str, int]] = []
    for name, quantity in pod_request.scalar.items():
        if quantity == 0:
            continue
        if is_extended_resource_name(name) and (
            name in ignored_resources or name.split("/", 1)[0] in ignored_groups
        ):
            continue
        checked.append((name, quantity))
    return checked


def fits_request(
    pod_request: Resource,
    node_info: NodeInfo,
    ignored_resources: Set[str] = frozenset(),
    ignored_groups: Set[str] = frozenset(),
) -> list[InsufficientResource]:
    """Every resource the node is short of for `pod_request`; empty when the pod fits."""
    return shortages(
        pod_request,
        node_info.allocatable,
        node_info.requested,
        len(node_info.pods),
        ignored_resources,
        ignored_groups,
    )


def shortages(
    pod_request: Resource,
    alloc: Resource,
    used: Resource,
    pod_count: int,
    ignored_resources: Set[str] = frozenset(),
    ignored_groups: Set[str] = frozenset(),
) -> list[InsufficientResource]:
    """`fits_request` on a node's figures alone: its allocatable, what its `pod_count`
    pods request (`used`). DefaultPreemption asks it of a node's figures once its
    lower-priority pods are gone, without building that NodeInfo."""
    short: list[InsufficientResource] = []
    if pod_count + 1 > alloc.allowed_pod_number:
        short.append(
            InsufficientResource(PODS, REASON_TOO_MANY_PODS, 1, pod_count, alloc.allowed_pod_number)
        )
    figures = [
        (CPU, pod_request.milli_cpu, used.milli_cpu, alloc.milli_cpu),
        (MEMORY, pod_request.memory, used.memory, alloc.memory),
        (
            EPHEMERAL_STORAGE,
            pod_request.ephemeral_storage,
            used.ephemeral_storage,
            alloc.ephemeral_storage,
        ),
    ]
    if pod_request.scalar:  # most pods request none: no call, no generator
        figures += [
            (name, requested, used.scalar.get(name, 0), alloc.scalar.get(name, 0))
            for name, requested in checked_scalar_requests(
                pod_request, ignored_resources, ignored_groups
            )
        ]
    for name, requested, in_use, capacity in figures:
        if requested > 0 and requested > capacity - in_use:
            short.append(
                InsufficientResource(
                    name,
                    insufficient_reason(name),
                    requested,
                    in_use,
                    capacity,
                    unresolvable=requested > capacity,
                )
            )
    return short


def nodes_short_of(
    pod_request: Resource,
    nodes: Sequence[NodeInfo],
    ignored_resources: Set[str] = frozenset(),
    ignored_groups: Set[str] = frozenset(),
) -> list[int]:
    """The positions in `nodes` of those `fits_request` finds short of something: the same
    tests, without building the list of what is short (NodeResourcesFit's batch Filter)."""
    cpu, memory, storage = (
        pod_request.milli_cpu,
        pod_request.memory,
        pod_request.ephemeral_storage,
    )
    requests_any = bool(cpu or memory or storage or pod_request.scalar)
    scalars = checked_scalar_requests(pod_request, ignored_resources, ignored_groups)
    short: list[int] = []
    for i, info in enumerate(nodes):
        alloc, used = info.allocatable, info.requested
        if len(info.pods) >= alloc.allowed_pod_number:
            short.append(i)
        elif not requests_any:
            continue
        elif (
            (cpu > 0 and cpu > alloc.milli_cpu - used.milli_cpu)
            or (memory > 0 and memory > alloc.memory - used.memory)
            or (storage > 0 and storage > alloc.ephemeral_storage - used.ephemeral_storage)
        ):
            short.append(i)
        elif scalars:
            have, taken = alloc.scalar, used.scalar
            if any(q > have.get(name, 0) - taken.get(name, 0) for name, q in scalars):
                short.append(i)
    return short


def fits(pod: Pod, node_info: NodeInfo) -> list[InsufficientResource]:
    """`fits_request` for a whole pod, nothing ignored (upstream Fits)."""
    return fits_request(PodInfo(pod).requests, node_info)
