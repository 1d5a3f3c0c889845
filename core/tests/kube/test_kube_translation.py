"""The `kube` backend's translation: paths, decoding, request bodies, error mapping.

Needs the `kube` extra (kubernetes_asyncio, prometheus_client): skipped without it.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kubesched import ConflictError, NotFoundError
from kubesched.api import KindInfo, Node, Pod, PodCondition, core_kinds
from kubesched.cluster import EventSeries, KubeEvent, ObjectRef
from kubesched.cluster.kube import (
    ApiError,
    Backoff,
    DecodeError,
    binding_body,
    collection_path,
    decode,
    event_body,
    legacy_event_body,
    merge_patch,
    object_path,
    pod_status_patch,
    series_patch,
)
from kubesched.cluster.kube._resources import map_error
from kubesched.testing import make_pod

KINDS = {k.kind: k for k in core_kinds()}
LEASES = KindInfo("coordination.k8s.io/v1", "Lease", "leases", namespaced=True, model=Node)
NOW = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)


@pytest.mark.parametrize(
    ("info", "namespace", "name", "collection", "obj"),
    [
        (KINDS["Pod"], "ns1", "p", "/api/v1/pods", "/api/v1/namespaces/ns1/pods/p"),
        (KINDS["Pod"], None, "p", "/api/v1/pods", "/api/v1/namespaces/default/pods/p"),
        (KINDS["Node"], None, "n1", "/api/v1/nodes", "/api/v1/nodes/n1"),
        (
            KINDS["PriorityClass"],
            None,
            "high",
            "/apis/scheduling.k8s.io/v1/priorityclasses",
            "/apis/scheduling.k8s.io/v1/priorityclasses/high",
        ),
        (
            LEASES,
            "kube-system",
            "kubesched",
            "/apis/coordination.k8s.io/v1/leases",
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubesched",
        ),
    ],
)
def test_paths(info: KindInfo, namespace: str | None, name: str, collection: str, obj: str) -> None:
    assert collection_path(info) == collection
    assert object_path(info, name, namespace) == obj


def test_list_items_decode_without_api_version_and_kind() -> None:
    raw = {
        "metadata": {"name": "p", "namespace": "default", "uid": "u1", "resourceVersion": "7"},
        "spec": {
            "schedulerName": "kubesched",
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}],
            "unknownField": {"kept": "out"},
        },
        "status": {"phase": "Pending"},
    }
    pod = decode(KINDS["Pod"], raw)
    assert isinstance(pod, Pod)
    assert (pod.kind, pod.api_version, pod.spec.scheduler_name) == ("Pod", "v1", "kubesched")
    assert pod.metadata.resource_version == "7"
    assert pod.spec.containers[0].resources.requests["cpu"] * 1000 == 500


def test_an_object_its_model_rejects_is_a_decode_error_naming_it() -> None:
    raw = {
        "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "1.5.3"}},
    }
    with pytest.raises(DecodeError) as info:
        decode(KINDS["Node"], raw)
    assert 'Node "n1"' in str(info.value)
    assert "status.allocatable.cpu" in str(info.value)


def test_binding_body_is_default_binders() -> None:
    pod = make_pod("p").obj()
    pod.metadata.namespace, pod.metadata.uid = "ns1", "uid-9"
    assert binding_body(pod, "n1") == {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "p", "namespace": "ns1", "uid": "uid-9"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"},
    }


def _unschedulable(message: str = "0/1 nodes are available: 1 Insufficient cpu.") -> PodCondition:
    return PodCondition(
        type="PodScheduled", status="False", reason="Unschedulable", message=message
    )


def test_status_patch_sets_the_condition_with_a_transition_time() -> None:
    pod = make_pod("p").obj()
    patch = pod_status_patch(pod, _unschedulable(), None, NOW)
    assert patch == {
        "status": {
            "conditions": [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "reason": "Unschedulable",
                    "message": "0/1 nodes are available: 1 Insufficient cpu.",
                    "lastProbeTime": None,
                    "lastTransitionTime": "2026-03-01T12:00:00Z",
                }
            ]
        }
    }


def test_status_patch_keeps_the_transition_time_when_the_status_is_unchanged() -> None:
    earlier = datetime(2026, 2, 1, tzinfo=UTC)
    pod = make_pod("p").obj()
    old = _unschedulable("old message").model_copy(update={"last_transition_time": earlier})
    pod.status.conditions = [old]
    patch = pod_status_patch(pod, _unschedulable("new message"), None, NOW)
    assert patch is not None
    (entry,) = patch["status"]["conditions"]
    assert entry["message"] == "new message"
    assert entry["lastTransitionTime"] == "2026-02-01T00:00:00Z"


def test_status_patch_is_skipped_when_nothing_changes() -> None:
    # upstream updatePod: no request when neither the condition nor the nomination changes
    pod = make_pod("p").obj()
    pod.status.conditions = [_unschedulable()]
    pod.status.nominated_node_name = "n2"
    assert pod_status_patch(pod, _unschedulable(), None, NOW) is None
    assert pod_status_patch(pod, _unschedulable(), "n2", NOW) is None


@pytest.mark.parametrize(
    ("current", "nominated", "sent"),
    [("", "n2", "n2"), ("n2", "", None), ("n1", "n2", "n2")],
)
def test_status_patch_sets_or_clears_the_nomination(
    current: str, nominated: str, sent: str | None
) -> None:
    pod = make_pod("p").obj()
    pod.status.conditions = [_unschedulable()]
    pod.status.nominated_node_name = current
    patch = pod_status_patch(pod, _unschedulable(), nominated, NOW)
    assert patch == {"status": {"nominatedNodeName": sent}}


def test_event_body_is_an_events_k8s_io_v1_event() -> None:
    event = KubeEvent(
        namespace="ns1",
        involved_kind="Pod",
        involved_name="p",
        involved_uid="uid-1",
        type="Warning",
        reason="FailedScheduling",
        action="Scheduling",
        message="x" * 2000,
        reporting_controller="default-scheduler",
        timestamp=5.0,
        involved_resource_version="41",
        reporting_instance="default-scheduler-host1",
    )
    body = event_body(event, NOW)
    nanos = int(NOW.timestamp()) * 10**9 + NOW.microsecond * 1000
    assert body["metadata"] == {"name": f"p.{nanos:x}", "namespace": "ns1"}
    assert body["eventTime"] == "2026-03-01T12:00:00.123456Z"
    # reference.GetReference: the resourceVersion the object had
    assert body["regarding"] == {
        "apiVersion": "v1",
        "kind": "Pod",
        "namespace": "ns1",
        "name": "p",
        "uid": "uid-1",
        "resourceVersion": "41",
    }
    assert (body["reason"], body["action"], body["type"]) == (
        "FailedScheduling",
        "Scheduling",
        "Warning",
    )
    assert body["reportingController"] == "default-scheduler"
    assert body["reportingInstance"] == "default-scheduler-host1"
    assert len(body["note"]) == 1024 and body["note"].endswith(" ...")
    assert "related" not in body and "series" not in body


def test_event_body_names_the_related_object_and_carries_its_series() -> None:
    preemptor = ObjectRef("v1", "Pod", "ns1", "big", "uid-9", "77")
    later = datetime(2026, 3, 1, 12, 5, 0, tzinfo=UTC)
    event = KubeEvent(
        "ns1", "Pod", "victim", "uid-2", "Normal", "Preempted", "Preempting",
        "Preempted by pod uid-9 on node n1", "default-scheduler", 1.0,
        related=preemptor, name="victim.17", event_time=NOW,
        series=EventSeries(2, later, 300.0),
    )  # fmt: skip
    body = event_body(event, later)
    assert body["metadata"]["name"] == "victim.17"
    assert body["eventTime"] == "2026-03-01T12:00:00.123456Z"
    assert body["related"] == {
        "apiVersion": "v1",
        "kind": "Pod",
        "namespace": "ns1",
        "name": "big",
        "uid": "uid-9",
        "resourceVersion": "77",
    }
    assert body["series"] == {"count": 2, "lastObservedTime": "2026-03-01T12:05:00.000000Z"}
    assert event.series is not None
    assert series_patch(event.series) == {"series": body["series"]}


def test_legacy_event_body_is_a_core_v1_event_as_tools_record_writes_it() -> None:
    lease = ObjectRef("coordination.k8s.io/v1", "Lease", "kube-system", "kube-scheduler", "u", "9")
    event = KubeEvent(
        "kube-system", "Lease", "kube-scheduler", "u", "Normal", "LeaderElection", "",
        "host_1234 became leader", "default-scheduler", 0.0,
        involved_api_version="coordination.k8s.io/v1", involved_resource_version="9",
        name="kube-scheduler.5", event_time=NOW, legacy=True,
    )  # fmt: skip
    body = legacy_event_body(event, NOW)
    assert body == {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "kube-scheduler.5", "namespace": "kube-system"},
        "involvedObject": lease.to_dict(),
        "reason": "LeaderElection",
        "message": "host_1234 became leader",
        "source": {"component": "default-scheduler"},
        "firstTimestamp": "2026-03-01T12:00:00Z",
        "lastTimestamp": "2026-03-01T12:00:00Z",
        "count": 1,
        "type": "Normal",
        "reportingComponent": "default-scheduler",
        "reportingInstance": "",
    }


@pytest.mark.parametrize(
    ("old", "new", "patch"),
    [
        ({"a": 1, "b": {"c": 1, "d": 2}}, {"a": 1, "b": {"c": 1, "d": 3}}, {"b": {"d": 3}}),
        ({"a": 1, "b": 2}, {"a": 1}, {"b": None}),
        ({"l": [1, 2]}, {"l": [1, 2, 3]}, {"l": [1, 2, 3]}),
        ({"a": 1}, {"a": 1}, {}),
    ],
)
def test_merge_patch(old: dict[str, object], new: dict[str, object], patch: object) -> None:
    assert merge_patch(old, new) == patch


@pytest.mark.parametrize(
    ("error", "expected", "text"),
    [
        (
            ApiError(
                409,
                "Conflict",
                'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned '
                'to node "n1"',
            ),
            ConflictError,
            'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to '
            'node "n1"',
        ),
        (ApiError(404, "NotFound", 'pods "p" not found'), NotFoundError, 'pods/binding "p" not'),
        (ApiError(500, "InternalError", "etcd is down"), ApiError, "500 InternalError"),
    ],
)
def test_api_errors_map_to_kubesched_errors(
    error: ApiError, expected: type[Exception], text: str
) -> None:
    mapped = map_error(error, "pods/binding", "p")
    assert isinstance(mapped, expected)
    assert text in str(mapped)


def test_gone_is_410_or_expired() -> None:
    assert ApiError(410, "Gone", "").gone
    assert ApiError(0, "Expired", "too old resource version").gone
    assert not ApiError(409, "Conflict", "").gone


def test_backoff_doubles_with_jitter_and_stays_bounded() -> None:
    backoff = Backoff(0.8, 30.0, random.Random(3))
    delays = [backoff.next() for _ in range(10)]
    bases = [min(30.0, 0.8 * 2**i) for i in range(10)]
    for delay, base in zip(delays, bases, strict=True):
        assert base <= delay <= min(30.0, 2 * base)
    assert delays[-1] == pytest.approx(30.0)
    backoff.reset()
    assert backoff.next() <= 1.6
