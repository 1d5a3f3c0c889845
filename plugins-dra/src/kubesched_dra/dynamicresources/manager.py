"""What DynamicResources reads of the cluster: claims (through the assume cache), the
allocations in flight, the devices in use, device classes and resource slices.

upstream: pkg/scheduler/framework/plugins/dynamicresources/dra_manager.go
(DefaultDRAManager, claimTracker) and allocateddevices.go (allocatedDevices, kept up to
date from the assume cache's events rather than listed again in every PreFilter).

One manager per plugin instance. Scheduling cycles run on the event loop without
awaiting, so nothing here is touched by two cycles at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from kubesched.cluster import WatchEvent
from kubesched_dra.api import DeviceClass, ResourceClaim, ResourceSlice
from kubesched_dra.dynamicresources.assume_cache import ClaimAssumeCache
from kubesched_dra.structured import DeviceID, SliceIndex

__all__ = ["DRAManager", "claim_devices"]


def claim_devices(claim: ResourceClaim) -> list[DeviceID]:
    """The devices `claim`'s allocation holds; a device allocated with admin access is
    not in use (upstream foreachAllocatedDevice)."""
    allocation = claim.status.allocation
    if allocation is None:
        return []
    return [
        DeviceID(result.driver, result.pool, result.device)
        for result in allocation.devices.results
        if not result.admin_access
    ]


class _ObjectStore:
    """Objects of one cluster kind by key, from a watch; `items()` is cached until the
    next change (PreFilter reads it once per pod)."""

    def __init__(self, key: Callable[[Any], str]) -> None:
        self._key = key
        self._objects: dict[str, Any] = {}
        self._list: list[Any] | None = None

    def on_watch_event(self, event: WatchEvent) -> None:
        key = self._key(event.obj)
        if event.type == "DELETED":
            self._objects.pop(key, None)
        else:
            self._objects[key] = event.obj
        self._list = None

    def get(self, key: str) -> Any | None:
        return self._objects.get(key)

    def mapping(self) -> Mapping[str, Any]:
        return self._objects

    def items(self) -> list[Any]:
        if self._list is None:
            self._list = [self._objects[key] for key in sorted(self._objects)]
        return self._list


class DRAManager:
    """The claim tracker, the device-class lister and the slice lister of one plugin."""

    def __init__(self) -> None:
        self.claims = ClaimAssumeCache()
        self._in_flight: dict[str, ResourceClaim] = {}
        self._devices_in_use: Counter[DeviceID] = Counter()
        self._devices_snapshot: frozenset[DeviceID] | None = None
        self._classes = _ObjectStore(lambda c: c.metadata.name)
        self._slices = _ObjectStore(lambda s: s.metadata.name)
        self._slice_index: SliceIndex | None = None
        # "namespace/claim name" -> uids of the pods naming it in spec.resourceClaims
        self._named_by: dict[str, set[str]] = {}
        self.claims.add_listener(self._claim_changed)

    def watch(self, cluster: Any) -> None:
        """Fill the stores with `cluster`'s objects now (an informer's initial list: the
        plugin is usable before the first watch event is delivered), then keep them up
        to date from its watches (whose replay of those objects changes nothing)."""
        handlers = {
            "ResourceClaim": self.claims.on_watch_event,
            "DeviceClass": self._classes.on_watch_event,
            "ResourceSlice": self._slice_changed,
            "Pod": self._pod_changed,
        }
        for kind, handler in handlers.items():
            for obj in cluster.list(kind):
                handler(WatchEvent("ADDED", kind, obj))
            cluster.watch(kind, handler)

    # -- allocated devices (allocateddevices.go) -----------------------------------------
    def _claim_changed(self, old: ResourceClaim | None, new: ResourceClaim | None) -> None:
        old_devices = claim_devices(old) if old is not None else []
        new_devices = claim_devices(new) if new is not None else []
        if old_devices == new_devices:
            return
        self._devices_in_use.subtract(old_devices)
        self._devices_in_use.update(new_devices)
        for device in old_devices:
            if self._devices_in_use[device] <= 0:
                del self._devices_in_use[device]
        self._devices_snapshot = None

    def list_all_allocated_devices(self) -> frozenset[DeviceID]:
        """Devices of allocated claims (the assume cache's view) and of allocations in
        flight (upstream ListAllAllocatedDevices)."""
        if self._devices_snapshot is None:
            self._devices_snapshot = frozenset(self._devices_in_use)
        if not self._in_flight:
            return self._devices_snapshot
        in_flight = (d for c in self._in_flight.values() for d in claim_devices(c))
        return self._devices_snapshot.union(in_flight)

    # -- allocations in flight ----------------------------------------------------------
    def claim_has_pending_allocation(self, uid: str) -> bool:
        return uid in self._in_flight

    def signal_claim_pending_allocation(self, uid: str, allocated: ResourceClaim) -> None:
        self._in_flight[uid] = allocated

    def remove_claim_pending_allocation(self, uid: str) -> bool:
        """Forget an allocation in flight; whether there was one."""
        return self._in_flight.pop(uid, None) is not None

    def in_flight(self) -> Iterable[ResourceClaim]:
        return self._in_flight.values()

    # -- listers ------------------------------------------------------------------------
    def device_class(self, name: str) -> DeviceClass | None:
        found: DeviceClass | None = self._classes.get(name)
        return found

    def device_classes(self) -> Mapping[str, DeviceClass]:
        return self._classes.mapping()

    def resource_slices(self) -> list[ResourceSlice]:
        return self._slices.items()

    def slice_index(self) -> SliceIndex:
        """The slices indexed by node, kept until a slice changes (and with it the pools
        gathered per node), instead of being built in every PreFilter."""
        if self._slice_index is None:
            self._slice_index = SliceIndex(self._slices.items())
        return self._slice_index

    # -- pods naming claims ---------------------------------------------------------------
    def pods_naming(self, claim: ResourceClaim) -> set[str]:
        """The uids of the pods whose spec.resourceClaims name `claim` (resourceClaimName)."""
        return self._named_by.get(claim.key, set())

    def _pod_changed(self, event: WatchEvent) -> None:
        pod = event.obj
        namespace = pod.metadata.namespace or "default"
        # spec.resourceClaims cannot change: an ADDED and a DELETED are all that matter
        for entry in pod.spec.resource_claims:
            if entry.resource_claim_name is None:
                continue
            key = f"{namespace}/{entry.resource_claim_name}"
            if event.type == "DELETED":
                uids = self._named_by.get(key)
                if uids is not None:
                    uids.discard(pod.metadata.uid)
                    if not uids:
                        del self._named_by[key]
            else:
                self._named_by.setdefault(key, set()).add(pod.metadata.uid)

    def _slice_changed(self, event: WatchEvent) -> None:
        self._slices.on_watch_event(event)
        self._slice_index = None
