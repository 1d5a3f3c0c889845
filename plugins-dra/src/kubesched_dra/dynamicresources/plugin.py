"""DynamicResources: a pod's ResourceClaims get devices on the node it is placed on.

upstream v1.34: pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go.
PreEnqueue keeps a pod out until its claims exist; PreFilter reads the claims, notes where
allocated ones are available and builds the structured allocator once for the cycle;
Filter allocates the unallocated claims on each node (and rejects nodes outside an
allocated claim's node selector); PostFilter deallocates a claim reserved for no other pod
that kept the pod off some node; Reserve puts the node's allocations in flight (so no
other pod is given the same devices); PreBind writes each allocation and the pod's
`reservedFor` entry to the claim and assumes the result; Unreserve undoes both.

Every rejection is UnschedulableAndUnresolvable (upstream statusUnschedulable), so
preemption never evicts pods for devices. Features off by default in v1.34 (extended
resources backed by devices, binding conditions, device status) are not implemented.

Differences (docs/fidelity.md): PostFilter's deallocation and Unreserve's reservation
removal are written in a task, because those points do not await here; `filterTimeout`
is validated but the allocator runs to completion (it has no deadline to honour).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from kubesched import ConflictError
from kubesched.api import NodeSelector, Pod
from kubesched.features import feature_enabled
from kubesched.framework import (
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    NodeInfo,
    NodeToStatus,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    QueueingHint,
    ReservePlugin,
    StateData,
    StateNotFoundError,
    Status,
)
from kubesched_dra.api import FINALIZER, AllocationResult, ResourceClaim
from kubesched_dra.api import ResourceClaimConsumerReference as ConsumerRef
from kubesched_dra.cel import CELCache
from kubesched_dra.dynamicresources import events
from kubesched_dra.dynamicresources.args import DynamicResourcesArgs
from kubesched_dra.dynamicresources.claims import (
    ClaimUnavailableError,
    can_be_reserved,
)
from kubesched_dra.dynamicresources.claims import pod_resource_claims as find_pod_claims
from kubesched_dra.dynamicresources.manager import DRAManager
from kubesched_dra.names import DYNAMIC_RESOURCES
from kubesched_dra.structured import (
    AllocationError,
    AllocationTimeoutError,
    Allocator,
    AllocatorFeatures,
    NodeAllocationError,
    Placement,
)
from kubesched_dra.structured._types import kobj

__all__ = ["STATE_KEY", "DynamicResources", "DynamicResourcesState"]

_log = logging.getLogger("kubesched.dra")

STATE_KEY: Final = DYNAMIC_RESOURCES
CEL_CACHE_SIZE: Final = 10
"""upstream: an LRU of the 10 most recent compiled expressions."""
_UPDATE_RETRIES: Final = 5
"""upstream retry.DefaultRetry's steps."""


@dataclass
class ClaimInfo:
    """upstream informationForClaim: where an allocated claim is available (None:
    everywhere, or not allocated) and the allocation Reserve chose for it."""

    available_on: NodeSelector | None = None
    allocation: AllocationResult | None = None


@dataclass
class DynamicResourcesState:
    """upstream stateData: one object for the whole attempt (clones share it)."""

    claims: list[ResourceClaim] = field(default_factory=list)
    """The pod's claims, one per `spec.resourceClaims` entry that has one; PreBind puts
    the updated objects here."""
    infos: list[ClaimInfo] = field(default_factory=list)
    allocator: Allocator | None = None
    unavailable_claims: set[int] = field(default_factory=set)
    """Indexes of allocated claims some node could not use (for PostFilter)."""
    node_allocations: dict[str, Placement] = field(default_factory=dict)
    """Filter's allocations by node name, in the order of the unallocated claims."""

    def clone(self) -> StateData:
        return self


class DynamicResources(
    PreEnqueuePlugin[DynamicResourcesArgs],
    PreFilterPlugin[DynamicResourcesArgs],
    FilterPlugin[DynamicResourcesArgs],
    PostFilterPlugin[DynamicResourcesArgs],
    ReservePlugin[DynamicResourcesArgs],
    PreBindPlugin[DynamicResourcesArgs],
    EnqueueExtensions,
):
    """Allocates devices for a pod's ResourceClaims (structured parameters)."""

    name: ClassVar[str] = DYNAMIC_RESOURCES

    def __init__(self, args: DynamicResourcesArgs, handle: Handle) -> None:
        super().__init__(args, handle)
        self.filter_timeout = args.filter_timeout_seconds
        self.features = allocator_features()
        self.cel_cache = CELCache(CEL_CACHE_SIZE)
        self.manager = DRAManager()
        self.manager.watch(handle.cluster)
        self.tasks: set[asyncio.Task[None]] = set()

    # -- the pod's claims ---------------------------------------------------------------
    def pod_resource_claims(self, pod: Pod) -> list[ResourceClaim]:
        """The pod's claims; ClaimUnavailableError (upstream's message) when one cannot
        be used now."""
        return find_pod_claims(pod, self.manager.claims)

    # -- PreEnqueue ---------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        try:
            self.pod_resource_claims(pod)
        except ClaimUnavailableError as exc:
            return Status.unresolvable(str(exc))
        return None

    # -- PreFilter ----------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        data = DynamicResourcesState()
        state.write(STATE_KEY, data)
        try:
            claims = self.pod_resource_claims(pod)
        except ClaimUnavailableError as exc:
            return None, Status.unresolvable(str(exc))
        if not claims:
            return None, Status.skip()

        to_allocate = 0
        data.infos = [ClaimInfo() for _ in claims]
        for index, claim in enumerate(claims):
            allocation = claim.status.allocation
            if (
                allocation is not None
                and not can_be_reserved(claim)
                and not claim.is_reserved_for(pod.metadata.uid)
            ):
                return None, Status.unresolvable("resourceclaim in use")
            if allocation is not None:
                data.infos[index].available_on = allocation.node_selector
                continue
            to_allocate += 1
            if self.manager.claim_has_pending_allocation(claim.metadata.uid):
                return None, Status.unresolvable(
                    f"resource claim {kobj(claim.metadata)} is in the process of being allocated"
                )
            status = self._check_requests(claim)
            if status is not None:
                return None, status

        if to_allocate:
            try:
                data.allocator = Allocator(
                    self.features,
                    self.manager.list_all_allocated_devices(),
                    self.manager.device_classes(),
                    self.manager.slice_index(),
                    self.cel_cache,
                )
            except AllocationError as exc:
                return None, Status.as_error(exc)
        data.claims = claims
        return None, None

    def _check_requests(self, claim: ResourceClaim) -> Status | None:
        """Every request names a class that exists (upstream validateDeviceClass)."""
        for request in claim.spec.devices.requests:
            if request.exactly is not None:
                status = self._check_class(request.exactly.device_class_name, request.name)
            elif request.first_available:
                if not self.features.prioritized_list:
                    return Status.unresolvable(
                        f"resource claim {kobj(claim.metadata)}, request {request.name}: has "
                        "subrequests, but the DRAPrioritizedList feature is disabled"
                    )
                status = None
                for sub in request.first_available:
                    status = self._check_class(sub.device_class_name, f"{request.name}/{sub.name}")
                    if status is not None:
                        break
            else:
                return Status.unresolvable(
                    f"resource claim {kobj(claim.metadata)}, request {request.name}: "
                    "unknown request type"
                )
            if status is not None:
                return status
        return None

    def _check_class(self, class_name: str, request_name: str) -> Status | None:
        if not class_name:
            return Status.as_error(f"request {request_name}: unsupported request type")
        if self.manager.device_class(class_name) is None:
            # unschedulable until a DeviceClass event
            return Status.unresolvable(
                f"request {request_name}: device class {class_name} does not exist"
            )
        return None

    def pre_filter_extensions(self) -> None:
        return None

    # -- Filter -------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        data = _read_state(state)
        if isinstance(data, Status):
            return data
        if not data.claims:
            return None
        node = node_info.node
        if node is None:
            return Status.as_error("node not found")

        unavailable = [
            index
            for index, info in enumerate(data.infos)
            if info.available_on is not None
            and not info.available_on.matches(node.metadata.name, node.metadata.labels)
        ]

        allocations: Placement | None = None
        if data.allocator is not None:
            to_allocate = [c for c in data.claims if c.status.allocation is None]
            # upstream applies filterTimeout as the allocator's context deadline
            timeout = self.filter_timeout
            deadline = time.monotonic() + timeout if timeout > 0 else None
            try:
                allocations = data.allocator.place(node, to_allocate, deadline)
            except AllocationTimeoutError:
                return Status.unresolvable("timed out trying to allocate devices")
            except NodeAllocationError as exc:
                # only this node: the message shows if every node fails
                return Status.unresolvable(str(exc))
            except AllocationError as exc:
                # a broken claim or class: abort this pod's attempt
                return Status.as_error(exc)
            if allocations is None or len(allocations) != len(to_allocate):
                return Status.unresolvable("cannot allocate all claims")

        if unavailable:
            data.unavailable_claims.update(unavailable)
            return Status.unresolvable("resourceclaim not available on the node")
        if allocations is not None:
            data.node_allocations[node.metadata.name] = allocations
        return None

    def explain_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[str]:
        """Claim by claim, why the node does not fit (FilterExplainer): an allocated claim
        whose node selector excludes the node, and for each request of the claims still
        to allocate how many of the node's devices match its selectors and are free."""
        data = state.get(STATE_KEY)
        node = node_info.node
        if not isinstance(data, DynamicResourcesState) or node is None:
            return []
        lines = [
            f"claim {kobj(claim.metadata)}: allocated, not available on this node"
            for claim, info in zip(data.claims, data.infos, strict=True)
            if info.available_on is not None
            and not info.available_on.matches(node.metadata.name, node.metadata.labels)
        ]
        if data.allocator is not None:
            to_allocate = [c for c in data.claims if c.status.allocation is None]
            try:
                reports = data.allocator.explain(node, to_allocate)
            except AllocationError as exc:
                return [*lines, str(exc)]
            lines += [report.describe() for report in reports]
        return lines

    # -- PostFilter ---------------------------------------------------------------------
    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        data = _read_state(state)
        if isinstance(data, Status):
            return None, data
        if not data.claims:
            return None, Status.unschedulable("no new claims to deallocate")
        # upstream walks a Go set (random order, "no better heuristic"); lowest index here
        for index in sorted(data.unavailable_claims):
            claim = data.claims[index]
            reserved = claim.status.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == pod.metadata.uid):
                self._spawn(self._deallocate(claim, pod))
                return None, Status.unschedulable("deallocation of ResourceClaim completed")
        return None, Status.unschedulable("still not schedulable")

    async def _deallocate(self, claim: ResourceClaim, pod: Pod) -> None:
        status = claim.status.model_copy(
            update={"reserved_for": [], "allocation": None, "devices": []}
        )
        try:
            await self.handle.cluster.update(claim.model_copy(update={"status": status}))
        except Exception:
            # upstream returns the error from PostFilter; the pod tries again after backoff
            _log.exception("deallocating %s for pod %s failed", claim.key, pod.key)
            self.handle.activate([pod])

    # -- Reserve / Unreserve ------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data = _read_state(state)
        if isinstance(data, Status):
            return data
        pending = [i for i, c in enumerate(data.claims) if c.status.allocation is None]
        if not pending or data.allocator is None:
            return None
        placement = data.node_allocations.get(node_name)
        allocations = placement.results() if placement is not None else None
        if not allocations:
            # Filter found the node suitable, so this should not happen
            return Status.as_error("claim allocation not found for node")
        if len(allocations) != len(pending):
            return Status.as_error(
                f"internal error, have {len(allocations)} allocations, {len(pending)} claims "
                f"to allocate, want {len(pending)} claims"
            )
        for index, allocation in zip(pending, allocations, strict=True):
            data.infos[index].allocation = allocation
            claim = data.claims[index]
            finalizers = list(claim.metadata.finalizers)
            if FINALIZER not in finalizers:
                finalizers.append(FINALIZER)
            meta = claim.metadata.model_copy(update={"finalizers": finalizers})
            status = claim.status.model_copy(update={"allocation": allocation})
            allocated = claim.model_copy(update={"metadata": meta, "status": status})
            self.manager.signal_claim_pending_allocation(claim.metadata.uid, allocated)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        data = state.get(STATE_KEY)
        if not isinstance(data, DynamicResourcesState):
            return
        for claim in data.claims:
            if self.manager.remove_claim_pending_allocation(
                claim.metadata.uid
            ) and self.manager.claims.restore(claim.key):
                self._report_claim_change(claim)
            if claim.status.allocation is not None and claim.is_reserved_for(pod.metadata.uid):
                self._spawn(self._unreserve_claim(claim, pod))

    async def _unreserve_claim(self, claim: ResourceClaim, pod: Pod) -> None:
        """Remove the pod from the claim's `reservedFor` (upstream: a strategic merge
        patch deleting the pod's entry, on the latest claim)."""
        cluster = self.handle.cluster
        for _ in range(_UPDATE_RETRIES):
            current = cluster.get("ResourceClaim", claim.metadata.name, claim.metadata.namespace)
            if current is None or current.metadata.uid != claim.metadata.uid:
                return
            kept = [r for r in current.status.reserved_for if r.uid != pod.metadata.uid]
            if len(kept) == len(current.status.reserved_for):
                return
            status = current.status.model_copy(update={"reserved_for": kept})
            try:
                await cluster.update(current.model_copy(update={"status": status}))
                return
            except ConflictError:
                continue
            except Exception:
                # upstream: "we will get here again when pod scheduling is retried"
                _log.exception("unreserve %s for pod %s failed", claim.key, pod.key)
                return

    # -- PreBind ------------------------------------------------------------------------
    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data = _read_state(state)
        if isinstance(data, Status):
            return data
        for index, claim in enumerate(data.claims):
            if claim.is_reserved_for(pod.metadata.uid):
                continue
            try:
                data.claims[index] = await self._bind_claim(data, index, pod)
            except Exception as exc:
                return Status.as_error(exc)
        return None

    async def _bind_claim(self, data: DynamicResourcesState, index: int, pod: Pod) -> ResourceClaim:
        """upstream bindClaim: record the allocation Reserve chose (if any) and the pod's
        reservation in the claim's status, retrying on conflicts with the latest claim."""
        cluster = self.handle.cluster
        claim = data.claims[index]
        allocation = data.infos[index].allocation
        ref = ConsumerRef(resource="pods", name=pod.metadata.name, uid=pod.metadata.uid)
        modified = False
        try:
            for attempt in range(_UPDATE_RETRIES):
                if attempt:
                    latest = cluster.get(
                        "ResourceClaim", claim.metadata.name, claim.metadata.namespace
                    )
                    if latest is None:
                        raise RuntimeError(
                            f"get updated claim {kobj(claim.metadata)} after conflict: "
                            f'resourceclaims.resource.k8s.io "{claim.metadata.name}" not found'
                        )
                    claim = latest
                try:
                    claim = await self._write_claim(claim, allocation, ref)
                except ConflictError:
                    if attempt == _UPDATE_RETRIES - 1:
                        raise
                    continue
                modified = True
                return claim
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            if modified:
                try:
                    self.manager.claims.assume(claim)
                except Exception as exc:  # a concurrent delete or update: fine
                    _log.debug("claim %s not stored in assume cache: %s", claim.key, exc)
            if allocation is not None:
                self.manager.remove_claim_pending_allocation(claim.metadata.uid)

    async def _write_claim(
        self, claim: ResourceClaim, allocation: AllocationResult | None, ref: ConsumerRef
    ) -> ResourceClaim:
        cluster = self.handle.cluster
        name = kobj(claim.metadata)
        if claim.metadata.deletion_timestamp is not None:
            raise RuntimeError(f"claim {name} got deleted in the meantime")
        if allocation is not None:
            if claim.status.allocation is not None:
                raise RuntimeError(f"claim {name} got allocated elsewhere in the meantime")
            if FINALIZER not in claim.metadata.finalizers:
                finalizers = [*claim.metadata.finalizers, FINALIZER]
                meta = claim.metadata.model_copy(update={"finalizers": finalizers})
                try:
                    claim = await cluster.update(claim.model_copy(update={"metadata": meta}))
                except ConflictError:
                    raise
                except Exception as exc:
                    raise RuntimeError(f"add finalizer to claim {name}: {exc}") from exc
        status = claim.status.model_copy(
            update={
                "allocation": allocation if allocation is not None else claim.status.allocation,
                "reserved_for": [*claim.status.reserved_for, ref],
            }
        )
        try:
            updated: ResourceClaim = await cluster.update(
                claim.model_copy(update={"status": status})
            )
        except ConflictError:
            raise
        except Exception as exc:
            what = "allocation and reservation" if allocation is not None else "reservation"
            raise RuntimeError(f"add {what} to claim {name}: {exc}") from exc
        return updated

    # -- events -------------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return events.dynamic_resources_events(self)

    def is_schedulable_after_claim_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        return events.after_claim_change(self, pod, old, new)

    def is_schedulable_after_pod_change(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        return events.after_pod_change(self, pod, old, new)

    def _report_claim_change(self, claim: ResourceClaim) -> None:
        """An assumption undone without an API write: tell the queue as the claim assume
        cache's event handler does upstream (eventhandlers.go)."""
        try:
            restored = self.manager.claims.get(claim.key)
        except KeyError:
            return
        report = getattr(self.handle, "report_cluster_event", None)
        if report is not None:
            report(events.CLAIM_UPDATE, claim, restored)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


def allocator_features() -> AllocatorFeatures:
    """The DRA gates in force, as the allocator reads them (upstream AllocatorFeatures)."""
    return AllocatorFeatures(
        admin_access=feature_enabled("DRAAdminAccess"),
        prioritized_list=feature_enabled("DRAPrioritizedList"),
        device_taints=feature_enabled("DRADeviceTaints"),
        partitionable_devices=feature_enabled("DRAPartitionableDevices"),
        consumable_capacity=feature_enabled("DRAConsumableCapacity"),
        device_binding_and_status=feature_enabled("DRADeviceBindingConditions")
        and feature_enabled("DRAResourceClaimDeviceStatus"),
    )


def _read_state(state: CycleState) -> DynamicResourcesState | Status:
    data = state.get(STATE_KEY)
    if data is None:
        # upstream getStateData: CycleState.Read's ErrNotFound ("not found")
        return Status.as_error(StateNotFoundError(STATE_KEY))
    if not isinstance(data, DynamicResourcesState):
        return Status.as_error("unable to convert state into stateData")
    return data
