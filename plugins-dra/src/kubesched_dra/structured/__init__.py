"""The structured-parameters allocator: devices for claims on a node, as upstream picks them.

upstream: staging/src/k8s.io/dynamic-resource-allocation/structured (v1.34's "stable"
allocator with the features v1.34 enables by default: admin access, prioritized lists;
device taints when asked for).
"""

from kubesched_dra.structured._allocator import Allocator, Placement
from kubesched_dra.structured._explain import RequestReport
from kubesched_dra.structured._pools import Pool, SliceIndex, node_matches
from kubesched_dra.structured._types import (
    ALLOCATION_RESULTS_MAX_SIZE,
    AllocatedDevices,
    AllocationError,
    AllocationTimeoutError,
    AllocatorFeatures,
    DeviceID,
    NodeAllocationError,
    allocated_devices,
    kobj,
)

__all__ = [
    "ALLOCATION_RESULTS_MAX_SIZE",
    "AllocatedDevices",
    "AllocationError",
    "AllocationTimeoutError",
    "Allocator",
    "AllocatorFeatures",
    "DeviceID",
    "NodeAllocationError",
    "Placement",
    "Pool",
    "RequestReport",
    "SliceIndex",
    "allocated_devices",
    "kobj",
    "node_matches",
]
