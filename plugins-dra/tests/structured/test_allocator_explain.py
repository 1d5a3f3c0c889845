"""Allocator.explain: per request, the node's devices that match and are free."""

from __future__ import annotations

from allocator_builders import (
    CLAIM0,
    CLASS_A,
    DEVICE1,
    DEVICE2,
    DRIVER_A,
    DRIVER_B,
    NODE1,
    POOL1,
    POOL2,
    REGION1,
    REQ0,
    REQ1,
    SLICE1,
    SLICE2,
    SUB_REQ0,
    all_request,
    claim,
    device,
    device_class,
    node,
    prioritized,
    request,
    resource_pool,
    selector,
    slice_with_devices,
    sub_request,
)

from kubesched_dra.cel import CELCache
from kubesched_dra.structured import Allocator, AllocatorFeatures, DeviceID, RequestReport


def test_reports_matching_and_free_devices_per_request() -> None:
    slices = [
        slice_with_devices(
            SLICE1,
            NODE1,
            POOL1,
            DRIVER_A,
            device(DEVICE1, {"memory": "80Gi"}),
            device(DEVICE2, {"memory": "40Gi"}),
        ),
        slice_with_devices(SLICE2, NODE1, resource_pool(POOL2, 2), DRIVER_A, device(DEVICE1)),
        slice_with_devices("other-driver", NODE1, "pool-3", DRIVER_B, device(DEVICE1)),
    ]
    big = selector(f'device.capacity["{DRIVER_A}"].memory.compareTo(quantity("60Gi")) >= 0')
    claims = [
        claim(
            CLAIM0,
            request(REQ0, CLASS_A, 2, big),
            prioritized(REQ1, sub_request(SUB_REQ0, CLASS_A, 1)),
            namespace="ns",
        )
    ]
    allocator = Allocator(
        AllocatorFeatures(),
        {DeviceID(DRIVER_A, POOL1, DEVICE1)},
        {CLASS_A: device_class(CLASS_A, DRIVER_A)},
        slices,
        CELCache(),
    )
    node1 = node(NODE1, REGION1)
    assert allocator.allocate(node1, claims) is None
    reports = allocator.explain(node1, claims)
    unusable = (f"{DRIVER_A}/{POOL2}",)
    assert reports == [
        RequestReport("ns/claim-0", REQ0, 2, 3, 1, 0, unusable),
        RequestReport("ns/claim-0", f"{REQ1}/{SUB_REQ0}", 1, 3, 2, 1, unusable),
    ]
    assert [r.short for r in reports] == [True, False]
    assert reports[0].describe() == (
        "claim ns/claim-0, request req-0: wants 2, 1 of 3 devices match, 0 free "
        "(pools being updated or invalid: driver-a/pool-2)"
    )


def test_all_mode_is_short_when_a_matching_device_is_in_use() -> None:
    slices = [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))]
    claims = [claim(CLAIM0, all_request(REQ0, CLASS_A))]
    allocator = Allocator(
        AllocatorFeatures(),
        {DeviceID(DRIVER_A, POOL1, DEVICE2)},
        {CLASS_A: device_class(CLASS_A, DRIVER_A)},
        slices,
        CELCache(),
    )
    (report,) = allocator.explain(node(NODE1, REGION1), claims)
    assert (report.wanted, report.matching, report.free, report.short) == (None, 2, 1, True)
    assert (
        report.describe() == "claim claim-0, request req-0: wants all, 2 of 2 devices match, 1 free"
    )
