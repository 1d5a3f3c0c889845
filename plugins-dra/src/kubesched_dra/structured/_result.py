"""Turning the devices the search picked into a claim's AllocationResult.

upstream: internal/stable/allocator_stable.go (the end of Allocate: results, class and
claim configuration, createNodeSelector, addNewNodeSelectorRequirements).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kubesched.api import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from kubesched_dra.api import (
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceAllocationResult,
    DeviceClass,
    DeviceRequestAllocationResult,
    DeviceToleration,
    ResourceClaim,
    ResourceSlice,
)
from kubesched_dra.structured._types import AllocationError, DeviceID

__all__ = [
    "DeviceResult",
    "SelectedRequest",
    "build_result",
    "check_node_selectors",
    "node_selector_for",
]


@dataclass(frozen=True, slots=True)
class DeviceResult:
    """One device picked for a request (`parent_request` set for a subrequest)."""

    request: str
    parent_request: str
    id: DeviceID
    slice: ResourceSlice
    admin_access: bool | None
    tolerations: tuple[DeviceToleration, ...]

    @property
    def request_name(self) -> str:
        return f"{self.parent_request}/{self.request}" if self.parent_request else self.request


@dataclass(frozen=True, slots=True)
class SelectedRequest:
    """A claim's request as allocated: its class, its name in results (``req/sub`` for
    a subrequest) and, for a `firstAvailable` request, the index of the subrequest."""

    device_class: DeviceClass | None
    request_name: str
    sub_request_index: int | None


def build_result(
    claim: ResourceClaim, devices: Sequence[DeviceResult], selected: Sequence[SelectedRequest]
) -> AllocationResult:
    """The claim's allocation: its devices in the order picked, the configuration of
    their classes and of the claim, and where the devices are reachable."""
    results = [
        DeviceRequestAllocationResult(
            request=device.request_name,
            driver=device.id.driver,
            pool=device.id.pool,
            device=device.id.device,
            admin_access=device.admin_access,
            tolerations=list(device.tolerations),
        )
        for device in devices
    ]
    return AllocationResult(
        devices=DeviceAllocationResult(results=results, config=_configs(claim, selected)),
        node_selector=node_selector_for(claim, devices),
    )


def _configs(
    claim: ResourceClaim, selected: Sequence[SelectedRequest]
) -> list[DeviceAllocationConfiguration]:
    configs: list[DeviceAllocationConfiguration] = []
    # Each class's configuration is added once, naming every request that used the class.
    class_ranges: dict[str, range] = {}
    for chosen in selected:
        device_class = chosen.device_class
        if device_class is None:
            continue
        existing = class_ranges.get(device_class.name)
        if existing is not None:
            for i in existing:
                configs[i].requests.append(chosen.request_name)
            continue
        start = len(configs)
        for class_config in device_class.spec.config:
            configs.append(
                DeviceAllocationConfiguration(
                    source="FromClass",
                    requests=[chosen.request_name],
                    opaque=class_config.opaque,
                )
            )
        class_ranges[device_class.name] = range(start, len(configs))
    requests = claim.spec.devices.requests
    for config in claim.spec.devices.config:
        if not config.requests:
            configs.append(
                DeviceAllocationConfiguration(source="FromClaim", requests=[], opaque=config.opaque)
            )
            continue
        # As upstream: once per request the entry names (or whose picked subrequest it names).
        for request, chosen in zip(requests, selected, strict=True):
            if request.name in config.requests:
                configs.append(
                    DeviceAllocationConfiguration(
                        source="FromClaim", requests=list(config.requests), opaque=config.opaque
                    )
                )
                continue
            if chosen.sub_request_index is None:
                continue
            sub = request.first_available[chosen.sub_request_index]
            if f"{request.name}/{sub.name}" in config.requests:
                configs.append(
                    DeviceAllocationConfiguration(
                        source="FromClaim", requests=list(config.requests), opaque=config.opaque
                    )
                )
    return configs


def check_node_selectors(claim: ResourceClaim, devices: Sequence[DeviceResult]) -> None:
    """Raise the AllocationError :func:`node_selector_for` would, without building the
    selector (for a result built later)."""
    for device in devices:
        spec = device.slice.spec
        if spec.node_name:
            return
        if spec.node_selector is not None:
            _one_term(claim, spec.node_selector)


def _one_term(claim: ResourceClaim, selector: NodeSelector) -> None:
    terms = selector.node_selector_terms
    if len(terms) > 1:
        # API validation prevents such slices.
        raise AllocationError(
            f"create NodeSelector for claim {claim.metadata.name}: unsupported "
            f"ResourceSlice.NodeSelector with {len(terms)} terms"
        )


def node_selector_for(claim: ResourceClaim, devices: Sequence[DeviceResult]) -> NodeSelector | None:
    """upstream createNodeSelector: the node of a node-local device, else the union of
    the one-term node selectors of the devices' slices, else None (everywhere)."""
    match_fields: list[NodeSelectorRequirement] = []
    match_expressions: list[NodeSelectorRequirement] = []
    for device in devices:
        spec = device.slice.spec
        if spec.node_name:
            return NodeSelector(
                node_selector_terms=[
                    NodeSelectorTerm(
                        match_fields=[
                            NodeSelectorRequirement(
                                key="metadata.name", operator="In", values=[spec.node_name]
                            )
                        ]
                    )
                ]
            )
        if spec.node_selector is None:
            continue
        _one_term(claim, spec.node_selector)
        terms = spec.node_selector.node_selector_terms
        if terms:
            _add_new(terms[0].match_fields, match_fields)
            _add_new(terms[0].match_expressions, match_expressions)
    if match_fields or match_expressions:
        return NodeSelector(
            node_selector_terms=[
                NodeSelectorTerm(match_expressions=match_expressions, match_fields=match_fields)
            ]
        )
    return None


def _add_new(
    requirements: Sequence[NodeSelectorRequirement], into: list[NodeSelectorRequirement]
) -> None:
    for requirement in requirements:
        if not any(
            have.key == requirement.key
            and have.operator == requirement.operator
            and set(have.values) == set(requirement.values)
            for have in into
        ):
            into.append(requirement)
