"""The structured-parameters allocator: which devices a node's pools give a pod's claims.

upstream: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/stable/
allocator_stable.go (Allocator.Allocate, validateDeviceRequest, allocateOne,
isSelectable, selectorsMatch, allocateDevice). The search is upstream's: claims in
order, their requests in order, for each device needed the pools' devices in order,
backtracking on failure and keeping the first full solution, so the devices picked are
upstream's.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from kubesched.api import Node
from kubesched_dra.api import (
    ALLOCATION_MODE_ALL,
    ALLOCATION_MODE_EXACT_COUNT,
    AllocationResult,
    Device,
    DeviceClass,
    DeviceSelector,
    ResourceClaim,
    ResourceSlice,
)
from kubesched_dra.cel import CELCache, CELRuntimeError
from kubesched_dra.structured._constraint import MatchAttributeConstraint
from kubesched_dra.structured._explain import RequestReport, explain_requests
from kubesched_dra.structured._pools import Pool, SliceIndex
from kubesched_dra.structured._request import RequestAccessor
from kubesched_dra.structured._result import (
    DeviceResult,
    SelectedRequest,
    build_result,
    check_node_selectors,
)
from kubesched_dra.structured._types import (
    ALLOCATION_RESULTS_MAX_SIZE,
    AllocatedDevices,
    AllocationError,
    AllocationTimeoutError,
    AllocatorFeatures,
    DeviceID,
    NodeAllocationError,
    kobj,
)

__all__ = ["Allocator", "Placement"]

_CALLER_FRAMES = 1000
_UNSUPPORTED = ("partitionable_devices", "consumable_capacity", "device_binding_and_status")

# (claim index, request index, subrequest index): one request or subrequest.
_RequestKey = tuple[int, int, int]
# The expressions of a request's class selectors and of its own: what decides selectability.
_SelectorKey = tuple[tuple[str, ...], tuple[str, ...]]


class _MaxSizeExceeded(Exception):
    """upstream errAllocationResultMaxSizeExceeded: a claim would get more than 32
    devices on this path; callers backtrack further than for a plain failure."""


@dataclass(frozen=True, slots=True)
class _Candidate:
    """upstream deviceWithID: a device, its ID, and the slice it is in."""

    id: DeviceID
    device: Device
    slice: ResourceSlice


@dataclass(slots=True)
class _RequestData:
    request: RequestAccessor
    parent: RequestAccessor | None
    device_class: DeviceClass | None = None
    num_devices: int = 0
    # On the entry of subrequest 0: the subrequest the search picked.
    selected_sub_request: int = 0
    # For allocationMode All: the devices, found before the search.
    all_devices: list[_Candidate] = field(default_factory=list)
    selector_key: _SelectorKey = ((), ())

    @property
    def request_name(self) -> str:
        if self.parent is not None:
            return f"{self.parent.name}/{self.request.name}"
        return self.request.name


class Allocator:
    """Allocates devices for claims on one node at a time, from the slices and classes
    given once; :meth:`allocate` may be called for many nodes.

    `allocated` are the devices other claims hold (their status, plus allocations in
    flight); `slices` all ResourceSlices, or a :class:`SliceIndex` of them kept while
    they do not change (building one reads every slice); `cel` compiles selectors once
    and keeps each selector's result per device, across allocators that share it."""

    def __init__(
        self,
        features: AllocatorFeatures,
        allocated: AllocatedDevices,
        classes: Mapping[str, DeviceClass],
        slices: Sequence[ResourceSlice] | SliceIndex,
        cel: CELCache,
    ) -> None:
        unsupported = [name for name in _UNSUPPORTED if getattr(features, name)]
        if unsupported:
            raise AllocationError(
                f"internal error: no allocator available for feature set {features}, "
                f"unsupported: {', '.join(unsupported)}"
            )
        self.features = features
        self.allocated = allocated
        self.classes = classes
        self.cel = cel
        self.slice_index = slices if isinstance(slices, SliceIndex) else SliceIndex(slices)

    def allocate(
        self, node: Node, claims: Sequence[ResourceClaim], deadline: float | None = None
    ) -> list[AllocationResult] | None:
        """One allocation result per claim, in order, or None when the claims do not fit
        on `node` (including when a pool they need is being updated).

        Raises :class:`NodeAllocationError` when only this node fails with a reason to
        report (invalid pools), :class:`AllocationError` for problems with the input
        (unknown class, CEL error, a claim asking for too many devices), and
        :class:`AllocationTimeoutError` once `deadline` (a `time.monotonic()` value) has
        passed, checked at each step of the search as upstream checks its context."""
        placement = self.place(node, claims, deadline)
        return None if placement is None else placement.results()

    def place(
        self, node: Node, claims: Sequence[ResourceClaim], deadline: float | None = None
    ) -> Placement | None:
        """:meth:`allocate`'s search alone: the devices picked, their AllocationResults
        built only when asked for (Filter searches every node, Reserve needs one)."""
        return _Allocation(self, node, claims, deadline).run()

    def explain(self, node: Node, claims: Sequence[ResourceClaim]) -> list[RequestReport]:
        """Per request of `claims`, how many of `node`'s devices match and are free (for
        saying why :meth:`allocate` returned None there). Raises as :meth:`allocate`
        does for problems with the input."""
        return explain_requests(_Allocation(self, node, claims), node, claims)


class Placement:
    """The devices the search picked for each claim, in the order of the claims; the
    claims' AllocationResults are built on the first :meth:`results` call."""

    __slots__ = ("_claims", "_devices", "_results", "_selected")

    def __init__(
        self,
        claims: Sequence[ResourceClaim],
        devices: list[list[DeviceResult]],
        selected: list[list[SelectedRequest]],
    ) -> None:
        self._claims = claims
        self._devices = devices
        self._selected = selected
        self._results: list[AllocationResult] | None = None

    def __len__(self) -> int:
        return len(self._claims)

    def results(self) -> list[AllocationResult]:
        if self._results is None:
            self._results = [
                build_result(claim, devices, selected)
                for claim, devices, selected in zip(
                    self._claims, self._devices, self._selected, strict=True
                )
            ]
        return self._results


class _Allocation:
    """The state of one :meth:`Allocator.allocate` call (upstream's `allocator`)."""

    def __init__(
        self,
        owner: Allocator,
        node: Node,
        claims: Sequence[ResourceClaim],
        deadline: float | None = None,
    ) -> None:
        self.owner = owner
        self.deadline = deadline
        self.features = owner.features
        self.node = node
        self.claims = claims
        self.pools: list[Pool] = []
        self.request_data: dict[_RequestKey, _RequestData] = {}
        self.constraints: list[list[MatchAttributeConstraint]] = []
        # Device -> indexes of the claims it is being allocated for in this attempt.
        self.allocating: dict[DeviceID, set[int]] = {}
        self.result: list[list[DeviceResult]] = [[] for _ in claims]

    def run(self) -> Placement | None:
        self.pools = self.owner.slice_index.gather_pools(self.node)
        for claim_index, claim in enumerate(self.claims):
            self.prepare_claim(claim_index, claim)
        _ensure_recursion_depth(self.claims)
        try:
            done = self._allocate_one(0, 0, 0, 0, False)
        except _MaxSizeExceeded:
            # upstream returns its sentinel from Allocate as an error in this case.
            raise AllocationError("allocation max size exceeded") from None
        if not done:
            if any(pool.invalid for pool in self.pools):
                # Not fatal: other nodes may work; reported if all nodes fail.
                raise NodeAllocationError("invalid resource pools were encountered")
            return None
        for claim, devices in zip(self.claims, self.result, strict=True):
            # the one error building a result can raise, raised by the search as upstream's
            check_node_selectors(claim, devices)
        selected = [self._selected(i, claim) for i, claim in enumerate(self.claims)]
        return Placement(self.claims, self.result, selected)

    def _selected(self, claim_index: int, claim: ResourceClaim) -> list[SelectedRequest]:
        """Per request, the class and name of what was allocated: the request itself or
        the subrequest the search picked."""
        selected: list[SelectedRequest] = []
        for request_index in range(len(claim.spec.devices.requests)):
            data = self.request_data[(claim_index, request_index, 0)]
            sub_index: int | None = None
            if data.parent is not None:
                sub_index = data.selected_sub_request
                data = self.request_data[(claim_index, request_index, sub_index)]
            selected.append(SelectedRequest(data.device_class, data.request_name, sub_index))
        return selected

    # --- before the search ------------------------------------------------------------

    def prepare_claim(self, claim_index: int, claim: ResourceClaim) -> None:
        min_devices = 0
        for request_index, request in enumerate(claim.spec.devices.requests):
            if request.first_available:
                if not self.features.prioritized_list:
                    raise AllocationError(
                        f"claim {kobj(claim.metadata)}, request {request.name}: has "
                        "subrequests, but the DRAPrioritizedList feature is disabled"
                    )
                parent = RequestAccessor.exact(request)
                fewest = math.inf
                for sub_index, sub in enumerate(request.first_available):
                    key = (claim_index, request_index, sub_index)
                    data = self._validate(RequestAccessor.sub(sub), parent, key)
                    self.request_data[key] = data
                    fewest = min(fewest, data.num_devices)
                min_devices += int(fewest)
            else:
                key = (claim_index, request_index, 0)
                data = self._validate(RequestAccessor.exact(request), None, key)
                self.request_data[key] = data
                min_devices += data.num_devices
        if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
            raise AllocationError(
                f"claim {kobj(claim.metadata)}: number of requested devices {min_devices} "
                f"exceeds the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
            )
        constraints: list[MatchAttributeConstraint] = []
        for i, constraint in enumerate(claim.spec.devices.constraints):
            if constraint.match_attribute is None:
                raise AllocationError(
                    f"claim {kobj(claim.metadata)}, constraint #{i}: empty constraint "
                    "(unsupported constraint type?)"
                )
            constraints.append(
                MatchAttributeConstraint(frozenset(constraint.requests), constraint.match_attribute)
            )
        self.constraints.append(constraints)

    def _validate(
        self, request: RequestAccessor, parent: RequestAccessor | None, key: _RequestKey
    ) -> _RequestData:
        claim = self.claims[key[0]]
        where = f"claim {kobj(claim.metadata)}, request {request.name}"
        data = _RequestData(request, parent)
        for i, selector in enumerate(request.selectors):
            if selector.cel is None:
                raise AllocationError(
                    f"{where}, selector #{i}: CEL expression empty (unsupported selector type?)"
                )
        if not self.features.admin_access and request.has_admin_access:
            raise AllocationError(
                f"{where}: admin access is requested, but the feature is disabled"
            )
        if not request.device_class_name:
            raise AllocationError(f"{where}: missing device class name (unsupported request type?)")
        device_class = self.owner.classes.get(request.device_class_name)
        if device_class is None:
            raise AllocationError(
                f"{where}: could not retrieve device class {request.device_class_name}: "
                f'deviceclass.resource.k8s.io "{request.device_class_name}" not found'
            )
        data.device_class = device_class
        data.selector_key = (
            tuple(s.cel.expression for s in device_class.spec.selectors if s.cel is not None),
            tuple(s.cel.expression for s in request.selectors if s.cel is not None),
        )
        if request.allocation_mode == ALLOCATION_MODE_EXACT_COUNT:
            data.num_devices = request.count
        elif request.allocation_mode == ALLOCATION_MODE_ALL:
            for pool in self.pools:
                if pool.incomplete:
                    raise AllocationError(
                        f"{where}: asks for all devices, but resource pool {pool.pool_id} "
                        "is currently being updated"
                    )
                if pool.invalid:
                    raise AllocationError(
                        f"{where}: asks for all devices, but resource pool {pool.pool_id} "
                        "is currently invalid"
                    )
                for slice_ in pool.slices:
                    for device in slice_.spec.devices:
                        if self.is_selectable(key, data, slice_, device):
                            device_id = DeviceID(
                                slice_.spec.driver, slice_.spec.pool.name, device.name
                            )
                            data.all_devices.append(_Candidate(device_id, device, slice_))
            data.num_devices = len(data.all_devices)
        else:
            raise AllocationError(f"{where}: unsupported count mode {request.allocation_mode}")
        return data

    # --- the search -------------------------------------------------------------------

    def _allocate_one(
        self, claim_index: int, request_index: int, sub_index: int, device_index: int, in_sub: bool
    ) -> bool:
        """upstream allocateOne: find a device for the `device_index`th device of the
        request (or subrequest), then recurse for the rest; True once everything is
        allocated. `in_sub` is set while trying one particular subrequest."""
        if claim_index >= len(self.claims):
            return True
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise AllocationTimeoutError
        claim = self.claims[claim_index]
        if request_index >= len(claim.spec.devices.requests):
            try:
                return self._allocate_one(claim_index + 1, 0, 0, 0, False)
            except _MaxSizeExceeded:
                # Another choice for an earlier claim's subrequests may need fewer devices.
                return False

        key = (claim_index, request_index, sub_index)
        data = self.request_data[key]
        if not in_sub and data.parent is not None:
            return self._allocate_sub_requests(claim_index, request_index, device_index, data)

        request = data.request
        all_devices = request.allocation_mode == ALLOCATION_MODE_ALL
        if all_devices and not data.all_devices:
            return False
        if device_index >= data.num_devices:
            return self._allocate_one(claim_index, request_index + 1, 0, 0, False)
        if (
            len(self.result[claim_index]) + data.num_devices - device_index
            > ALLOCATION_RESULTS_MAX_SIZE
        ):
            raise _MaxSizeExceeded

        if all_devices:
            # The order of "all" devices does not matter: the next one must be usable.
            candidate = data.all_devices[device_index]
            undo = self._allocate_device(key, candidate, must=True)
            if undo is None:
                return False
            return self._continue_or_undo(undo, key, device_index + 1, in_sub)

        for pool in self.pools:
            # Incomplete or invalid pools are skipped, not an error: others may do.
            if pool.incomplete or pool.invalid:
                continue
            for slice_ in pool.slices:
                for device in slice_.spec.devices:
                    device_id = DeviceID(pool.driver, pool.name, device.name)
                    if request.admin_access:
                        if claim_index in self.allocating.get(device_id, ()):
                            continue
                    elif self._in_use(device_id):
                        continue
                    if not self.is_selectable(key, data, slice_, device):
                        continue
                    undo = self._allocate_device(
                        key, _Candidate(device_id, device, slice_), must=False
                    )
                    if undo is not None and self._continue_or_undo(
                        undo, key, device_index + 1, in_sub
                    ):
                        return True
        return False

    def _continue_or_undo(
        self, undo: Callable[[], None], key: _RequestKey, device_index: int, in_sub: bool
    ) -> bool:
        """Go on with the next device after one was taken; take it back unless that led
        to a full solution."""
        try:
            done = self._allocate_one(*key, device_index, in_sub)
        except BaseException:
            undo()
            raise
        if not done:
            undo()
        return done

    def _allocate_sub_requests(
        self, claim_index: int, request_index: int, device_index: int, data: _RequestData
    ) -> bool:
        """Try the subrequests in order; the first that leads to a full solution wins."""
        all_exceeded = True
        sub_index = 0
        while (claim_index, request_index, sub_index) in self.request_data:
            try:
                done = self._allocate_one(claim_index, request_index, sub_index, device_index, True)
            except _MaxSizeExceeded:
                # A later subrequest may need fewer devices.
                sub_index += 1
                continue
            all_exceeded = False
            if done:
                data.selected_sub_request = sub_index
                return True
            sub_index += 1
        if all_exceeded:
            raise _MaxSizeExceeded
        return False

    def _in_use(self, device_id: DeviceID) -> bool:
        return device_id in self.owner.allocated or bool(self.allocating.get(device_id))

    def is_selectable(
        self, key: _RequestKey, data: _RequestData, slice_: ResourceSlice, device: Device
    ) -> bool:
        """Whether `device` satisfies the class's and the request's selectors. Kept with the
        device in the CEL cache by class and request selectors, so every allocator sharing
        the cache (one per pod) asks CEL once per device and request shape."""
        if not self.features.device_binding_and_status and device.binding_conditions:
            return False
        memo = self.owner.cel.memo(slice_.spec.driver, device)
        cached = memo.get(data.selector_key)
        if cached is not None:
            return cached
        matches = True
        if data.device_class is not None:
            matches = self._selectors_match(
                key, slice_, device, data.device_class, data.device_class.spec.selectors
            )
        if matches:
            matches = self._selectors_match(key, slice_, device, None, data.request.selectors)
        memo[data.selector_key] = matches
        return matches

    def _selectors_match(
        self,
        key: _RequestKey,
        slice_: ResourceSlice,
        device: Device,
        device_class: DeviceClass | None,
        selectors: Sequence[DeviceSelector],
    ) -> bool:
        cel = self.owner.cel
        for i, selector in enumerate(selectors):
            assert selector.cel is not None  # checked by _validate
            compiled = cel.get_or_compile(selector.cel.expression)
            if compiled.error is not None:
                raise AllocationError(
                    f"{self._selector_owner(key, device_class)}: selector #{i}: "
                    f"CEL compile error: {compiled.error}"
                )
            try:
                matches = cel.device_matches(compiled, slice_.spec.driver, device)
            except CELRuntimeError as error:
                device_id = DeviceID(slice_.spec.driver, slice_.spec.pool.name, device.name)
                raise AllocationError(
                    f"{self._selector_owner(key, device_class)}: selector #{i} on device "
                    f"{device_id}: CEL runtime error: {error}"
                ) from None
            if not matches:
                return False
        return True

    def _selector_owner(self, key: _RequestKey, device_class: DeviceClass | None) -> str:
        if device_class is not None:
            return f"class {device_class.name}"
        return f"claim {kobj(self.claims[key[0]].metadata)}"

    def _allocate_device(
        self, key: _RequestKey, candidate: _Candidate, must: bool
    ) -> Callable[[], None] | None:
        """upstream allocateDevice: if `candidate` is free and the claim's constraints
        accept it, record it and return the function that takes it back; otherwise None.
        With `must` (allocationMode All), a refusing constraint is an error."""
        claim_index = key[0]
        data = self.request_data[key]
        request = data.request
        device_id = candidate.id
        if request.admin_access:
            if claim_index in self.allocating.get(device_id, ()):
                return None
        elif self._in_use(device_id):
            return None
        if candidate.device.consumes_counters:
            # Needs partitionable devices, which are off (and unsupported here).
            return None
        if data.parent is None:
            base, sub = request.name, ""
        else:
            base, sub = data.parent.name, request.name
        if self.features.device_taints and _taint_prevents_allocation(candidate.device, request):
            return None
        constraints = self.constraints[claim_index]
        for i, constraint in enumerate(constraints):
            if constraint.add(base, sub, candidate.device, device_id):
                continue
            if must:
                claim = self.claims[claim_index]
                raise AllocationError(
                    f"claim {kobj(claim.metadata)}, request {request.name}: cannot add device "
                    f"{device_id} because a claim constraint would not be satisfied"
                )
            for added in constraints[:i]:
                added.remove(base, sub, candidate.device, device_id)
            return None
        self.allocating.setdefault(device_id, set()).add(claim_index)
        results = self.result[claim_index]
        previous = len(results)
        results.append(
            DeviceResult(
                request=request.name,
                parent_request=data.parent.name if data.parent is not None else "",
                id=device_id,
                slice=candidate.slice,
                admin_access=True if request.admin_access else None,
                tolerations=request.tolerations,
            )
        )

        def undo() -> None:
            for constraint in constraints:
                constraint.remove(base, sub, candidate.device, device_id)
            self.allocating[device_id].discard(claim_index)
            del results[previous:]

        return undo


def _ensure_recursion_depth(claims: Sequence[ResourceClaim]) -> None:
    """Let the search recurse as deep as these claims can make it: two frames per device
    (at most 32 per claim), two per request or subrequest and claim. A pod with many
    claims of many devices would pass Python's default limit of 1000."""
    depth = sum(
        2 * ALLOCATION_RESULTS_MAX_SIZE + 2 * len(claim.spec.devices.requests) + 2
        for claim in claims
    )
    # Room for the caller's own frames (the scheduler's, pytest's).
    needed = depth + _CALLER_FRAMES
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


def _taint_prevents_allocation(device: Device, request: RequestAccessor) -> bool:
    # Only the known effects prevent allocation; others, None included, are ignored.
    return any(
        taint.effect in ("NoSchedule", "NoExecute")
        and not any(toleration.tolerates(taint) for toleration in request.tolerations)
        for taint in device.taints
    )
