"""The embedded resourceclaim controller: claims created from templates, recorded in the
pod's status, reserved for pods bound without the scheduler, released and deleted when
their pods are done (after upstream pkg/controller/resourceclaim/controller.go and its
controller_test.go cases)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from dra_helpers import ControllerEnv

from kubesched.api import ObjectMeta, OwnerReference, Pod, PodResourceClaim
from kubesched.testing import make_pod
from kubesched_dra.api import (
    FINALIZER,
    POD_RESOURCE_CLAIM_ANNOTATION,
    AllocationResult,
    DeviceAllocationResult,
    DeviceClaim,
    DeviceRequest,
    DeviceRequestAllocationResult,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimSpec,
    ResourceClaimStatus,
    ResourceClaimTemplate,
    ResourceClaimTemplateSpec,
)
from kubesched_dra.controllers import FAILED_RESOURCE_CLAIM_CREATION

SPEC = ResourceClaimSpec(
    devices=DeviceClaim(
        requests=[
            DeviceRequest(
                name="gpu", exactly=ExactDeviceRequest(device_class_name="gpu.example.com")
            )
        ]
    )
)
ALLOCATION = AllocationResult(
    devices=DeviceAllocationResult(
        results=[
            DeviceRequestAllocationResult(
                request="gpu", driver="gpu.example.com", pool="n1", device="gpu-0"
            )
        ]
    )
)


def template(name: str = "one-gpu") -> ResourceClaimTemplate:
    meta = ObjectMeta(labels={"team": "ml"}, annotations={"note": "from template"})
    return ResourceClaimTemplate(
        metadata=ObjectMeta(name=name, namespace="default"),
        spec=ResourceClaimTemplateSpec(metadata=meta, spec=SPEC),
    )


def pod_with(*claims: PodResourceClaim, name: str = "trainer", node: str = "") -> Pod:
    builder = make_pod(name).spec(resource_claims=list(claims))
    return (builder.node(node) if node else builder).obj()


def from_template(name: str = "gpus", template_name: str = "one-gpu") -> PodResourceClaim:
    return PodResourceClaim(name=name, resource_claim_template_name=template_name)


def by_name(name: str, claim: str = "shared") -> PodResourceClaim:
    return PodResourceClaim(name=name, resource_claim_name=claim)


def claim(
    name: str = "shared", *, reserved_for: Sequence[Pod] = (), finalizer: bool = True, **meta: Any
) -> ResourceClaim:
    refs = [
        ResourceClaimConsumerReference(resource="pods", name=p.metadata.name, uid=p.uid)
        for p in reserved_for
    ]
    return ResourceClaim(
        metadata=ObjectMeta(
            name=name, namespace="default", finalizers=[FINALIZER] if finalizer else [], **meta
        ),
        spec=SPEC,
        status=ResourceClaimStatus(allocation=ALLOCATION, reserved_for=refs),
    )


def test_a_claim_is_created_from_the_template_and_recorded_in_the_pod() -> None:
    env = ControllerEnv(template(), pod_with(from_template())).start()
    (created,) = env.claims()
    pod = env.pod("trainer")
    meta = created.metadata
    assert meta.generate_name == "trainer-gpus-"
    assert meta.name.startswith("trainer-gpus-") and len(meta.name) == len("trainer-gpus-") + 5
    assert meta.namespace == "default"
    assert meta.owner_references == [
        OwnerReference(api_version="v1", kind="Pod", name="trainer", uid=pod.uid, controller=True)
    ]
    assert meta.annotations == {"note": "from template", POD_RESOURCE_CLAIM_ANNOTATION: "gpus"}
    assert meta.labels == {"team": "ml"}
    assert created.spec == SPEC
    assert created.status.allocation is None
    assert [(s.name, s.resource_claim_name) for s in pod.status.resource_claim_statuses] == [
        ("gpus", meta.name)
    ]
    env.close()


def test_each_template_entry_gets_its_claim_once() -> None:
    pod = pod_with(from_template("a"), by_name("b", "mine"), from_template("c", "other"))
    env = ControllerEnv(template(), template("other"), pod).start()
    env.settle()  # a second pass creates nothing more
    names = sorted(c.metadata.generate_name or "" for c in env.claims())
    assert names == ["trainer-a-", "trainer-c-"]
    statuses = env.pod("trainer").status.resource_claim_statuses
    assert [s.name for s in statuses] == ["a", "c"]
    assert {s.resource_claim_name for s in statuses} == {c.metadata.name for c in env.claims()}
    env.close()


def test_long_names_are_cut_in_proportion() -> None:
    pod_name, claim_name = "p" * 40, "c" * 30
    env = ControllerEnv(template(), pod_with(from_template(claim_name), name=pod_name)).start()
    (created,) = env.claims()
    # upstream: 72 characters > 57, so each part keeps len * 57 // 72 characters
    assert created.metadata.generate_name == "p" * 31 + "-" + "c" * 23
    env.close()


def test_a_missing_template_is_reported_and_the_claim_made_once_it_exists() -> None:
    env = ControllerEnv(pod_with(from_template())).start()
    assert env.claims() == []
    (event,) = [e for e in env.cluster.events() if e.reason == FAILED_RESOURCE_CLAIM_CREATION]
    assert (event.type, event.involved_kind, event.involved_name) == ("Warning", "Pod", "trainer")
    assert event.message == (
        'PodResourceClaim gpus: resource claim template "one-gpu": '
        'resourceclaimtemplate.resource.k8s.io "one-gpu" not found'
    )

    async def create() -> None:
        await env.cluster.create(template())

    env.settle(create)
    (created,) = env.claims()
    assert env.pod("trainer").status.resource_claim_statuses[0].resource_claim_name == (
        created.metadata.name
    )
    env.close()


def test_an_orphaned_claim_of_the_pod_is_adopted_rather_than_made_twice() -> None:
    env = ControllerEnv(template(), pod_with(from_template()))
    pod = env.pod("trainer")
    owner = OwnerReference(
        api_version="v1", kind="Pod", name="trainer", uid=pod.uid, controller=True
    )
    orphan = claim(
        "trainer-gpus-abcde",
        finalizer=False,
        owner_references=[owner],
        annotations={POD_RESOURCE_CLAIM_ANNOTATION: "gpus"},
    )
    env.cluster.create_many([orphan])
    env.start()
    assert [c.metadata.name for c in env.claims()] == ["trainer-gpus-abcde"]
    statuses = env.pod("trainer").status.resource_claim_statuses
    assert [(s.name, s.resource_claim_name) for s in statuses] == [("gpus", "trainer-gpus-abcde")]
    env.close()


def test_a_pod_deleted_before_scheduling_takes_its_generated_claim_with_it() -> None:
    env = ControllerEnv(template(), pod_with(from_template())).start()
    assert len(env.claims()) == 1

    async def delete() -> None:
        await env.cluster.delete("Pod", "trainer", "default")

    env.settle(delete)
    assert env.claims() == []
    env.close()


def test_a_finished_pod_releases_deallocates_and_deletes_its_generated_claim() -> None:
    env = ControllerEnv(template(), pod_with(from_template(), node="n1")).start()
    (created,) = env.claims()
    pod = env.pod("trainer")

    async def allocate_then_finish() -> None:
        # what the scheduler's PreBind writes: the allocation, the reservation, the finalizer
        status = ResourceClaimStatus(
            allocation=ALLOCATION,
            reserved_for=[
                ResourceClaimConsumerReference(resource="pods", name="trainer", uid=pod.uid)
            ],
        )
        meta = created.metadata.model_copy(update={"finalizers": [FINALIZER]})
        await env.cluster.update(created.model_copy(update={"status": status, "metadata": meta}))
        await env.cluster.update(
            env.pod("trainer").model_copy(
                update={
                    "status": env.pod("trainer").status.model_copy(update={"phase": "Succeeded"})
                }
            )
        )

    env.settle(allocate_then_finish)
    assert env.claims() == []
    env.close()


def test_a_shared_claim_is_released_pod_by_pod_and_deallocated_after_the_last() -> None:
    first = pod_with(by_name("gpu"), name="a", node="n1")
    second = pod_with(by_name("gpu"), name="b", node="n1")
    env = ControllerEnv(first, second)
    a, b = env.pod("a"), env.pod("b")
    env.cluster.create_many([claim(reserved_for=[a, b])])
    env.start()

    async def delete(name: str) -> None:
        await env.cluster.delete("Pod", name, "default", grace_period_seconds=0)

    env.settle(lambda: delete("a"))
    shared = env.claim("shared")
    assert shared is not None
    assert [r.name for r in shared.status.reserved_for] == ["b"]
    assert shared.status.allocation == ALLOCATION
    assert shared.metadata.finalizers == [FINALIZER]

    env.settle(lambda: delete("b"))
    shared = env.claim("shared")
    assert shared is not None, "a claim made by the user is not deleted"
    assert shared.status.reserved_for == []
    assert shared.status.allocation is None
    assert shared.metadata.finalizers == []
    env.close()


def test_an_allocation_without_the_scheduler_finalizer_is_kept() -> None:
    env = ControllerEnv(pod_with(by_name("gpu"), name="a", node="n1"))
    env.cluster.create_many([claim(reserved_for=[env.pod("a")], finalizer=False)])
    env.start()

    async def delete() -> None:
        await env.cluster.delete("Pod", "a", "default", grace_period_seconds=0)

    env.settle(delete)
    shared = env.claim("shared")
    assert shared is not None and shared.status.reserved_for == []
    assert shared.status.allocation == ALLOCATION
    env.close()


def test_stale_reservations_are_dropped_when_the_controller_starts() -> None:
    ghost = make_pod("ghost", uid="0000-gone").obj()
    env = ControllerEnv(claim(reserved_for=[ghost])).start()
    shared = env.claim("shared")
    assert shared is not None
    assert (shared.status.reserved_for, shared.status.allocation) == ([], None)
    env.close()


def test_a_pod_bound_without_the_scheduler_gets_its_allocated_claim_reserved() -> None:
    env = ControllerEnv(claim(), pod_with(by_name("gpu"), name="a", node="n1")).start()
    shared = env.claim("shared")
    assert shared is not None
    assert [(r.resource, r.name, r.uid) for r in shared.status.reserved_for] == [
        ("pods", "a", env.pod("a").uid)
    ]
    env.close()


@pytest.mark.parametrize("node", ["", "n1"])
def test_a_pod_naming_a_claim_that_does_not_exist_is_left_alone(node: str) -> None:
    env = ControllerEnv(pod_with(by_name("gpu", "missing"), name="a", node=node)).start()
    assert env.claims() == []
    assert env.pod("a").status.resource_claim_statuses == []
    assert env.cluster.events() == []
    env.close()


def test_a_finished_pod_is_not_reserved_again_beside_a_running_one() -> None:
    """kubernetes/kubernetes#141274: a finished pod bound to a node keeps naming an
    allocated claim another pod uses; it is released once, never reserved again."""
    running = pod_with(by_name("gpu"), name="a", node="n1")
    done = make_pod("b").node("n1").spec(resource_claims=[by_name("gpu")]).obj()
    done = done.model_copy(update={"status": done.status.model_copy(update={"phase": "Failed"})})
    env = ControllerEnv(running, done)
    env.cluster.create_many([claim(reserved_for=[env.pod("a"), env.pod("b")])])
    env.start()
    env.settle()
    shared = env.claim("shared")
    assert shared is not None
    assert [r.name for r in shared.status.reserved_for] == ["a"]
    assert shared.status.allocation == ALLOCATION
    env.close()
