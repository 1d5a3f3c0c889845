"""Which claim a pod's entry names and whether a claim was made for the pod (upstream
dynamic-resource-allocation/resourceclaim's Name, IsForPod and their errors)."""

from __future__ import annotations

import pytest

from kubesched.api import ObjectMeta, OwnerReference, PodResourceClaim, PodResourceClaimStatus
from kubesched.testing import make_pod
from kubesched_dra.api import ResourceClaim
from kubesched_dra.resourceclaim import (
    ClaimNotCreatedError,
    claim_name,
    is_for_pod,
    is_pod_done,
    not_for_pod_error,
    owning_pod,
)

POD = make_pod("trainer", namespace="ml", uid="pod-uid").obj()


def test_a_named_claim_is_its_own_name_and_needs_no_owner_check() -> None:
    assert claim_name(POD, PodResourceClaim(name="gpu", resource_claim_name="shared")) == (
        "shared",
        False,
    )


def test_a_template_entry_names_the_claim_recorded_in_the_pod_status() -> None:
    entry = PodResourceClaim(name="gpu", resource_claim_template_name="t")
    with pytest.raises(ClaimNotCreatedError) as caught:
        claim_name(POD, entry)
    assert str(caught.value) == 'pod "ml/trainer": ResourceClaim not created yet'
    statuses = [
        PodResourceClaimStatus(name="other", resource_claim_name="x"),
        PodResourceClaimStatus(name="gpu", resource_claim_name="trainer-gpu-abcde"),
    ]
    pod = POD.model_copy(
        update={"status": POD.status.model_copy(update={"resource_claim_statuses": statuses})}
    )
    assert claim_name(pod, entry) == ("trainer-gpu-abcde", True)
    # an entry recorded without a name: the controller decided no claim is needed
    unneeded = [PodResourceClaimStatus(name="gpu")]
    pod = POD.model_copy(
        update={"status": POD.status.model_copy(update={"resource_claim_statuses": unneeded})}
    )
    assert claim_name(pod, entry) == (None, True)


def test_an_entry_with_neither_source_is_unsupported() -> None:
    with pytest.raises(ValueError) as caught:
        claim_name(POD, PodResourceClaim(name="gpu"))
    assert str(caught.value) == (
        'pod "ml/trainer", spec.resourceClaim "gpu": none of the supported fields are set'
    )


def claim(namespace: str = "ml", *owners: OwnerReference) -> ResourceClaim:
    meta = ObjectMeta(name="c", namespace=namespace, owner_references=list(owners))
    return ResourceClaim(metadata=meta)


OWNER = OwnerReference(api_version="v1", kind="Pod", name="trainer", uid="pod-uid", controller=True)


def test_a_claim_is_for_the_pod_that_controls_it_in_its_namespace() -> None:
    assert is_for_pod(POD, claim("ml", OWNER))
    assert not is_for_pod(POD, claim("other", OWNER))
    assert not is_for_pod(POD, claim("ml", OWNER.model_copy(update={"controller": None})))
    assert not is_for_pod(POD, claim("ml", OWNER.model_copy(update={"uid": "else"})))
    assert not_for_pod_error(POD, claim("ml")) == (
        "ResourceClaim ml/c was not created for pod ml/trainer (pod is not owner)"
    )


def test_the_owning_pod_is_the_controlling_v1_pod_reference() -> None:
    assert owning_pod(claim("ml", OWNER)) == ("trainer", "pod-uid")
    not_a_pod = OwnerReference(
        api_version="apps/v1", kind="Pod", name="x", uid="u", controller=True
    )
    assert owning_pod(claim("ml", not_a_pod)) is None
    assert owning_pod(claim("ml")) is None


@pytest.mark.parametrize(
    ("phase", "node", "terminating", "done"),
    [
        ("Running", "n1", False, False),
        ("Succeeded", "n1", False, True),
        ("Failed", "", False, True),
        ("Pending", "", True, True),  # deleted before it was scheduled
        ("Running", "n1", True, False),  # still stopping on its node
    ],
)
def test_a_pod_is_done_when_it_finished_or_was_deleted_unscheduled(
    phase: str, node: str, terminating: bool, done: bool
) -> None:
    builder = make_pod("p")
    builder = builder.node(node) if node else builder
    pod = (builder.terminating() if terminating else builder).obj()
    pod = pod.model_copy(update={"status": pod.status.model_copy(update={"phase": phase})})
    assert is_pod_done(pod) is done
