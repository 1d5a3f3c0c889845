"""DynamicResources' events and queueing hints (upstream dynamicresources_test.go,
TestClaimChange and TestPodChange cases)."""

from __future__ import annotations

from dra_point_helpers import (
    Points,
    allocated,
    claim,
    device_class,
    generated_claim,
    node,
    pod_with_claim,
    pod_with_template,
)

from kubesched.framework import ActionType, EventResource, QueueingHint
from kubesched_dra.api import FINALIZER, ResourceClaim

QUEUE, SKIP = QueueingHint.Queue, QueueingHint.QueueSkip


def points(*objects: object, pod=None) -> Points:
    return Points(pod or pod_with_claim(), [node("worker")], [device_class(), *objects])


def with_finalizer(c: ResourceClaim) -> ResourceClaim:
    data = c.model_dump(by_alias=True)
    data["metadata"]["finalizers"] = [FINALIZER]
    return ResourceClaim.model_validate(data)


def test_events_registered() -> None:
    p = points(claim())
    got = {
        (e.event.resource, e.event.action, e.hint is not None)
        for e in p.plugin.events_to_register()
    }
    node_actions = ActionType.Add | ActionType.UpdateNodeLabel | ActionType.UpdateNodeAllocatable
    add_update = ActionType.Add | ActionType.Update
    assert got == {
        (EventResource.Node, node_actions, False),
        ("ResourceClaim", add_update, True),
        (EventResource.Pod, ActionType.UpdatePodGeneratedResourceClaim, True),
        ("DeviceClass", add_update, False),
        ("ResourceSlice", add_update, False),
    }


def test_claim_of_the_pod_created() -> None:
    c = claim()
    p = points(c)
    assert p.plugin.is_schedulable_after_claim_change(p.pod, None, c) is QUEUE


def test_unrelated_claim_skipped() -> None:
    p = points(claim())
    other = claim("other")
    assert p.plugin.is_schedulable_after_claim_change(p.pod, None, other) is SKIP


def test_pod_still_missing_a_claim_skipped() -> None:
    p = points()  # the pod's claim does not exist
    assert p.plugin.is_schedulable_after_claim_change(p.pod, None, claim("other")) is SKIP


def test_generated_claim_of_another_pod_skipped() -> None:
    wrong = generated_claim(pod_uid="other")
    p = points(wrong, pod=pod_with_template())
    assert p.plugin.is_schedulable_after_claim_change(p.pod, None, wrong) is SKIP


def test_finalizer_added_without_status_change_skipped() -> None:
    c = claim()
    p = points(c)
    assert p.plugin.is_schedulable_after_claim_change(p.pod, c, with_finalizer(c)) is SKIP


def test_status_change_of_the_pods_claim_queued() -> None:
    c = claim()
    p = points(c)
    assert p.plugin.is_schedulable_after_claim_change(p.pod, c, allocated(c)) is QUEUE


def test_any_deallocation_queued() -> None:
    # the devices of an unrelated claim became free
    p = points(claim())
    other = claim("other")
    assert p.plugin.is_schedulable_after_claim_change(p.pod, allocated(other), other) is QUEUE


def test_pod_change_with_generated_claim_queued() -> None:
    pod = pod_with_template(generated=None)
    p = points(generated_claim(), pod=pod)
    updated = pod_with_template()
    assert p.plugin.is_schedulable_after_pod_change(pod, pod, updated) is QUEUE
    assert p.plugin.is_schedulable_after_pod_change(pod, pod, pod) is SKIP


def test_change_of_another_pod_skipped() -> None:
    pod = pod_with_template(generated=None)
    p = points(generated_claim(), pod=pod)
    other = pod_with_claim(name="other", uid="9999")
    assert p.plugin.is_schedulable_after_pod_change(pod, other, other) is SKIP


def test_pod_status_naming_its_claims_is_the_event_the_pod_change_hint_is_for() -> None:
    # upstream events.go (PodSchedulingPropertiesChange): resourceClaimStatuses changed
    from kubesched.queue import pod_update_action

    before, after = pod_with_template(generated=None), pod_with_template()
    action = pod_update_action(before, after)
    assert action & ActionType.UpdatePodGeneratedResourceClaim
    assert not pod_update_action(after, after) & ActionType.UpdatePodGeneratedResourceClaim


def test_claim_of_the_same_name_in_another_namespace_skipped() -> None:
    c = claim()
    p = points(c)
    data = c.model_dump(by_alias=True)
    data["metadata"]["namespace"] = "other"
    elsewhere = ResourceClaim.model_validate(data)
    assert p.plugin.is_schedulable_after_claim_change(p.pod, None, elsewhere) is SKIP
    assert (
        p.plugin.is_schedulable_after_claim_change(p.pod, elsewhere, allocated(elsewhere)) is SKIP
    )


def _pods_of_interest(p: Points, old: object, new: object) -> object:
    (reg,) = [e for e in p.plugin.events_to_register() if e.event.resource == "ResourceClaim"]
    assert reg.pods_of_interest is not None
    return reg.pods_of_interest(old, new)


def test_claim_events_are_for_the_pods_naming_or_controlling_the_claim() -> None:
    named = points(claim())
    assert _pods_of_interest(named, None, claim()) == {named.pod.metadata.uid}
    assert named.plugin.is_schedulable_after_claim_change(named.pod, None, claim()) is QUEUE
    assert _pods_of_interest(named, None, claim("other")) == set()
    generated = generated_claim()
    from_template = points(generated, pod=pod_with_template())
    assert _pods_of_interest(from_template, None, generated) == {from_template.pod.metadata.uid}
    assert (
        from_template.plugin.is_schedulable_after_claim_change(from_template.pod, None, generated)
        is QUEUE
    )


def test_a_deallocated_claim_is_for_every_pod() -> None:
    p = points(claim())
    other = claim("other")
    assert _pods_of_interest(p, allocated(other), other) is None
    assert p.plugin.is_schedulable_after_claim_change(p.pod, allocated(other), other) is QUEUE


def test_a_pod_event_is_for_that_pod() -> None:
    p = points(claim())
    (reg,) = [e for e in p.plugin.events_to_register() if e.event.resource == EventResource.Pod]
    assert reg.pods_of_interest is not None
    assert reg.pods_of_interest(None, p.pod) == (p.pod.metadata.uid,)
