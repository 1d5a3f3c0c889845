"""upstream's allocator test table (structured/internal/allocatortesting/
allocator_testing.go, TestAllocator) for the features v1.34's stable allocator has:
each case's claims, classes, slices and node, and the results or the error expected."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from allocator_builders import (
    ALL_NODES,
    CLAIM0,
    CLAIM1,
    CLASS_A,
    CLASS_B,
    DEVICE0,
    DEVICE1,
    DEVICE2,
    DEVICE3,
    DRIVER_A,
    DRIVER_B,
    NODE1,
    NODE2,
    POOL1,
    POOL2,
    POOL3,
    POOL4,
    REGION1,
    REGION2,
    REQ0,
    REQ1,
    REQ2,
    SLICE1,
    SLICE2,
    SUB_REQ0,
    SUB_REQ1,
    all_request,
    assert_allocation,
    claim,
    claim_with_request,
    device,
    device_class,
    device_configuration,
    local_node_selector,
    node,
    node_label_selector,
    prioritized,
    request,
    resource_pool,
    result,
    selector,
    slice_with_devices,
    slice_with_multiple_devices,
    slice_with_one_device,
    sub_request,
)

from kubesched.api import Node
from kubesched_dra.api import DeviceClass, ResourceClaim, ResourceSlice
from kubesched_dra.cel import CELCache
from kubesched_dra.structured import (
    AllocationError,
    Allocator,
    AllocatorFeatures,
    DeviceID,
    NodeAllocationError,
)

INT_ATTRIBUTE = f"{DRIVER_A}/numa"
VERSION_ATTRIBUTE = f"{DRIVER_A}/driverVersion"
STRING_ATTRIBUTE = f"{DRIVER_A}/stringAttribute"
BOOL_ATTRIBUTE = f"{DRIVER_A}/boolAttribute"
REQ0_SUB0, REQ0_SUB1 = f"{REQ0}/{SUB_REQ0}", f"{REQ0}/{SUB_REQ1}"
REQ1_SUB1 = f"{REQ1}/{SUB_REQ1}"

Expected = tuple[dict[str, Any] | None, list[tuple[str, str, str, str, bool]], list[dict[str, Any]]]


def memory_at_least(quantity: str) -> dict[str, Any]:
    return selector(f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("{quantity}")) >= 0')


def alloc(
    node_selector: dict[str, Any] | None,
    *results: tuple[str, str, str, str, bool],
    config: list[dict[str, Any]] | None = None,
) -> Expected:
    return (node_selector, list(results), config or [])


@dataclass
class Case:
    claims: list[ResourceClaim] = field(default_factory=list)
    classes: list[DeviceClass] = field(default_factory=list)
    slices: list[ResourceSlice] = field(default_factory=list)
    node: Node | None = None
    allocated: list[DeviceID] = field(default_factory=list)
    features: AllocatorFeatures = field(default_factory=AllocatorFeatures)
    expect: list[Expected] | None = None
    error: str = ""
    node_error: bool = False


N1 = node(NODE1, REGION1)
LOCAL1 = local_node_selector(NODE1)
CLASSES_AB = [device_class(CLASS_A, DRIVER_A), device_class(CLASS_B, DRIVER_B)]
NO_PRIORITIZED = AllocatorFeatures(admin_access=True, prioritized_list=False)


def _attrs(**values: Any) -> dict[str, dict[str, Any]]:
    kinds = {int: "int", str: "string", bool: "bool"}
    out: dict[str, dict[str, Any]] = {}
    for name, value in values.items():
        if name == "driverVersion":
            out[name] = {"version": value}
        else:
            out[name] = {kinds[type(value)]: value}
    return out


CASES: dict[str, Case] = {
    "simple": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        expect=[alloc(LOCAL1, result(REQ0, DRIVER_A, POOL1, DEVICE1))],
    ),
    "other-node": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
            slice_with_one_device(SLICE2, NODE2, POOL2, DRIVER_A),
        ],
        node(NODE2, REGION2),
        expect=[alloc(local_node_selector(NODE2), result(REQ0, DRIVER_A, POOL2, DEVICE1))],
    ),
    "small-and-large": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1, memory_at_least("1Gi")),
                request(REQ1, CLASS_A, 1, memory_at_least("2Gi")),
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {"memory": "1Gi"}),
                device(DEVICE2, {"memory": "2Gi"}),
            )
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "small-and-large-backtrack-requests": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1, memory_at_least("1Gi")),
                request(REQ1, CLASS_A, 1, memory_at_least("2Gi")),
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE2, {"memory": "2Gi"}),
                device(DEVICE1, {"memory": "1Gi"}),
            )
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "small-and-large-backtrack-claims": Case(
        [
            claim(CLAIM0, request(REQ0, CLASS_A, 1, memory_at_least("1Gi"))),
            claim(CLAIM1, request(REQ1, CLASS_A, 1, memory_at_least("2Gi"))),
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE2, {"memory": "2Gi"}),
                device(DEVICE1, {"memory": "1Gi"}),
            )
        ],
        N1,
        expect=[
            alloc(LOCAL1, result(REQ0, DRIVER_A, POOL1, DEVICE1)),
            alloc(LOCAL1, result(REQ1, DRIVER_A, POOL1, DEVICE2)),
        ],
    ),
    "devices-split-across-different-slices": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A),
            slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_A),
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ0, DRIVER_A, POOL2, DEVICE1),
            )
        ],
    ),
    "obsolete-slice": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(
                "slice-1-obsolete", NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
            ),
            slice_with_devices(
                "slice-1-obsolete", NODE1, resource_pool(POOL1, 2, 2), DRIVER_A, device(DEVICE2)
            ),
        ],
        N1,
    ),
    "duplicate-slice": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)),
            slice_with_devices(
                SLICE1 + "-2", NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1)
            ),
        ],
        N1,
        error="invalid resource pools were encountered",
        node_error=True,
    ),
    "no-slices": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)], [device_class(CLASS_A, DRIVER_A)], [], N1
    ),
    "not-enough-suitable-devices": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A), claim_with_request(CLAIM0, REQ1, CLASS_A)],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
    ),
    "no-classes": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)],
        [],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        error=(
            "claim claim-0, request req-0: could not retrieve device class class-a: "
            'deviceclass.resource.k8s.io "class-a" not found'
        ),
    ),
    "unknown-class": Case(
        [claim_with_request(CLAIM0, REQ0, "unknown-class")],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        error="could not retrieve device class unknown-class",
    ),
    "empty-class": Case(
        [claim_with_request(CLAIM0, REQ0, "")],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        error="claim claim-0, request req-0: missing device class name (unsupported request type?)",
    ),
    "no-claims-to-allocate": Case(
        [],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        expect=[],
    ),
    "all-devices-single": Case(
        [claim(CLAIM0, all_request(REQ0, CLASS_A))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        expect=[alloc(LOCAL1, result(REQ0, DRIVER_A, POOL1, DEVICE1))],
    ),
    "all-devices-many": Case(
        [claim(CLAIM0, all_request(REQ0, CLASS_A))],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A),
            slice_with_one_device(SLICE1, NODE1, POOL2, DRIVER_A),
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ0, DRIVER_A, POOL2, DEVICE1),
            )
        ],
    ),
    "all-devices-of-the-incomplete-pool": Case(
        [claim(CLAIM0, all_request(REQ0, CLASS_A, count=1))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_devices(SLICE1, NODE1, resource_pool(POOL1, 2), DRIVER_A, device(DEVICE1))],
        N1,
        error=(
            "claim claim-0, request req-0: asks for all devices, but resource pool "
            "driver-a/pool-1 is currently being updated"
        ),
    ),
    "all-devices-plus-another": Case(
        [
            claim(CLAIM0, all_request(REQ0, CLASS_A)),
            claim(CLAIM1, request(REQ0, CLASS_B, 1)),
        ],
        CLASSES_AB,
        [
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A),
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
        ],
        N1,
        expect=[
            alloc(LOCAL1, result(REQ0, DRIVER_A, POOL1, DEVICE1)),
            alloc(LOCAL1, result(REQ0, DRIVER_B, POOL1, DEVICE1)),
        ],
    ),
    "all-devices-many-plus-another-reversed": Case(
        [
            claim(CLAIM1, request(REQ0, CLASS_B, 1)),
            claim(CLAIM0, all_request(REQ0, CLASS_A)),
        ],
        CLASSES_AB,
        [
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2)),
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
        ],
        N1,
        expect=[
            alloc(LOCAL1, result(REQ0, DRIVER_B, POOL1, DEVICE1)),
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ0, DRIVER_A, POOL1, DEVICE2),
            ),
        ],
    ),
    "all-devices-no-solution": Case(
        [claim(CLAIM1, request(REQ0, CLASS_A, 1)), claim(CLAIM0, all_request(REQ0, CLASS_A))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
    ),
    "all-devices-no-solution-reversed": Case(
        [claim(CLAIM0, all_request(REQ0, CLASS_A)), claim(CLAIM1, request(REQ0, CLASS_A, 1))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
    ),
    "all-devices-slice-without-devices": Case(
        [claim(CLAIM0, all_request(REQ0, CLASS_A))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
    ),
    "all-devices-some-allocated": Case(
        [claim(CLAIM0, all_request(REQ0, CLASS_A))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))],
        N1,
        allocated=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
    ),
    "all-devices-some-allocated-admin-access": Case(
        [claim(CLAIM0, all_request(REQ0, CLASS_A, adminAccess=True))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))],
        N1,
        allocated=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
                result(REQ0, DRIVER_A, POOL1, DEVICE2, True),
            )
        ],
    ),
    "all-devices-some-allocating-admin-access": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1, adminAccess=True),
                all_request(REQ1, CLASS_A, adminAccess=True),
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))],
        N1,
    ),
    "count-devices-some-allocated-admin-access": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2, adminAccess=True))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))],
        N1,
        allocated=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1, True),
                result(REQ0, DRIVER_A, POOL1, DEVICE2, True),
            )
        ],
    ),
    "separate-claims-share-device-admin-access": Case(
        [
            claim(CLAIM0, request(REQ0, CLASS_A, 1, adminAccess=True)),
            claim(CLAIM1, request(REQ0, CLASS_A, 1, adminAccess=True)),
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))],
        N1,
        expect=[
            alloc(LOCAL1, result(REQ0, DRIVER_A, POOL1, DEVICE1, True)),
            alloc(LOCAL1, result(REQ0, DRIVER_A, POOL1, DEVICE1, True)),
        ],
    ),
    "admin-access-claims-device-allocating-for-non-admin-access": Case(
        [
            claim_with_request(CLAIM0, REQ0, CLASS_A),
            claim(CLAIM1, request(REQ0, CLASS_A, 1, adminAccess=True)),
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))],
        N1,
        expect=[
            alloc(LOCAL1, result(REQ0, DRIVER_A, POOL1, DEVICE1)),
            alloc(LOCAL1, result(REQ0, DRIVER_A, POOL1, DEVICE1, True)),
        ],
    ),
    "all-devices-slice-without-devices-prioritized-list": Case(
        [
            claim(
                CLAIM0,
                prioritized(
                    REQ0,
                    sub_request(SUB_REQ0, CLASS_A, 0, mode="All"),
                    sub_request(SUB_REQ1, CLASS_B, 1),
                ),
            )
        ],
        CLASSES_AB,
        [
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A),
            slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B),
        ],
        N1,
        expect=[alloc(LOCAL1, result(REQ0_SUB1, DRIVER_B, POOL2, DEVICE1))],
    ),
    "all-devices-some-allocated-prioritized-list": Case(
        [
            claim(
                CLAIM0,
                prioritized(
                    REQ0,
                    sub_request(SUB_REQ0, CLASS_A, 0, mode="All"),
                    sub_request(SUB_REQ1, CLASS_B, 1),
                ),
            )
        ],
        CLASSES_AB,
        [
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2)),
            slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B),
        ],
        N1,
        allocated=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
        expect=[alloc(LOCAL1, result(REQ0_SUB1, DRIVER_B, POOL2, DEVICE1))],
    ),
    "network-attached-device": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A)],
        N1,
        expect=[
            alloc(node_label_selector("region", REGION1), result(REQ0, DRIVER_A, POOL1, DEVICE1))
        ],
    ),
    "unsuccessful-allocation-network-attached-device": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A)],
        node(NODE2, REGION2),
    ),
    "many-network-attached-devices": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 4))],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A),
            slice_with_one_device(SLICE1, ALL_NODES, POOL2, DRIVER_A),
            slice_with_one_device(SLICE1, node_label_selector("planet", "earth"), POOL3, DRIVER_A),
            slice_with_one_device(SLICE1, local_node_selector(NODE1), POOL4, DRIVER_A),
        ],
        N1,
        expect=[
            alloc(
                {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "region", "operator": "In", "values": [REGION1]},
                                {"key": "planet", "operator": "In", "values": ["earth"]},
                            ],
                            "matchFields": [
                                {"key": "metadata.name", "operator": "In", "values": [NODE1]}
                            ],
                        }
                    ]
                },
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ0, DRIVER_A, POOL2, DEVICE1),
                result(REQ0, DRIVER_A, POOL3, DEVICE1),
                result(REQ0, DRIVER_A, POOL4, DEVICE1),
            )
        ],
    ),
    "local-and-network-attached-devices": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2))],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_one_device(SLICE1, node_label_selector("region", REGION1), POOL1, DRIVER_A),
            slice_with_one_device(SLICE1, NODE1, POOL2, DRIVER_A),
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ0, DRIVER_A, POOL2, DEVICE1),
            )
        ],
    ),
    "several-different-drivers": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A), claim_with_request(CLAIM0, REQ0, CLASS_B)],
        CLASSES_AB,
        [
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2)),
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_B),
        ],
        N1,
        expect=[
            alloc(LOCAL1, result(REQ0, DRIVER_A, POOL1, DEVICE1)),
            alloc(LOCAL1, result(REQ0, DRIVER_B, POOL1, DEVICE1)),
        ],
    ),
    "already-allocated-devices": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        allocated=[DeviceID(DRIVER_A, POOL1, DEVICE1), DeviceID(DRIVER_A, POOL1, DEVICE2)],
    ),
    "admin-access-disabled": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, adminAccess=True))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        features=AllocatorFeatures(admin_access=False),
        error=(
            "claim claim-0, request req-0: admin access is requested, but the feature is disabled"
        ),
    ),
    "admin-access-enabled": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, adminAccess=True))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        allocated=[DeviceID(DRIVER_A, POOL1, DEVICE1), DeviceID(DRIVER_A, POOL1, DEVICE2)],
        expect=[alloc(LOCAL1, result(REQ0, DRIVER_A, POOL1, DEVICE1, True))],
    ),
    "with-constraint": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1),
                request(REQ1, CLASS_A, 1),
                constraints=[
                    {"matchAttribute": INT_ATTRIBUTE},
                    {"matchAttribute": VERSION_ATTRIBUTE},
                    {"matchAttribute": STRING_ATTRIBUTE},
                    {"matchAttribute": BOOL_ATTRIBUTE},
                ],
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(
                    DEVICE1,
                    None,
                    _attrs(
                        driverVersion="1.0.0",
                        numa=1,
                        stringAttribute="stringAttributeValue",
                        boolAttribute=True,
                    ),
                ),
                device(
                    DEVICE2,
                    None,
                    _attrs(
                        driverVersion="1.0.0",
                        numa=1,
                        stringAttribute="stringAttributeValue",
                        boolAttribute=True,
                    ),
                ),
            )
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "with-constraint-non-existent-attribute": Case(
        [
            claim_with_request(
                CLAIM0,
                REQ0,
                CLASS_A,
                constraints=[{"matchAttribute": f"{DRIVER_A}/NonExistentAttribute"}],
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
    ),
    "with-constraint-not-matching-int-attribute": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": INT_ATTRIBUTE}])],
        CLASSES_AB,
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, None, _attrs(numa=1)),
                device(DEVICE2, None, _attrs(numa=2)),
            )
        ],
        N1,
    ),
    "with-constraint-not-matching-int-attribute-all-devices": Case(
        [
            claim(
                CLAIM0, all_request(REQ0, CLASS_A), constraints=[{"matchAttribute": INT_ATTRIBUTE}]
            )
        ],
        CLASSES_AB,
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, None, _attrs(numa=1)),
                device(DEVICE2, None, _attrs(numa=2)),
            )
        ],
        N1,
        error=(
            "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a "
            "claim constraint would not be satisfied"
        ),
    ),
    "with-constraint-not-matching-string-attribute": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 2),
                constraints=[{"matchAttribute": STRING_ATTRIBUTE}],
            )
        ],
        CLASSES_AB,
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, None, _attrs(stringAttribute="stringAttributeValue")),
                device(DEVICE2, None, _attrs(stringAttribute="stringAttributeValue2")),
            )
        ],
        N1,
    ),
    "with-constraint-not-matching-bool-attribute": Case(
        [
            claim(
                CLAIM0, request(REQ0, CLASS_A, 2), constraints=[{"matchAttribute": BOOL_ATTRIBUTE}]
            )
        ],
        CLASSES_AB,
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, None, _attrs(boolAttribute=True)),
                device(DEVICE2, None, _attrs(boolAttribute=False)),
            )
        ],
        N1,
    ),
    "with-constraint-not-matching-version-attribute": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 2),
                constraints=[{"matchAttribute": VERSION_ATTRIBUTE}],
            )
        ],
        CLASSES_AB,
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, None, _attrs(driverVersion="1.0.0")),
                device(DEVICE2, None, _attrs(driverVersion="2.0.0")),
            )
        ],
        N1,
    ),
    "with-constraint-for-request": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1),
                request(REQ1, CLASS_A, 1),
                constraints=[{"requests": [REQ0], "matchAttribute": VERSION_ATTRIBUTE}],
            )
        ],
        CLASSES_AB,
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, None, _attrs(driverVersion="1.0.0")),
                device(DEVICE2, None, _attrs(driverVersion="2.0.0")),
            )
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "with-constraint-for-request-retry": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1),
                request(REQ1, CLASS_A, 1),
                constraints=[
                    {"requests": [REQ0], "matchAttribute": VERSION_ATTRIBUTE},
                    {"matchAttribute": STRING_ATTRIBUTE},
                ],
            )
        ],
        CLASSES_AB,
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, None, _attrs(driverVersion="1.0.0", stringAttribute="a")),
                device(DEVICE2, None, _attrs(driverVersion="2.0.0", stringAttribute="b")),
                device(DEVICE3, None, _attrs(driverVersion="3.0.0", stringAttribute="b")),
            )
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE2),
                result(REQ1, DRIVER_A, POOL1, DEVICE3),
            )
        ],
    ),
    "with-class-device-config": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)],
        [device_class(CLASS_A, DRIVER_A, "classAttribute")],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                config=[
                    {
                        "source": "FromClass",
                        "requests": [REQ0],
                        **device_configuration(DRIVER_A, "classAttribute"),
                    }
                ],
            )
        ],
    ),
    "with-class-device-config-with-multiple-request-and-configs": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1),
                request(REQ1, CLASS_A, 1),
                request(REQ2, CLASS_B, 1),
            )
        ],
        [
            device_class(CLASS_A, DRIVER_A, "classAttribute-A"),
            device_class(CLASS_B, DRIVER_B, "classAttribute-B"),
        ],
        [
            slice_with_multiple_devices(SLICE1, NODE1, POOL1, DRIVER_A, 2),
            slice_with_one_device(SLICE2, NODE1, POOL1, DRIVER_B),
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE0),
                result(REQ1, DRIVER_A, POOL1, DEVICE1),
                result(REQ2, DRIVER_B, POOL1, DEVICE1),
                config=[
                    {
                        "source": "FromClass",
                        "requests": [REQ0, REQ1],
                        **device_configuration(DRIVER_A, "classAttribute-A"),
                    },
                    {
                        "source": "FromClass",
                        "requests": [REQ2],
                        **device_configuration(DRIVER_B, "classAttribute-B"),
                    },
                ],
            )
        ],
    ),
    "claim-with-device-config": Case(
        [
            claim_with_request(
                CLAIM0, REQ0, CLASS_A, config=[device_configuration(DRIVER_A, "deviceAttribute")]
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                config=[
                    {
                        "source": "FromClaim",
                        "requests": [],
                        **device_configuration(DRIVER_A, "deviceAttribute"),
                    }
                ],
            )
        ],
    ),
    "unknown-selector": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, {}))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        error=(
            "claim claim-0, request req-0, selector #0: "
            "CEL expression empty (unsupported selector type?)"
        ),
    ),
    "unknown-constraint": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A, constraints=[{}])],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        error="claim claim-0, constraint #0: empty constraint (unsupported constraint type?)",
    ),
    "invalid-CEL-one-device": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 1, selector("noSuchVar")))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        error=(
            "claim claim-0: selector #0: CEL compile error: compilation failed: "
            "ERROR: <input>:1:1: undeclared reference"
        ),
    ),
    "invalid-CEL-one-device-class": Case(
        [claim_with_request(CLAIM0, REQ0, CLASS_A)],
        [
            DeviceClass.model_validate(
                {"metadata": {"name": CLASS_A}, "spec": {"selectors": [selector("noSuchVar")]}}
            )
        ],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        error=(
            "class class-a: selector #0: CEL compile error: compilation failed: "
            "ERROR: <input>:1:1: undeclared reference"
        ),
    ),
    "invalid-CEL-all-devices": Case(
        [claim(CLAIM0, all_request(REQ0, CLASS_A, selectors=[selector("noSuchVar")]))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        error="undeclared reference",
    ),
    "too-many-devices-single-request": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 500))],
        [device_class(CLASS_A, DRIVER_A)],
        node=N1,
        error="claim claim-0: number of requested devices 500 exceeds the claim limit of 32",
    ),
    "many-devices-okay": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 32))],
        [device_class(CLASS_A, DRIVER_A)],
        node=N1,
    ),
    "too-many-devices-total": Case(
        [claim(CLAIM0, request(REQ0, CLASS_A, 32), request(REQ1, CLASS_A, 1))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_multiple_devices(SLICE1, NODE1, POOL1, DRIVER_A, 33)],
        N1,
        error="exceeds the claim limit",
    ),
    "prioritized-list-first-unavailable": Case(
        [
            claim(
                CLAIM0,
                prioritized(
                    REQ0, sub_request(SUB_REQ0, CLASS_B, 1), sub_request(SUB_REQ1, CLASS_A, 1)
                ),
            )
        ],
        CLASSES_AB,
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        expect=[alloc(LOCAL1, result(REQ0_SUB1, DRIVER_A, POOL1, DEVICE1))],
    ),
    "prioritized-list-non-available": Case(
        [
            claim(
                CLAIM0,
                prioritized(
                    REQ0, sub_request(SUB_REQ0, CLASS_B, 2), sub_request(SUB_REQ1, CLASS_A, 2)
                ),
            )
        ],
        CLASSES_AB,
        [
            slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A),
            slice_with_one_device(SLICE2, NODE1, POOL2, DRIVER_B),
        ],
        N1,
    ),
    "prioritized-list-device-config": Case(
        [
            claim(
                CLAIM0,
                prioritized(
                    REQ0, sub_request(SUB_REQ0, CLASS_A, 1), sub_request(SUB_REQ1, CLASS_B, 2)
                ),
                config=[
                    {"requests": [REQ0_SUB0], **device_configuration(DRIVER_A, "foo")},
                    {"requests": [f"{REQ0}/{SUB_REQ1}"], **device_configuration(DRIVER_B, "bar")},
                ],
            )
        ],
        CLASSES_AB,
        [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_B, device(DEVICE1), device(DEVICE2))],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0_SUB1, DRIVER_B, POOL1, DEVICE1),
                result(REQ0_SUB1, DRIVER_B, POOL1, DEVICE2),
                config=[
                    {
                        "source": "FromClaim",
                        "requests": [REQ0_SUB1],
                        **device_configuration(DRIVER_B, "bar"),
                    }
                ],
            )
        ],
    ),
    "prioritized-list-class-config": Case(
        [
            claim(
                CLAIM0,
                prioritized(
                    REQ0, sub_request(SUB_REQ0, CLASS_A, 2), sub_request(SUB_REQ1, CLASS_B, 2)
                ),
            )
        ],
        [device_class(CLASS_A, DRIVER_A, "foo"), device_class(CLASS_B, DRIVER_B, "bar")],
        [
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_B, device(DEVICE1), device(DEVICE2)),
            slice_with_devices(SLICE2, NODE1, POOL2, DRIVER_A, device(DEVICE3)),
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0_SUB1, DRIVER_B, POOL1, DEVICE1),
                result(REQ0_SUB1, DRIVER_B, POOL1, DEVICE2),
                config=[
                    {
                        "source": "FromClass",
                        "requests": [REQ0_SUB1],
                        **device_configuration(DRIVER_B, "bar"),
                    }
                ],
            )
        ],
    ),
    "prioritized-list-subrequests-with-expressions": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1, memory_at_least("1Gi")),
                prioritized(
                    REQ1,
                    sub_request(SUB_REQ0, CLASS_A, 1, memory_at_least("4Gi")),
                    sub_request(SUB_REQ1, CLASS_A, 2, memory_at_least("2Gi")),
                ),
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {"memory": "2Gi"}),
                device(DEVICE2, {"memory": "2Gi"}),
                device(DEVICE3, {"memory": "1Gi"}),
            )
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE3),
                result(REQ1_SUB1, DRIVER_A, POOL1, DEVICE1),
                result(REQ1_SUB1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "prioritized-list-subrequests-with-constraints-ref-parent-request": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1, memory_at_least("8Gi")),
                prioritized(
                    REQ1,
                    sub_request(SUB_REQ0, CLASS_A, 1, memory_at_least("2Gi")),
                    sub_request(SUB_REQ1, CLASS_A, 1, memory_at_least("1Gi")),
                ),
                constraints=[{"requests": [REQ0, REQ1], "matchAttribute": VERSION_ATTRIBUTE}],
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {"memory": "8Gi"}, _attrs(driverVersion="1.0.0")),
            ),
            slice_with_devices(
                SLICE2,
                NODE1,
                POOL2,
                DRIVER_A,
                device(DEVICE2, {"memory": "2Gi"}, _attrs(driverVersion="2.0.0")),
                device(DEVICE3, {"memory": "1Gi"}, _attrs(driverVersion="1.0.0")),
            ),
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ1_SUB1, DRIVER_A, POOL2, DEVICE3),
            )
        ],
    ),
    "prioritized-list-subrequests-with-constraints-ref-sub-request": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1, memory_at_least("8Gi")),
                prioritized(
                    REQ1,
                    sub_request(SUB_REQ0, CLASS_A, 1, memory_at_least("2Gi")),
                    sub_request(SUB_REQ1, CLASS_A, 1, memory_at_least("1Gi")),
                ),
                constraints=[
                    {"requests": [REQ0, f"{REQ1}/{SUB_REQ0}"], "matchAttribute": VERSION_ATTRIBUTE}
                ],
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(
                SLICE1,
                NODE1,
                POOL1,
                DRIVER_A,
                device(DEVICE1, {"memory": "8Gi"}, _attrs(driverVersion="1.0.0")),
            ),
            slice_with_devices(
                SLICE2,
                NODE1,
                POOL2,
                DRIVER_A,
                device(DEVICE2, {"memory": "2Gi"}, _attrs(driverVersion="2.0.0")),
            ),
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ1_SUB1, DRIVER_A, POOL2, DEVICE2),
            )
        ],
    ),
    "prioritized-list-subrequests-with-allocation-mode-all": Case(
        [
            claim(
                CLAIM0,
                prioritized(
                    REQ0,
                    sub_request(SUB_REQ0, CLASS_A, 0, mode="All"),
                    sub_request(SUB_REQ1, CLASS_A, 1),
                ),
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))],
        N1,
        allocated=[DeviceID(DRIVER_A, POOL1, DEVICE1)],
        expect=[alloc(LOCAL1, result(REQ0_SUB1, DRIVER_A, POOL1, DEVICE2))],
    ),
    "prioritized-list-allocation-mode-all-multiple-requests": Case(
        [
            claim(
                CLAIM0,
                request(REQ0, CLASS_A, 1),
                prioritized(
                    REQ1,
                    sub_request(SUB_REQ0, CLASS_A, 0, mode="All"),
                    sub_request(SUB_REQ1, CLASS_A, 1),
                ),
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0, DRIVER_A, POOL1, DEVICE1),
                result(REQ1_SUB1, DRIVER_A, POOL1, DEVICE2),
            )
        ],
    ),
    "prioritized-list-disabled": Case(
        [claim(CLAIM0, prioritized(REQ0, sub_request(SUB_REQ0, CLASS_A, 1)))],
        [device_class(CLASS_A, DRIVER_A)],
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        features=NO_PRIORITIZED,
        error=(
            "claim claim-0, request req-0: has subrequests, "
            "but the DRAPrioritizedList feature is disabled"
        ),
    ),
    "prioritized-list-multi-request": Case(
        [
            claim(
                CLAIM0,
                request(REQ1, CLASS_A, 1, memory_at_least("8Gi")),
                prioritized(
                    REQ0,
                    sub_request(SUB_REQ0, CLASS_A, 1, memory_at_least("8Gi")),
                    sub_request(SUB_REQ1, CLASS_A, 1, memory_at_least("4Gi")),
                ),
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, {"memory": "8Gi"})),
            slice_with_devices(SLICE2, NODE1, POOL2, DRIVER_A, device(DEVICE2, {"memory": "4Gi"})),
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ1, DRIVER_A, POOL1, DEVICE1),
                result(REQ0_SUB1, DRIVER_A, POOL2, DEVICE2),
            )
        ],
    ),
    "prioritized-list-with-backtracking": Case(
        [
            claim(
                CLAIM0,
                prioritized(
                    REQ0,
                    sub_request(SUB_REQ0, CLASS_A, 1, memory_at_least("8Gi")),
                    sub_request(SUB_REQ1, CLASS_A, 1, memory_at_least("4Gi")),
                ),
                request(REQ1, CLASS_A, 1, memory_at_least("8Gi")),
            )
        ],
        [device_class(CLASS_A, DRIVER_A)],
        [
            slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, {"memory": "8Gi"})),
            slice_with_devices(SLICE2, NODE1, POOL2, DRIVER_A, device(DEVICE2, {"memory": "4Gi"})),
        ],
        N1,
        expect=[
            alloc(
                LOCAL1,
                result(REQ0_SUB1, DRIVER_A, POOL2, DEVICE2),
                result(REQ1, DRIVER_A, POOL1, DEVICE1),
            )
        ],
    ),
    "prioritized-list-too-many-in-first-subrequest": Case(
        [
            claim(
                CLAIM0,
                prioritized(
                    REQ0, sub_request(SUB_REQ0, CLASS_B, 500), sub_request(SUB_REQ1, CLASS_A, 1)
                ),
            )
        ],
        CLASSES_AB,
        [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)],
        N1,
        expect=[alloc(LOCAL1, result(REQ0_SUB1, DRIVER_A, POOL1, DEVICE1))],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_allocator(name: str) -> None:
    case = CASES[name]
    assert case.node is not None
    allocator = Allocator(
        case.features,
        set(case.allocated),
        {c.name: c for c in case.classes},
        case.slices,
        CELCache(),
    )
    if case.error:
        expected_type = NodeAllocationError if case.node_error else AllocationError
        with pytest.raises(expected_type) as info:
            allocator.allocate(case.node, case.claims)
        assert case.error in str(info.value)
        assert isinstance(info.value, NodeAllocationError) == case.node_error
        return
    results = allocator.allocate(case.node, case.claims)
    if case.expect is None:
        assert results is None
        return
    assert results is not None
    assert len(results) == len(case.expect)
    for actual, (node_selector, devices, config) in zip(results, case.expect, strict=True):
        assert_allocation(actual, node_selector, *devices, config=config)
