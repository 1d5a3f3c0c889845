"""MemoryCluster as an object store: resourceVersions, optimistic concurrency, copies,
namespaces, deletes, the binding subresource, pod conditions and recorded events."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import pytest

from kubesched._errors import AlreadyExistsError, ConflictError, NotFoundError
from kubesched.api import K8sModel, Node, ObjectMeta, Pod, PodCondition
from kubesched.clock import VirtualClock
from kubesched.cluster import KubeEvent, WatchEvent
from kubesched.cluster.memory import MAX_EVENTS, AdmissionError, MemoryCluster, default_kinds
from kubesched.testing import make_node as node_builder
from kubesched.testing import make_pod as pod_builder

run = asyncio.run


def make_pod(name: str, namespace: str | None = None) -> Pod:
    """A pod as a manifest gives it: no uid, no namespace unless given."""
    return pod_builder(name, namespace).uid("").obj()


def make_node(name: str) -> Node:
    return node_builder(name).uid("").obj()


def create_pod(cluster: MemoryCluster, name: str, namespace: str | None = None) -> Pod:
    pod = run(cluster.create(make_pod(name, namespace)))
    assert isinstance(pod, Pod)
    return pod


def stored_pod(cluster: MemoryCluster, name: str, namespace: str | None = None) -> Pod:
    pod = cluster.get("Pod", name, namespace)
    assert isinstance(pod, Pod)
    return pod


def scheduled(pod: Pod) -> PodCondition:
    condition = pod.status.condition("PodScheduled")
    assert condition is not None
    return condition


class Recorder:
    def __init__(self) -> None:
        self.events: list[WatchEvent] = []

    def __call__(self, event: WatchEvent) -> None:
        self.events.append(event)

    def summary(self) -> list[tuple[str, str]]:
        return [(e.type, e.obj.metadata.name) for e in self.events]


def test_resource_version_is_one_counter_across_kinds(cluster: MemoryCluster) -> None:
    node = run(cluster.create(make_node("n1")))
    pod = create_pod(cluster, "p1")
    updated = run(cluster.update(pod.model_copy(deep=True)))

    assert node.metadata.resource_version == "1"
    assert pod.metadata.resource_version == "2"
    assert updated.metadata.resource_version == "3"
    assert cluster.resource_version == 3


def test_create_stores_a_copy_and_reads_return_the_stored_object(cluster: MemoryCluster) -> None:
    pod = make_pod("p1")
    stored = run(cluster.create(pod))
    pod.metadata.labels["mutated"] = "after-create"

    assert stored is not pod
    assert stored_pod(cluster, "p1") is stored
    assert "mutated" not in stored_pod(cluster, "p1").metadata.labels
    assert cluster.list("Pod") == [stored]


def test_create_fills_system_fields(cluster: MemoryCluster, clock: VirtualClock) -> None:
    clock.advance(90)
    pod = create_pod(cluster, "p1")
    node = run(cluster.create(make_node("n1")))

    meta = pod.metadata
    assert uuid.UUID(meta.uid).version == 4
    assert meta.creation_timestamp == clock.wall_time()
    assert meta.generation == 1
    assert meta.namespace == "default"
    assert node.metadata.namespace is None


def test_uids_repeat_with_the_same_seed_and_differ_with_another() -> None:
    def uids(seed: int) -> list[str]:
        cluster = MemoryCluster(default_kinds(), VirtualClock(), uid_seed=seed)
        pods = cluster.create_many([make_pod("a"), make_pod("b")])
        nodes = cluster.create_many([make_node("n")])
        return [o.metadata.uid for o in pods] + [o.metadata.uid for o in nodes]

    assert uids(1) == uids(1)
    assert uids(1) != uids(2)
    assert len(set(uids(1))) == 3


def test_create_keeps_a_uid_the_manifest_carries(cluster: MemoryCluster) -> None:
    pod = make_pod("p1")
    pod.metadata.uid = "given-uid"

    assert run(cluster.create(pod)).metadata.uid == "given-uid"


def test_create_of_an_existing_object_is_already_exists(cluster: MemoryCluster) -> None:
    create_pod(cluster, "p1")

    # apimachinery NewAlreadyExists: a 409, so a ConflictError too
    with pytest.raises(AlreadyExistsError) as info:
        run(cluster.create(make_pod("p1", namespace="default")))
    assert str(info.value) == 'pods "p1" already exists'
    # Another namespace is another object.
    run(cluster.create(make_pod("p1", namespace="other")))
    assert len(cluster.list("Pod")) == 2


def test_create_of_an_unregistered_kind_is_refused(cluster: MemoryCluster) -> None:
    class Widget(K8sModel):
        kind: str = "Widget"
        metadata: ObjectMeta

    with pytest.raises(AdmissionError, match='kind "Widget" is not registered'):
        run(cluster.create(Widget.model_validate({"metadata": {"name": "w"}})))


def test_stale_update_is_a_conflict_with_upstreams_message(cluster: MemoryCluster) -> None:
    first = create_pod(cluster, "p1")
    stale = first.model_copy(deep=True)
    fresh = first.model_copy(deep=True)
    fresh.metadata.labels["v"] = "2"
    run(cluster.update(fresh))

    with pytest.raises(ConflictError) as info:
        run(cluster.update(stale))

    assert str(info.value) == (
        'Operation cannot be fulfilled on pods "p1": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    assert stored_pod(cluster, "p1").metadata.labels == {"v": "2"}


def test_update_without_resource_version_is_unconditional(cluster: MemoryCluster) -> None:
    created = create_pod(cluster, "p1")
    blind = make_pod("p1")
    blind.metadata.labels["blind"] = "yes"

    updated = run(cluster.update(blind))

    assert updated.metadata.labels == {"blind": "yes"}
    # System fields come from the stored object.
    assert updated.metadata.uid == created.metadata.uid
    assert updated.metadata.creation_timestamp == created.metadata.creation_timestamp


def test_update_bumps_generation_only_when_spec_changes(cluster: MemoryCluster) -> None:
    pod = create_pod(cluster, "p1")
    relabelled = pod.model_copy(deep=True)
    relabelled.metadata.labels["a"] = "b"
    after_label = run(cluster.update(relabelled))
    respecced = after_label.model_copy(deep=True)
    respecced.spec.node_selector = {"disk": "ssd"}
    after_spec = run(cluster.update(respecced))

    assert after_label.metadata.generation == 1
    assert after_spec.metadata.generation == 2


def test_update_of_a_missing_object_is_not_found(cluster: MemoryCluster) -> None:
    with pytest.raises(NotFoundError) as info:
        run(cluster.update(make_pod("ghost")))

    assert str(info.value) == 'pods "ghost" not found'


def test_delete_removes_and_reports(cluster: MemoryCluster) -> None:
    run(cluster.create(make_node("n1")))
    recorder = Recorder()
    cluster.watch("Node", recorder)

    run(cluster.delete("Node", "n1"))
    cluster.flush()

    assert cluster.get("Node", "n1") is None
    assert recorder.summary() == [("ADDED", "n1"), ("DELETED", "n1")]
    with pytest.raises(NotFoundError, match='nodes "n1" not found'):
        run(cluster.delete("Node", "n1"))


# -- pods/binding ----------------------------------------------------------------------


def test_bind_sets_node_and_scheduled_condition(
    cluster: MemoryCluster, clock: VirtualClock
) -> None:
    pod = create_pod(cluster, "p1")
    recorder = Recorder()
    cluster.watch("Pod", recorder)
    cluster.flush()
    clock.advance(5)

    run(cluster.bind(pod, "n1"))
    cluster.flush()

    bound = stored_pod(cluster, "p1")
    assert bound.spec.node_name == "n1"
    condition = scheduled(bound)
    assert (condition.status, condition.last_transition_time) == ("True", clock.wall_time())
    assert int(bound.metadata.resource_version or 0) > int(pod.metadata.resource_version or 0)
    event = recorder.events[-1]
    assert (event.type, event.obj, event.old) == ("MODIFIED", bound, pod)
    # The previous version is untouched.
    assert pod.spec.node_name == ""
    assert pod.status.conditions == []


def test_binding_a_bound_pod_is_a_conflict(cluster: MemoryCluster) -> None:
    pod = create_pod(cluster, "p1")
    run(cluster.bind(pod, "n1"))

    with pytest.raises(ConflictError) as info:
        run(cluster.bind(pod, "n2"))

    assert str(info.value) == (
        'Operation cannot be fulfilled on pods/binding "p1": '
        'pod p1 is already assigned to node "n1"'
    )
    assert stored_pod(cluster, "p1").spec.node_name == "n1"


def test_bind_of_a_missing_pod_is_not_found(cluster: MemoryCluster) -> None:
    with pytest.raises(NotFoundError, match='pods "ghost" not found'):
        run(cluster.bind(make_pod("ghost"), "n1"))


def test_bind_checks_the_uid_when_given(cluster: MemoryCluster) -> None:
    create_pod(cluster, "p1")
    other = make_pod("p1")
    other.metadata.uid = "some-older-incarnation"

    with pytest.raises(ConflictError, match="UID in precondition: some-older-incarnation"):
        run(cluster.bind(other, "n1"))
    assert stored_pod(cluster, "p1").spec.node_name == ""


def test_bind_does_not_require_the_node_to_exist(cluster: MemoryCluster) -> None:
    pod = create_pod(cluster, "p1")

    run(cluster.bind(pod, "no-such-node"))

    assert stored_pod(cluster, "p1").spec.node_name == "no-such-node"


# -- pod conditions ----------------------------------------------------------------------

UNSCHEDULABLE = PodCondition(
    type="PodScheduled", status="False", reason="Unschedulable", message="0/3 nodes are available"
)


def test_update_pod_condition_sets_condition_and_nominated_node(
    cluster: MemoryCluster, clock: VirtualClock
) -> None:
    pod = create_pod(cluster, "p1")
    clock.advance(10)

    run(cluster.update_pod_condition(pod, UNSCHEDULABLE, nominated_node_name="n2"))

    stored = stored_pod(cluster, "p1")
    condition = scheduled(stored)
    assert (condition.reason, condition.message) == ("Unschedulable", "0/3 nodes are available")
    assert condition.last_transition_time == clock.wall_time()
    assert stored.status.nominated_node_name == "n2"


def test_transition_time_moves_only_when_status_changes(
    cluster: MemoryCluster, clock: VirtualClock
) -> None:
    pod = create_pod(cluster, "p1")
    run(cluster.update_pod_condition(pod, UNSCHEDULABLE))
    first = clock.wall_time()
    clock.advance(30)
    newer_message = UNSCHEDULABLE.model_copy(update={"message": "0/4 nodes are available"})
    run(cluster.update_pod_condition(pod, newer_message))

    condition = scheduled(stored_pod(cluster, "p1"))
    assert condition.message == "0/4 nodes are available"
    assert condition.last_transition_time == first

    clock.advance(30)
    run(cluster.bind(stored_pod(cluster, "p1"), "n1"))
    condition = scheduled(stored_pod(cluster, "p1"))
    assert condition.status == "True"
    assert condition.last_transition_time == first + timedelta(seconds=60)
    assert len(stored_pod(cluster, "p1").status.conditions) == 1


def test_nominated_node_is_kept_when_none_and_cleared_by_empty_string(
    cluster: MemoryCluster,
) -> None:
    pod = create_pod(cluster, "p1")
    run(cluster.update_pod_condition(pod, UNSCHEDULABLE, "n1"))
    run(cluster.update_pod_condition(pod, UNSCHEDULABLE.model_copy(update={"message": "x"})))
    assert stored_pod(cluster, "p1").status.nominated_node_name == "n1"

    run(cluster.update_pod_condition(pod, UNSCHEDULABLE, ""))
    assert stored_pod(cluster, "p1").status.nominated_node_name == ""


def test_unchanged_condition_writes_nothing(cluster: MemoryCluster) -> None:
    pod = create_pod(cluster, "p1")
    run(cluster.update_pod_condition(pod, UNSCHEDULABLE, "n1"))
    version = cluster.resource_version
    recorder = Recorder()
    cluster.watch("Pod", recorder)

    run(cluster.update_pod_condition(pod, UNSCHEDULABLE, "n1"))
    cluster.flush()

    assert cluster.resource_version == version
    assert recorder.summary() == [("ADDED", "p1")]


def test_condition_on_a_deleted_pod_is_ignored(cluster: MemoryCluster) -> None:
    pod = create_pod(cluster, "p1")
    run(cluster.delete("Pod", "p1"))

    run(cluster.update_pod_condition(pod, UNSCHEDULABLE))

    assert cluster.list("Pod") == []


# -- events ----------------------------------------------------------------------------


def _event(n: int) -> KubeEvent:
    return KubeEvent(
        namespace="default",
        involved_kind="Pod",
        involved_name=f"p{n}",
        involved_uid="",
        type="Normal",
        reason="Scheduled",
        action="Binding",
        message=f"Successfully assigned default/p{n} to n1",
        reporting_controller="default-scheduler",
        timestamp=0.0,
    )


def test_recorded_events_are_kept_in_order_and_capped(cluster: MemoryCluster) -> None:
    async def record(count: int) -> None:
        for n in range(count):
            await cluster.record_event(_event(n))

    run(record(MAX_EVENTS + 3))

    events = cluster.events()
    assert len(events) == MAX_EVENTS
    assert events[0].involved_name == "p3"
    assert events[-1].involved_name == f"p{MAX_EVENTS + 2}"
