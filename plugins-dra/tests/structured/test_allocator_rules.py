"""The allocator's rules beyond upstream's shared table: device taints, CEL runtime
errors in upstream's words, features it does not implement, the pools a node sees, the
devices other claims hold, and CEL evaluated once per (expression, device)."""

from __future__ import annotations

import sys
import time
from typing import Any

import pytest
from allocator_builders import (
    ALL_NODES,
    CLAIM0,
    CLASS_A,
    DEVICE1,
    DEVICE2,
    DRIVER_A,
    NODE1,
    NODE2,
    POOL1,
    POOL2,
    REGION1,
    REGION2,
    REQ0,
    SLICE1,
    SLICE2,
    claim,
    claim_with_request,
    device,
    device_class,
    node,
    node_label_selector,
    request,
    resource_pool,
    selector,
    slice_with_devices,
    slice_with_multiple_devices,
    slice_with_one_device,
)

from kubesched_dra.api import DeviceClass, ResourceClaim, ResourceSlice
from kubesched_dra.cel import CELCache, CompilationResult
from kubesched_dra.structured import (
    AllocationError,
    AllocationTimeoutError,
    Allocator,
    AllocatorFeatures,
    DeviceID,
    SliceIndex,
    allocated_devices,
)

TAINTS = AllocatorFeatures(device_taints=True)
N1 = node(NODE1, REGION1)


def _allocator(
    slices: list[ResourceSlice],
    features: AllocatorFeatures | None = None,
    allocated: set[DeviceID] | None = None,
    cel: CELCache | None = None,
) -> Allocator:
    classes = {CLASS_A: device_class(CLASS_A, DRIVER_A)}
    return Allocator(
        features or AllocatorFeatures(), allocated or set(), classes, slices, cel or CELCache()
    )


def _tainted(effect: str) -> ResourceSlice:
    taint = {"key": "taint-key", "value": "taint-value", "effect": effect}
    return slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, taints=[taint]))


def _devices(results: Any) -> list[str]:
    return [r.device for result in results for r in result.devices.results]


@pytest.mark.parametrize("effect", ["NoSchedule", "NoExecute"])
def test_untolerated_taint_prevents_allocation(effect: str) -> None:
    result = _allocator([_tainted(effect)], TAINTS).allocate(
        N1, [claim_with_request(CLAIM0, REQ0, CLASS_A)]
    )
    assert result is None


def test_taint_with_effect_none_is_ignored() -> None:
    result = _allocator([_tainted("None")], TAINTS).allocate(
        N1, [claim_with_request(CLAIM0, REQ0, CLASS_A)]
    )
    assert result is not None and _devices(result) == [DEVICE1]


def test_tolerated_taint_allows_allocation_and_the_result_carries_the_tolerations() -> None:
    toleration = {"key": "taint-key", "operator": "Exists", "effect": "NoSchedule"}
    claims = [claim(CLAIM0, request(REQ0, CLASS_A, 1, tolerations=[toleration]))]
    result = _allocator([_tainted("NoSchedule")], TAINTS).allocate(N1, claims)
    assert result is not None
    (allocated,) = result[0].devices.results
    assert [t.key for t in allocated.tolerations] == ["taint-key"]


def test_taints_are_ignored_while_the_feature_is_off() -> None:
    result = _allocator([_tainted("NoSchedule")]).allocate(
        N1, [claim_with_request(CLAIM0, REQ0, CLASS_A)]
    )
    assert result is not None and _devices(result) == [DEVICE1]


def test_cel_runtime_error_names_claim_selector_and_device() -> None:
    claims = [
        claim(
            CLAIM0,
            request(REQ0, CLASS_A, 1, selector(f'device.attributes["{DRIVER_A}"].model == "x"')),
            namespace="team",
        )
    ]
    with pytest.raises(AllocationError) as info:
        _allocator([slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)]).allocate(N1, claims)
    assert str(info.value) == (
        "claim team/claim-0: selector #0 on device driver-a/pool-1/device-1: CEL runtime error: "
        "no such key: model. Consider using CEL optional chaining (?), has() macro, or orValue() "
        "for optional fields"
    )


@pytest.mark.parametrize(
    "feature", ["partitionable_devices", "consumable_capacity", "device_binding_and_status"]
)
def test_features_it_does_not_implement_are_refused(feature: str) -> None:
    with pytest.raises(AllocationError, match=f"no allocator available .*{feature}"):
        _allocator([], AllocatorFeatures(**{feature: True}))


def test_devices_with_binding_conditions_are_not_selectable_while_the_feature_is_off() -> None:
    slice_ = slice_with_devices(
        SLICE1,
        NODE1,
        POOL1,
        DRIVER_A,
        device(DEVICE1, bindingConditions=["ready"]),
        device(DEVICE2),
    )
    result = _allocator([slice_]).allocate(N1, [claim_with_request(CLAIM0, REQ0, CLASS_A)])
    assert result is not None and _devices(result) == [DEVICE2]


def test_devices_consuming_counters_are_skipped_without_partitionable_devices() -> None:
    consumes = [{"counterSet": "set", "counters": {"memory": {"value": "1Gi"}}}]
    slice_ = slice_with_devices(
        SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1, consumesCounters=consumes), device(DEVICE2)
    )
    result = _allocator([slice_]).allocate(N1, [claim_with_request(CLAIM0, REQ0, CLASS_A)])
    assert result is not None and _devices(result) == [DEVICE2]


def test_search_order_is_pool_order_then_slice_then_device() -> None:
    slices = [
        slice_with_devices(SLICE2, NODE1, POOL2, DRIVER_A, device(DEVICE2), device(DEVICE1)),
        slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1)),
    ]
    result = _allocator(slices).allocate(N1, [claim(CLAIM0, request(REQ0, CLASS_A, 2))])
    assert result is not None
    assert [(r.pool, r.device) for r in result[0].devices.results] == [
        (POOL2, DEVICE2),
        (POOL2, DEVICE1),
    ]


def test_a_passed_deadline_stops_the_search() -> None:
    slices = [slice_with_devices(SLICE1, NODE1, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))]
    allocator = _allocator(slices)
    claims = [claim(CLAIM0, request(REQ0, CLASS_A, 2))]
    with pytest.raises(AllocationTimeoutError):
        allocator.allocate(N1, claims, deadline=time.monotonic() - 1)
    # nothing of the stopped search stays behind; a deadline not reached changes nothing
    result = allocator.allocate(N1, claims, deadline=time.monotonic() + 3600)
    assert result is not None and _devices(result) == [DEVICE1, DEVICE2]


def test_gather_pools_keeps_the_newest_generation_and_marks_incomplete_and_invalid() -> None:
    slices = [
        slice_with_devices("old", NODE1, resource_pool(POOL1, 1, 1), DRIVER_A, device(DEVICE1)),
        slice_with_devices("new", NODE1, resource_pool(POOL1, 2, 2), DRIVER_A, device(DEVICE2)),
        slice_with_devices("older", NODE1, resource_pool(POOL1, 1, 1), DRIVER_A, device(DEVICE1)),
        slice_with_devices("dup-a", NODE1, POOL2, DRIVER_A, device(DEVICE1)),
        slice_with_devices("dup-b", NODE1, resource_pool(POOL2, 1), DRIVER_A, device(DEVICE1)),
        slice_with_one_device("elsewhere", NODE2, "pool-3", DRIVER_A),
    ]
    pools = SliceIndex(slices).gather_pools(N1)
    assert [(p.pool_id, [s.name for s in p.slices]) for p in pools] == [
        (f"{DRIVER_A}/{POOL1}", ["new"]),
        (f"{DRIVER_A}/{POOL2}", ["dup-a", "dup-b"]),
    ]
    assert pools[0].incomplete and not pools[0].invalid
    assert pools[1].invalid and pools[1].invalid_reason == f"duplicate device name {DEVICE1}"


def test_slices_reach_nodes_by_name_selector_or_all() -> None:
    slices = [
        slice_with_one_device("by-name", NODE2, POOL1, DRIVER_A),
        slice_with_one_device("by-label", node_label_selector("region", REGION2), POOL2, DRIVER_A),
        slice_with_one_device("everywhere", ALL_NODES, "pool-3", DRIVER_A),
    ]
    index = SliceIndex(slices)
    assert [s.name for s in index.slices_for(N1)] == ["everywhere"]
    assert [s.name for s in index.slices_for(node(NODE2, REGION2))] == [
        "by-name",
        "by-label",
        "everywhere",
    ]


def test_a_nodes_pools_are_gathered_once_per_index_and_again_when_its_labels_change() -> None:
    by_name = [slice_with_one_device("by-name", NODE1, POOL1, DRIVER_A)]
    index = SliceIndex(by_name)
    assert index.gather_pools(N1) is index.gather_pools(node(NODE1, REGION2))
    by_label = slice_with_one_device(
        "by-label", node_label_selector("region", REGION2), POOL2, DRIVER_A
    )
    index = SliceIndex([*by_name, by_label])
    first = index.gather_pools(N1)
    assert index.gather_pools(N1) is first
    assert [p.name for p in first] == [POOL1]
    relabelled = index.gather_pools(node(NODE1, REGION2))
    assert [p.name for p in relabelled] == [POOL1, POOL2]


def test_allocated_devices_skips_admin_access_and_unallocated_claims() -> None:
    def allocated(name: str, *results: dict[str, Any]) -> ResourceClaim:
        return ResourceClaim.model_validate(
            {
                "metadata": {"name": name},
                "status": {"allocation": {"devices": {"results": list(results)}}},
            }
        )

    plain = {"request": REQ0, "driver": DRIVER_A, "pool": POOL1, "device": DEVICE1}
    admin = {**plain, "device": DEVICE2, "adminAccess": True}
    claims = [allocated("a", plain, admin), claim_with_request("b", REQ0, CLASS_A)]
    assert allocated_devices(claims) == {DeviceID(DRIVER_A, POOL1, DEVICE1)}


def test_selectors_are_evaluated_once_per_device_across_nodes_and_allocators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    original = CompilationResult.device_matches

    def counting(self: CompilationResult, device: Any) -> bool:
        calls.append(self.expression)
        return original(self, device)

    monkeypatch.setattr(CompilationResult, "device_matches", counting)
    slices = [
        slice_with_devices(SLICE1, ALL_NODES, POOL1, DRIVER_A, device(DEVICE1), device(DEVICE2))
    ]
    cel = CELCache()
    claims = [claim(CLAIM0, request(REQ0, CLASS_A, 1, selector("true")))]
    for _ in range(2):
        allocator = _allocator(slices, cel=cel)
        for n in (N1, node(NODE2, REGION2)):
            assert allocator.allocate(n, claims) is not None
    # One device was enough each time: the class's and the request's selector, once each.
    assert sorted(calls) == sorted([f'device.driver == "{DRIVER_A}"', "true"])


def test_a_changed_class_is_not_answered_from_the_previous_selectors() -> None:
    slices = [slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A)]
    cel = CELCache()
    claims = [claim_with_request(CLAIM0, REQ0, CLASS_A)]
    assert _allocator(slices, cel=cel).allocate(N1, claims) is not None
    narrowed = DeviceClass.model_validate(
        {
            "metadata": {"name": CLASS_A},
            "spec": {"selectors": [selector(f'device.driver == "{DRIVER_A}"'), selector("false")]},
        }
    )
    allocator = Allocator(AllocatorFeatures(), set(), {CLASS_A: narrowed}, slices, cel)
    assert allocator.allocate(N1, claims) is None


def test_an_index_of_the_slices_serves_like_the_slices() -> None:
    slices = [
        slice_with_one_device(SLICE1, NODE1, POOL1, DRIVER_A),
        slice_with_one_device(SLICE2, ALL_NODES, POOL2, DRIVER_A),
    ]
    classes = {CLASS_A: device_class(CLASS_A, DRIVER_A)}
    claims = [claim(CLAIM0, request(REQ0, CLASS_A, 2))]
    by_list = Allocator(AllocatorFeatures(), set(), classes, slices, CELCache())
    by_index = Allocator(AllocatorFeatures(), set(), classes, SliceIndex(slices), CELCache())
    assert by_list.allocate(N1, claims) == by_index.allocate(N1, claims)
    assert by_index.allocate(node(NODE2, REGION2), claims) is None


def test_many_claims_of_many_devices_do_not_exhaust_the_recursion_limit() -> None:
    # 20 claims x 32 devices: deeper than Python's default limit of 1000 frames.
    slices = [slice_with_multiple_devices(SLICE1, NODE1, POOL1, DRIVER_A, 32 * 20)]
    claims = [claim(f"claim-{i}", request(REQ0, CLASS_A, 32)) for i in range(20)]
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        result = _allocator(slices).allocate(N1, claims)
    finally:
        sys.setrecursionlimit(previous)
    assert result is not None
    assert len(set(_devices(result))) == 32 * 20
