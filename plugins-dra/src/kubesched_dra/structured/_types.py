"""What the allocator's caller passes and gets back: features, device IDs, errors.

upstream: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/types.go
(Features, DeviceID) and allocator.go (ErrFailedAllocationOnNode).
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Final, NamedTuple, TypeAlias

from kubesched import KubeschedError
from kubesched.api import ObjectMeta
from kubesched_dra.api import ResourceClaim

__all__ = [
    "ALLOCATION_RESULTS_MAX_SIZE",
    "AllocatedDevices",
    "AllocationError",
    "AllocatorFeatures",
    "DeviceID",
    "NodeAllocationError",
    "allocated_devices",
    "kobj",
]

ALLOCATION_RESULTS_MAX_SIZE: Final = 32
"""upstream resourceapi.AllocationResultsMaxSize: devices one claim can get."""


class DeviceID(NamedTuple):
    """A device, unique by driver, pool and name (upstream DeviceID)."""

    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


AllocatedDevices: TypeAlias = AbstractSet[DeviceID]
"""Devices in use: allocated to other claims (their status) or being allocated (in flight)."""


@dataclass(frozen=True, slots=True)
class AllocatorFeatures:
    """The DRA feature gates the allocator reads, at v1.34's defaults.

    Admin access and prioritized lists are beta and on; device taints is alpha and off
    but supported; partitionable devices, consumable capacity and binding conditions
    are alpha, off, and not supported (asking for them raises, as upstream does when no
    allocator implements a feature set)."""

    admin_access: bool = True
    prioritized_list: bool = True
    device_taints: bool = False
    partitionable_devices: bool = False
    consumable_capacity: bool = False
    device_binding_and_status: bool = False


class AllocationError(KubeschedError):
    """Allocation cannot be decided (unknown class, CEL error, a request the allocator
    cannot handle): the scheduler reports an error for the pod, not just this node.
    The message is upstream's (``claim default/c, request r: could not retrieve ...``)."""


class AllocationTimeoutError(TimeoutError):
    """The search passed its deadline (upstream: the allocator's context expired, which
    DynamicResources' Filter turns into ``timed out trying to allocate devices``)."""


class NodeAllocationError(AllocationError):
    """Allocation failed on this node only (upstream errors wrapping
    ErrFailedAllocationOnNode, e.g. ``invalid resource pools were encountered``): the
    node is unschedulable with this message, other nodes may still work."""


def kobj(meta: ObjectMeta) -> str:
    """klog.KObj: ``namespace/name``, or the name alone without a namespace."""
    return f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name


def allocated_devices(claims: Iterable[ResourceClaim]) -> set[DeviceID]:
    """The devices the allocations in `claims`' statuses hold. A device allocated with
    admin access is not in use (upstream dynamicresources/allocateddevices.go,
    foreachAllocatedDevice)."""
    result: set[DeviceID] = set()
    for claim in claims:
        allocation = claim.status.allocation
        if allocation is None:
            continue
        for device in allocation.devices.results:
            if device.admin_access:
                continue
            result.add(DeviceID(device.driver, device.pool, device.device))
    return result
