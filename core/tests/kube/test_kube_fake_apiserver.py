"""The fake API server answers as a real kube-apiserver would, where kubesched can tell:
a watch event and a new resourceVersion for every change (none for a write that changes
nothing), the default admission plugins and the registry strategies on create, the
`pods/binding` conflicts, graceful deletion of bound pods, and a new Node made ready as
a kubelet and the node lifecycle controller would.

The texts are upstream's (kubernetes/kubernetes v1.34); each case names its source.
Needs the `kube` extra (kubernetes_asyncio and its aiohttp): skipped without it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import add_ready_node, fake_server, run

from kubesched.cluster.kube import ApiError, Transport
from kubesched.testing.apiserver import (
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    FakeApiServer,
    node_raw,
    pod_raw,
)

Raw = dict[str, Any]
PODS = "/api/v1/namespaces/default/pods"
JSON = "application/json"
NOT_READY = {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
DEFAULT_TOLERATIONS = [
    {
        "key": "node.kubernetes.io/not-ready",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    },
    {
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    },
]


def with_client(scenario: Callable[[FakeApiServer, Transport], Awaitable[None]]) -> None:
    async def main() -> None:
        async with fake_server() as server:
            client = Transport.for_host(server.url)
            try:
                await scenario(server, client)
            finally:
                await client.close()

    run(main)


async def refused(call: Awaitable[Any]) -> ApiError:
    with pytest.raises(ApiError) as info:
        await call
    return info.value


# -- bootstrap objects ----------------------------------------------------------------------
def test_a_fresh_server_holds_the_system_namespaces_and_priority_classes() -> None:
    server = FakeApiServer()
    assert sorted(server.objects["v1/namespaces"]) == [
        "default",
        "kube-node-lease",
        "kube-public",
        "kube-system",
    ]
    assert server.objects["v1/namespaces"]["default"]["status"] == {"phase": "Active"}
    classes = server.objects["scheduling.k8s.io/v1/priorityclasses"]
    # pkg/apis/scheduling/helpers.go SystemPriorityClasses
    assert {name: pc["value"] for name, pc in classes.items()} == {
        "system-node-critical": 2000001000,
        "system-cluster-critical": 2000000000,
    }
    assert {pc["preemptionPolicy"] for pc in classes.values()} == {"PreemptLowerPriority"}


# -- Nodes: TaintNodesByCondition, and a kubelet with the node lifecycle controller ---------
@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        pytest.param([], [NOT_READY], id="none"),
        # MatchTaint compares key and effect only: the value does not make it another taint
        pytest.param(
            [{"key": "node.kubernetes.io/not-ready", "value": "x", "effect": "NoSchedule"}],
            [{"key": "node.kubernetes.io/not-ready", "value": "x", "effect": "NoSchedule"}],
            id="already-there",
        ),
        pytest.param(
            [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}],
            [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}, NOT_READY],
            id="other-effect",
        ),
    ],
)
def test_a_new_node_is_tainted_not_ready(sent: list[Raw], stored: list[Raw]) -> None:
    # plugin/pkg/admission/nodetaint/admission.go
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        raw = node_raw("n1")
        raw["spec"]["taints"] = sent
        created = await client.request("POST", "/api/v1/nodes", body=raw)
        assert created["spec"]["taints"] == stored
        # an update is no create: the admission plugin leaves it alone
        patched = await client.request(
            "PATCH", "/api/v1/nodes/n1", body={"spec": {"taints": None}}, content_type=MERGE_PATCH
        )
        assert "taints" not in patched["spec"]

    with_client(scenario)


def test_a_node_create_keeps_its_status_and_defaults_allocatable_to_capacity() -> None:
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        raw = node_raw("n1", cpu="3")
        del raw["status"]["allocatable"]
        created = await client.request("POST", "/api/v1/nodes", body=raw)
        assert created["status"]["allocatable"] == {"cpu": "3", "memory": "8Gi", "pods": "110"}

    with_client(scenario)


def test_a_node_made_ready_loses_the_taint_in_a_status_write_then_a_spec_write() -> None:
    server = FakeApiServer()
    before = len(server.history)
    written = add_ready_node(server, node_raw("n1"))
    events = server.history[before:]
    assert [(kind, obj["metadata"]["resourceVersion"]) for _, _, kind, obj in events] == [
        ("ADDED", written[0]["metadata"]["resourceVersion"]),
        ("MODIFIED", written[1]["metadata"]["resourceVersion"]),
        ("MODIFIED", written[2]["metadata"]["resourceVersion"]),
    ]
    assert [int(w["metadata"]["resourceVersion"]) for w in written] == [
        server.rv - 2,
        server.rv - 1,
        server.rv,
    ]
    assert written[0]["spec"]["taints"] == [NOT_READY]
    (ready,) = written[1]["status"]["conditions"]
    assert (ready["type"], ready["status"], ready["reason"]) == ("Ready", "True", "KubeletReady")
    assert written[1]["spec"]["taints"] == [NOT_READY]  # the status write leaves spec alone
    node = server.get("v1/nodes", "n1")
    assert node is not None and "taints" not in node["spec"]
    assert node["status"]["capacity"]["cpu"] == "4"  # the status patch merged, kept the rest


def test_the_lifecycle_controller_taints_an_unschedulable_node() -> None:
    # doNoScheduleTaintingPass: spec.unschedulable wants node.kubernetes.io/unschedulable;
    # SwapNodeControllerTaint adds it in one patch and removes not-ready in another
    server = FakeApiServer()
    written = add_ready_node(server, node_raw("n1", unschedulable=True))
    assert len(written) == 4
    (added,) = [t for t in written[2]["spec"]["taints"] if t["key"].endswith("unschedulable")]
    assert added["effect"] == "NoSchedule" and added["timeAdded"].endswith("Z")
    assert [t["key"] for t in written[3]["spec"]["taints"]] == ["node.kubernetes.io/unschedulable"]


# -- Pods: defaulting, Priority, DefaultTolerationSeconds, the pod strategy ------------------
def test_a_pod_create_sets_what_the_api_server_owns() -> None:
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        raw = pod_raw("p")
        del raw["spec"]["schedulerName"]
        raw["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "2", "memory": "1Gi"}}
        raw["status"] = {"phase": "Running", "nominatedNodeName": "n9"}
        created = await client.request("POST", PODS, body=raw)
        spec = created["spec"]
        assert created["status"] == {"phase": "Pending"}  # strategy.go PrepareForCreate
        assert spec["schedulerName"] == "default-scheduler"  # SetDefaults_PodSpec
        # SetDefaults_Pod: requests default to limits
        assert spec["containers"][0]["resources"]["requests"] == {"cpu": "2", "memory": "1Gi"}
        # Priority admission with no global default class
        assert (spec["priority"], spec["preemptionPolicy"]) == (0, "PreemptLowerPriority")
        assert spec["tolerations"] == DEFAULT_TOLERATIONS  # DefaultTolerationSeconds
        assert spec["terminationGracePeriodSeconds"] == 30

    with_client(scenario)


def test_a_pod_with_scheduling_gates_is_created_scheduling_gated() -> None:
    # pkg/registry/core/pod/strategy.go applySchedulingGatedCondition
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        raw = pod_raw("gated")
        raw["spec"]["schedulingGates"] = [{"name": "example.com/gate"}]
        created = await client.request("POST", PODS, body=raw)
        (cond,) = created["status"]["conditions"]
        assert (cond["type"], cond["status"], cond["reason"], cond["message"]) == (
            "PodScheduled",
            "False",
            "SchedulingGated",
            "Scheduling is blocked due to non-empty scheduling gates",
        )
        error = await refused(
            client.request("POST", f"{PODS}/gated/binding", body=binding("gated", "n1"))
        )
        # pkg/registry/core/pod/storage/storage.go setPodNodeAndMetadata
        assert (error.code, error.message) == (
            409,
            'Operation cannot be fulfilled on pods/binding "gated": '
            "pod gated has non-empty .spec.schedulingGates",
        )

    with_client(scenario)


@pytest.mark.parametrize(
    ("spec", "priority", "class_name"),
    [
        pytest.param(
            {"priorityClassName": "system-cluster-critical"}, 2000000000, None, id="class"
        ),
        pytest.param({"priorityClassName": "high", "priority": 1000}, 1000, None, id="matching"),
        pytest.param({}, 7, "everyone", id="global-default"),
    ],
)
def test_priority_admission_resolves_the_priority_class(
    spec: Raw, priority: int, class_name: str | None
) -> None:
    # plugin/pkg/admission/priority/admission.go admitPod
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        pcs = "scheduling.k8s.io/v1/priorityclasses"
        server.add(pcs, {"metadata": {"name": "high"}, "value": 1000})
        if class_name:
            server.add(pcs, {"metadata": {"name": class_name}, "value": 7, "globalDefault": True})
        raw = pod_raw("p")
        raw["spec"].update(spec)
        created = await client.request("POST", PODS, body=raw)
        assert created["spec"]["priority"] == priority
        assert created["spec"]["priorityClassName"] == (class_name or spec.get("priorityClassName"))

    with_client(scenario)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        pytest.param(
            {"priorityClassName": "nope"},
            'pods "p" is forbidden: no PriorityClass with name nope was found',
            id="unknown-class",
        ),
        pytest.param(
            {"priority": 5},
            'pods "p" is forbidden: the integer value of priority (5) must not be provided in '
            "pod spec; priority admission controller computed 0 from the given PriorityClass "
            "name",
            id="priority-given",
        ),
        pytest.param(
            {"preemptionPolicy": "Never"},
            'pods "p" is forbidden: the string value of PreemptionPolicy (Never) must not be '
            "provided in pod spec; priority admission controller computed PreemptLowerPriority "
            "from the given PriorityClass name",
            id="policy-given",
        ),
    ],
)
def test_priority_admission_refuses(spec: Raw, message: str) -> None:
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        raw = pod_raw("p")
        raw["spec"].update(spec)
        error = await refused(client.request("POST", PODS, body=raw))
        assert (error.code, error.reason, error.message) == (403, "Forbidden", message)
        assert server.get("v1/pods", "default/p") is None

    with_client(scenario)


def test_a_pod_tolerating_every_no_execute_taint_gets_no_default_tolerations() -> None:
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        raw = pod_raw("p")
        raw["spec"]["tolerations"] = [{"operator": "Exists"}]
        created = await client.request("POST", PODS, body=raw)
        assert created["spec"]["tolerations"] == [{"operator": "Exists"}]

    with_client(scenario)


def test_creating_in_a_missing_namespace_is_not_found() -> None:
    # NamespaceLifecycle answers with the namespace lookup's NotFound
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        raw = pod_raw("p", namespace="nope")
        error = await refused(client.request("POST", "/api/v1/namespaces/nope/pods", body=raw))
        assert (error.code, error.reason, error.message) == (
            404,
            "NotFound",
            'namespaces "nope" not found',
        )

    with_client(scenario)


# -- writes: one MODIFIED event and a new resourceVersion each, none for a no-op -------------
def binding(name: str, node: str) -> Raw:
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": name},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    }


UNSCHEDULABLE = {
    "type": "PodScheduled",
    "status": "False",
    "reason": "Unschedulable",
    "message": "0/1 nodes are available: 1 Insufficient cpu.",
}


def test_every_write_that_changes_an_object_is_one_modified_event_with_a_new_version() -> None:
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        stored = server.add("v1/pods", pod_raw("p"))
        # an unconditional update (no resourceVersion), which pods allow
        meta = {k: v for k, v in stored["metadata"].items() if k != "resourceVersion"}
        labelled = dict(stored, metadata=dict(meta, labels={"a": "b"}))
        writes: list[tuple[str, str, str, Raw, str]] = [
            (
                "status patch",
                "PATCH",
                f"{PODS}/p/status",
                {"status": {"conditions": [UNSCHEDULABLE]}},
                STRATEGIC_MERGE_PATCH,
            ),
            ("patch", "PATCH", f"{PODS}/p", {"metadata": {"labels": {"a": "c"}}}, MERGE_PATCH),
            ("update", "PUT", f"{PODS}/p", labelled, JSON),
            (
                "status update",
                "PUT",
                f"{PODS}/p/status",
                {"status": {"phase": "Pending", "nominatedNodeName": "n1"}},
                JSON,
            ),
            ("binding", "POST", f"{PODS}/p/binding", binding("p", "n1"), JSON),
            ("graceful delete", "DELETE", f"{PODS}/p", {}, JSON),
        ]
        for what, method, path, body, content_type in writes:
            before, version = len(server.history), server.rv
            await client.request(method, path, body=body or None, content_type=content_type)
            (event,) = server.history[before:]
            rv, resource, kind, obj = event
            assert (resource, kind) == ("v1/pods", "MODIFIED"), what
            assert rv == version + 1 == int(obj["metadata"]["resourceVersion"]), what
        pod = server.get("v1/pods", "default/p")
        assert pod is not None
        assert pod["metadata"]["labels"] == {"a": "b"}
        assert pod["status"]["nominatedNodeName"] == "n1"
        assert pod["spec"]["nodeName"] == "n1"
        assert pod["metadata"]["deletionGracePeriodSeconds"] == 30
        # binding replaced the PodScheduled condition in place (UpdatePodCondition)
        (cond,) = pod["status"]["conditions"]
        assert set(cond) == {"type", "status", "lastTransitionTime"}
        assert (cond["type"], cond["status"]) == ("PodScheduled", "True")

    with_client(scenario)


def test_a_write_that_changes_nothing_keeps_the_version_and_sends_no_event() -> None:
    # etcd3 store.go GuaranteedUpdate does not write an unchanged object
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        server.add("v1/pods", pod_raw("p"))
        patch = {"status": {"conditions": [UNSCHEDULABLE]}}
        first = await client.request(
            "PATCH", f"{PODS}/p/status", body=patch, content_type=STRATEGIC_MERGE_PATCH
        )
        before = len(server.history)
        again = await client.request(
            "PATCH", f"{PODS}/p/status", body=patch, content_type=STRATEGIC_MERGE_PATCH
        )
        # the object's own status is not written through the object
        status_only = await client.request(
            "PATCH", f"{PODS}/p", body={"status": {"phase": "Failed"}}, content_type=MERGE_PATCH
        )
        assert server.history[before:] == []
        assert first["metadata"]["resourceVersion"] == again["metadata"]["resourceVersion"]
        assert status_only["status"]["phase"] == "Pending"

    with_client(scenario)


def test_a_bound_pod_is_deleted_gracefully_and_an_unbound_one_at_once() -> None:
    # pkg/registry/core/pod/strategy.go CheckGracefulDelete
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        server.add("v1/pods", pod_raw("bound", node="n1"))
        server.add("v1/pods", pod_raw("pending"))
        terminating = await client.request("DELETE", f"{PODS}/bound")
        assert terminating["metadata"]["deletionTimestamp"].endswith("Z")
        assert server.get("v1/pods", "default/bound") is not None
        assert terminating["metadata"]["deletionGracePeriodSeconds"] == 30
        before = len(server.history)
        await client.request("DELETE", f"{PODS}/bound")  # already terminating: nothing new
        assert server.history[before:] == []
        # a later DELETE may only shorten the grace period
        shorter = await client.request(
            "DELETE", f"{PODS}/bound", query=[("gracePeriodSeconds", "5")]
        )
        assert shorter["metadata"]["deletionGracePeriodSeconds"] == 5
        before = len(server.history)
        await client.request("DELETE", f"{PODS}/bound", query=[("gracePeriodSeconds", "0")])
        await client.request("DELETE", f"{PODS}/pending")
        assert [kind for _, _, kind, _ in server.history[before:]] == ["DELETED", "DELETED"]
        assert server.get("v1/pods", "default/bound") is None

    with_client(scenario)


def test_binding_a_terminating_pod_is_a_conflict() -> None:
    async def scenario(server: FakeApiServer, client: Transport) -> None:
        server.add("v1/pods", pod_raw("p"))
        server.modify("v1/pods", "default/p", lambda o: o["metadata"].update(deletionTimestamp="x"))
        error = await refused(client.request("POST", f"{PODS}/p/binding", body=binding("p", "n1")))
        assert (error.code, error.message) == (
            409,
            'Operation cannot be fulfilled on pods/binding "p": '
            "pod p is being deleted, cannot be assigned to a host",
        )

    with_client(scenario)
