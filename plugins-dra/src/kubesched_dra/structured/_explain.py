"""Why claims do not fit on a node: per request, how many of the node's devices match
its class and selectors and how many of those are free.

Not upstream: the scheduler's `--explain` and simulation reports use it to say which
request found no device and why (selectors, devices in use, pools being updated, or the
combination: constraints and requests competing for the same devices).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kubesched.api import Node
from kubesched_dra.api import ALLOCATION_MODE_ALL, ResourceClaim
from kubesched_dra.structured._types import DeviceID, kobj

if TYPE_CHECKING:
    from kubesched_dra.structured._allocator import _Allocation

__all__ = ["RequestReport", "explain_requests"]


@dataclass(frozen=True, slots=True)
class RequestReport:
    """One request (or `firstAvailable` subrequest, named ``req/sub``) on one node.

    `devices` counts the devices of the node's usable pools; `matching` those that pass
    the class's and the request's selectors; `free` those of them not held by other
    claims (all of them for admin access). `wanted` is the count, None for "All".
    `unusable_pools` are the node's pools skipped as incomplete or invalid."""

    claim: str
    request: str
    wanted: int | None
    devices: int
    matching: int
    free: int
    unusable_pools: tuple[str, ...] = ()

    @property
    def short(self) -> bool:
        """Whether this request alone cannot be satisfied on the node."""
        if self.wanted is None:
            return self.matching == 0 or self.free < self.matching
        return self.free < self.wanted

    def describe(self) -> str:
        """One line: ``claim default/c, request gpu: wants 2, 3 of 8 devices match, 1
        free``."""
        wants = "all" if self.wanted is None else str(self.wanted)
        line = (
            f"claim {self.claim}, request {self.request}: wants {wants}, "
            f"{self.matching} of {self.devices} devices match, {self.free} free"
        )
        if self.unusable_pools:
            line += f" (pools being updated or invalid: {', '.join(self.unusable_pools)})"
        return line


def explain_requests(
    allocation: _Allocation, node: Node, claims: Sequence[ResourceClaim]
) -> list[RequestReport]:
    """The reports of every request of `claims` on `node`, in claim and request order."""
    allocation.pools = allocation.owner.slice_index.gather_pools(node)
    for claim_index, claim in enumerate(claims):
        allocation.prepare_claim(claim_index, claim)
    usable = [p for p in allocation.pools if not (p.incomplete or p.invalid)]
    unusable = tuple(p.pool_id for p in allocation.pools if p.incomplete or p.invalid)
    reports: list[RequestReport] = []
    for key, data in allocation.request_data.items():
        devices = matching = free = 0
        for pool in usable:
            for slice_ in pool.slices:
                for device in slice_.spec.devices:
                    devices += 1
                    if not allocation.is_selectable(key, data, slice_, device):
                        continue
                    matching += 1
                    device_id = DeviceID(pool.driver, pool.name, device.name)
                    if data.request.admin_access or device_id not in allocation.owner.allocated:
                        free += 1
        request = data.request
        reports.append(
            RequestReport(
                claim=kobj(claims[key[0]].metadata),
                request=data.request_name,
                wanted=None if request.allocation_mode == ALLOCATION_MODE_ALL else request.count,
                devices=devices,
                matching=matching,
                free=free,
                unusable_pools=unusable,
            )
        )
    return reports
