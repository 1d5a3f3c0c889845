"""DynamicResources point by point, the cases of upstream's dynamicresources_test.go
(TestPlugin) with their messages: PreEnqueue, PreFilter, Filter, PostFilter, Reserve,
Unreserve and PreBind on a worker node publishing devices."""

from __future__ import annotations

import pytest
from dra_point_helpers import (
    CLASS,
    POD_UID,
    Points,
    allocated,
    claim,
    device_class,
    generated_claim,
    node,
    pod_with_claim,
    pod_with_template,
    reserved_for,
    slice_of,
)

from kubesched.cluster.memory import AdmissionError
from kubesched.framework import Code, NodeToStatus, Status
from kubesched.testing import make_pod
from kubesched_dra.api import FINALIZER, RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE, ResourceClaim
from kubesched_dra.dynamicresources import STATE_KEY, DynamicResourcesArgs, DynamicResourcesState

WORKER = node("worker", **{"kubernetes.io/hostname": "worker"})
WORKER_2 = node("worker-2", **{"kubernetes.io/hostname": "worker-2"})
SLICES = [slice_of("worker", "instance-1"), slice_of("worker-2", "instance-1")]


def unresolvable(message: str) -> tuple[Code, str]:
    return Code.UnschedulableAndUnresolvable, message


def code_and_message(status: Status | None) -> tuple[Code, str]:
    s = status or Status()
    return s.code, s.message()


# -- PreEnqueue and PreFilter: the claims must exist and be usable ----------------------
@pytest.mark.parametrize(
    ("pod", "objects", "message"),
    [
        pytest.param(
            pod_with_claim(),
            [],
            'could not find ResourceClaim "default/my-pod-my-resource"',
            id="claim-missing",
        ),
        pytest.param(
            pod_with_template(generated=None),
            [],
            'pod "default/my-pod": ResourceClaim not created yet',
            id="template-claim-not-created",
        ),
        pytest.param(
            pod_with_template(),
            [generated_claim(pod_uid="other")],
            "ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod "
            "(pod is not owner)",
            id="wrong-claim",
        ),
    ],
)
def test_claims_that_cannot_be_used_keep_the_pod_out(pod, objects, message) -> None:
    points = Points(pod, [WORKER], [device_class(), *objects])
    assert code_and_message(points.plugin.pre_enqueue(pod)) == unresolvable(message)
    assert code_and_message(points.pre_filter()) == unresolvable(message)


def test_claim_being_deleted() -> None:
    data = claim().model_dump(by_alias=True)
    data["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    data["metadata"]["finalizers"] = [FINALIZER]
    points = Points(pod_with_claim(), [WORKER], [ResourceClaim.model_validate(data)])
    want = unresolvable('resourceclaim "my-pod-my-resource" is being deleted')
    assert code_and_message(points.plugin.pre_enqueue(points.pod)) == want


def test_pod_without_claims_skips_and_post_filter_has_nothing_to_deallocate() -> None:
    pod = make_pod("plain").req(cpu="1").obj()
    points = Points(pod, [WORKER], [])
    assert points.plugin.pre_enqueue(pod) is None
    assert code_and_message(points.pre_filter()) == (Code.Skip, "")
    _, status = points.plugin.post_filter(points.state, pod, NodeToStatus())
    assert code_and_message(status) == (Code.Unschedulable, "no new claims to deallocate")


def test_post_filter_without_pre_filter_state_is_an_error_not_found() -> None:
    # upstream getStateData: another plugin's PreFilter rejected the pod first
    points = Points(pod_with_claim(), [WORKER], [])
    _, status = points.plugin.post_filter(points.state, points.pod, NodeToStatus())
    assert code_and_message(status) == (Code.Error, "not found")


def test_missing_class() -> None:
    points = Points(pod_with_claim(), [WORKER], [claim(), SLICES[0]])
    want = unresolvable(f"request req-1: device class {CLASS} does not exist")
    assert code_and_message(points.pre_filter()) == want


def test_claim_in_use_by_as_many_pods_as_allowed() -> None:
    uids = [f"u{i}" for i in range(RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE)]
    full = reserved_for(allocated(claim()), *uids)
    points = Points(pod_with_claim(), [WORKER], [device_class(), full, SLICES[0]])
    assert code_and_message(points.pre_filter()) == unresolvable("resourceclaim in use")


# -- Filter --------------------------------------------------------------------------------
def test_allocation_per_node_and_no_devices_left() -> None:
    points = Points(pod_with_claim(), [WORKER, WORKER_2], [device_class(), claim(), SLICES[0]])
    assert points.pre_filter() is None
    answers = {n: code_and_message(s) for n, s in points.filter().items()}
    assert answers == {
        "worker": (Code.Success, ""),
        "worker-2": unresolvable("cannot allocate all claims"),
    }
    data = points.state.read(STATE_KEY)
    assert isinstance(data, DynamicResourcesState)
    (result,) = data.node_allocations["worker"].results()
    assert [(r.request, r.pool, r.device) for r in result.devices.results] == [
        ("req-1", "worker", "instance-1")
    ]
    _, status = points.plugin.post_filter(points.state, points.pod, NodeToStatus())
    assert code_and_message(status) == (Code.Unschedulable, "still not schedulable")


def test_count_larger_than_the_node_has() -> None:
    points = Points(pod_with_claim(), [WORKER], [device_class(), claim(count=2), SLICES[0]])
    assert points.pre_filter() is None
    assert code_and_message(points.filter()["worker"]) == unresolvable("cannot allocate all claims")


def test_allocated_claim_elsewhere_and_deallocation_in_post_filter() -> None:
    # upstream "wrong-topology": allocated for worker-2, reserved for nobody
    elsewhere = allocated(claim(), node_name="worker-2")
    points = Points(pod_with_claim(), [WORKER], [device_class(), elsewhere, *SLICES])
    assert points.pre_filter() is None
    want = unresolvable("resourceclaim not available on the node")
    assert code_and_message(points.filter()["worker"]) == want

    async def post_filter() -> tuple[Code, str]:
        _, status = points.plugin.post_filter(points.state, points.pod, NodeToStatus())
        return code_and_message(status)

    got = points.run(post_filter())
    assert got == (Code.Unschedulable, "deallocation of ResourceClaim completed")
    assert points.claim().status.allocation is None
    assert points.claim().status.reserved_for == []


def test_claim_reserved_for_another_pod_is_not_deallocated() -> None:
    elsewhere = reserved_for(allocated(claim(), node_name="worker-2"), "other")
    points = Points(pod_with_claim(), [WORKER], [device_class(), elsewhere, *SLICES])
    assert points.pre_filter() is None
    points.filter()
    _, status = points.plugin.post_filter(points.state, points.pod, NodeToStatus())
    assert code_and_message(status) == (Code.Unschedulable, "still not schedulable")
    assert points.claim().status.allocation is not None


def test_allocated_claim_on_this_node_passes_without_allocator() -> None:
    mine = allocated(claim(), node_name="worker")
    points = Points(pod_with_claim(), [WORKER, WORKER_2], [device_class(), mine, *SLICES])
    assert points.pre_filter() is None
    data = points.state.read(STATE_KEY)
    assert data.allocator is None
    answers = {n: code_and_message(s) for n, s in points.filter().items()}
    assert answers == {
        "worker": (Code.Success, ""),
        "worker-2": unresolvable("resourceclaim not available on the node"),
    }


def test_selector_failing_at_runtime_is_an_error_for_the_pod() -> None:
    # compiles (the API server accepts it) but the attribute is missing on the device
    broken = device_class(expression="device.attributes['some-driver'].model == 'A100'")
    points = Points(pod_with_claim(), [WORKER], [broken, claim(), SLICES[0]])
    assert points.pre_filter() is None
    status = points.filter()["worker"]
    assert status is not None and status.code is Code.Error
    # the allocator's text (upstream allocator_stable.go selectorsMatch)
    assert status.message().startswith(
        f"class {CLASS}: selector #0 on device some-driver/worker/instance-1: CEL runtime error: "
    )


def test_selector_that_does_not_compile_is_refused_on_create() -> None:
    with pytest.raises(AdmissionError, match=r"spec\.selectors\[0\]\.cel\.expression: Invalid"):
        Points(pod_with_claim(), [WORKER], [device_class(expression="device.driver =="), claim()])


def test_stored_selector_that_does_not_compile_is_an_error_for_the_pod() -> None:
    # a class an older API server stored without compiling its selector: this cluster
    # checks selectors on create only, so the broken one is written as an update
    points = Points(pod_with_claim(), [WORKER], [device_class(), claim(), SLICES[0]])
    broken = device_class(expression="device.driver ==")
    stored = points.harness.cluster.get("DeviceClass", CLASS)
    points.run(
        points.harness.cluster.update(broken.model_copy(update={"metadata": stored.metadata}))
    )
    assert points.pre_filter() is None
    status = points.filter()["worker"]
    assert status is not None and status.code is Code.Error
    # the allocator's text (upstream allocator_stable.go selectorsMatch)
    assert status.message().startswith(
        f"class {CLASS}: selector #0: CEL compile error: compilation failed: ERROR: <input>:1:17"
    )


# upstream dynamicresources_test.go "timeout": a claim for many devices on a large slice
LARGE_SLICE = slice_of("worker", *(f"instance-{i}" for i in range(32)))


def test_filter_timeout_makes_the_node_unschedulable() -> None:
    args = DynamicResourcesArgs(filter_timeout="1ns")
    large = claim(count=32)
    points = Points(pod_with_claim(), [WORKER], [device_class(), large, LARGE_SLICE], args)
    assert points.pre_filter() is None
    answers = {n: code_and_message(s) for n, s in points.filter().items()}
    assert answers == {"worker": unresolvable("timed out trying to allocate devices")}
    data = points.state.read(STATE_KEY)
    assert data.node_allocations == {}


def test_no_filter_timeout_searches_to_the_end() -> None:
    args = DynamicResourcesArgs(filter_timeout="0s")
    large = claim(count=32)
    points = Points(pod_with_claim(), [WORKER], [device_class(), large, LARGE_SLICE], args)
    assert points.pre_filter() is None
    assert points.filter() == {"worker": None}


def test_the_slice_index_is_kept_until_a_slice_changes() -> None:
    points = Points(pod_with_claim(), [WORKER, WORKER_2], [device_class(), claim(), SLICES[0]])
    manager = points.plugin.manager
    index = manager.slice_index()
    assert points.pre_filter() is None
    assert manager.slice_index() is index
    assert points.filter()["worker-2"] is not None
    points.run(points.harness.cluster.create(SLICES[1]))
    points.harness.cluster.flush()
    assert manager.slice_index() is not index
    assert points.pre_filter() is None
    assert points.filter() == {"worker": None, "worker-2": None}


# -- Reserve, Unreserve, PreBind ------------------------------------------------------------
def test_reserve_puts_the_allocation_in_flight_for_other_pods() -> None:
    points = Points(pod_with_claim(), [WORKER], [device_class(), claim(), SLICES[0]])
    points.reserve()
    manager = points.plugin.manager
    assert manager.claim_has_pending_allocation("uid-my-pod-my-resource")
    (in_flight,) = manager.in_flight()
    assert FINALIZER in in_flight.metadata.finalizers
    assert [r.device for r in in_flight.status.allocation.devices.results] == ["instance-1"]
    assert ("some-driver", "worker", "instance-1") in manager.list_all_allocated_devices()

    # another pod sharing the claim must wait for the allocation to be written
    sharer = pod_with_claim(name="sharer", uid="5678")
    _, status = points.plugin.pre_filter(type(points.state)(), sharer, points.harness.nodes)
    want = "resource claim default/my-pod-my-resource is in the process of being allocated"
    assert code_and_message(status) == unresolvable(want)

    points.plugin.unreserve(points.state, points.pod, "worker")
    assert not manager.claim_has_pending_allocation("uid-my-pod-my-resource")
    assert manager.list_all_allocated_devices() == frozenset()


def test_pre_bind_writes_allocation_finalizer_and_reservation() -> None:
    points = Points(pod_with_claim(), [WORKER], [device_class(), claim(), SLICES[0]])
    points.reserve()

    assert points.run(points.plugin.pre_bind(points.state, points.pod, "worker")) is None
    stored = points.claim()
    assert FINALIZER in stored.metadata.finalizers
    assert stored.status.allocation is not None
    assert [(r.uid, r.resource, r.name) for r in stored.status.reserved_for] == [
        (POD_UID, "pods", "my-pod")
    ]
    manager = points.plugin.manager
    assert not manager.claim_has_pending_allocation("uid-my-pod-my-resource")
    # the assume cache shows the write at once: the device is taken for the next pod
    assert manager.claims.get("default/my-pod-my-resource").status.allocation is not None
    assert ("some-driver", "worker", "instance-1") in manager.list_all_allocated_devices()


def test_pre_bind_fails_when_the_claim_was_allocated_elsewhere_meanwhile() -> None:
    points = Points(pod_with_claim(), [WORKER], [device_class(), claim(), SLICES[0]])
    points.reserve()
    cluster = points.harness.cluster
    other = allocated(points.claim(), device="other")

    async def race() -> Status | None:
        await cluster.update(other)
        return await points.plugin.pre_bind(points.state, points.pod, "worker")

    status = points.run(race())
    assert status is not None and status.code is Code.Error
    assert status.message() == (
        "claim default/my-pod-my-resource got allocated elsewhere in the meantime"
    )
    assert not points.plugin.manager.claim_has_pending_allocation("uid-my-pod-my-resource")


def test_pre_bind_retries_after_a_benign_conflict() -> None:
    points = Points(pod_with_claim(), [WORKER], [device_class(), claim(), SLICES[0]])
    points.reserve()
    cluster = points.harness.cluster
    labelled = points.claim().model_copy(deep=True)
    labelled.metadata.labels["touched"] = "yes"

    async def race() -> Status | None:
        await cluster.update(labelled)  # the plugin's copy is now stale
        return await points.plugin.pre_bind(points.state, points.pod, "worker")

    assert points.run(race()) is None
    stored = points.claim()
    assert stored.metadata.labels == {"touched": "yes"}
    assert stored.status.allocation is not None
    assert [r.uid for r in stored.status.reserved_for] == [POD_UID]


def test_unreserve_after_pre_bind_removes_the_reservation_only() -> None:
    points = Points(pod_with_claim(), [WORKER], [device_class(), claim(), SLICES[0]])
    points.reserve()
    assert points.run(points.plugin.pre_bind(points.state, points.pod, "worker")) is None

    async def unreserve() -> None:
        points.plugin.unreserve(points.state, points.pod, "worker")

    points.run(unreserve())
    stored = points.claim()
    assert stored.status.reserved_for == []
    assert stored.status.allocation is not None  # as upstream: the allocation stays


def test_explain_names_the_request_and_its_devices() -> None:
    points = Points(pod_with_claim(), [WORKER], [device_class(), claim(count=2), SLICES[0]])
    assert points.pre_filter() is None
    (info,) = points.harness.nodes
    assert points.plugin.explain_filter(points.state, points.pod, info) == [
        "claim default/my-pod-my-resource, request req-1: wants 2, 1 of 1 devices match, 1 free"
    ]


def test_explain_names_an_allocated_claim_available_elsewhere() -> None:
    elsewhere = allocated(claim(), node_name="worker-2")
    points = Points(pod_with_claim(), [WORKER], [device_class(), elsewhere, *SLICES])
    assert points.pre_filter() is None
    (info,) = points.harness.nodes
    assert points.plugin.explain_filter(points.state, points.pod, info) == [
        "claim default/my-pod-my-resource: allocated, not available on this node"
    ]
