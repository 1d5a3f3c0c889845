"""Fault plans with volumes and gangs (issue 18): a PreBind that times out, a claim or a
volume deleted between Reserve and binding, a PodGroup deleted while its members wait at
Permit. After each, every Reserve was unreserved or bound and no volume went to two
claims."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _faulty import ledger, run_with_faults
from test_faults import NODES, assert_consistent, failed_scheduling, pod

STORAGE_CLASS = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {"name": "local"},
    "provisioner": "kubernetes.io/no-provisioner",
    "volumeBindingMode": "WaitForFirstConsumer",
}


def volume(name: str, node: str) -> dict[str, Any]:
    term = {
        "matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]
    }
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "capacity": {"storage": "10Gi"},
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "local",
            "local": {"path": "/mnt/ssd"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
        },
        "status": {"phase": "Available"},
    }


def claim(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "local",
            "resources": {"requests": {"storage": "1Gi"}},
        },
    }


def with_claim(name: str, claim_name: str) -> dict[str, Any]:
    vol = {"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}
    return pod(name, volumes=[vol])


CLUSTER = [*NODES, STORAGE_CLASS, volume("pv-1", "n1"), volume("pv-2", "n2")]
PODS = [claim("c1"), claim("c2"), with_claim("p1", "c1"), with_claim("p2", "c2")]


def volumes_of_claims(sim: Any) -> dict[str, str]:
    """claim → its PV, checking that no PV is bound to two claims."""
    taken: dict[str, str] = {}
    for pv in sim.cluster.list("PersistentVolume"):
        ref = pv.spec.claim_ref
        if ref is not None:
            key = f"{ref.namespace}/{ref.name}"
            assert key not in taken, f"{key} has two volumes"
            taken[key] = pv.metadata.name
    return taken


def test_without_faults_each_claim_gets_the_volume_of_its_pods_node(tmp_path: Path) -> None:
    sim, result = run_with_faults(
        tmp_path, [*CLUSTER, *PODS], [{"bindError": {}, "probability": 0}]
    )
    nodes = {p.name: p.node for p in result.pods}
    assert {nodes["p1"], nodes["p2"]} == {"n1", "n2"}
    taken = volumes_of_claims(sim)
    assert taken["default/c1"] == {"n1": "pv-1", "n2": "pv-2"}[str(nodes["p1"])]
    assert_consistent(sim, result)


def test_pre_bind_timeout_unreserves_and_the_retry_binds(tmp_path: Path) -> None:
    fault = {
        "preBindTimeout": {"plugin": "VolumeBinding", "after": "10m"},
        "times": 1,
        "pods": ["p1"],
    }
    sim, result = run_with_faults(tmp_path, [*CLUSTER, *PODS], [fault])
    assert ledger(result)["faults"][0]["fired"] == 1
    assert {p.name: p.status for p in result.pods if p.name.startswith("p")} == {
        "p1": "Bound",
        "p2": "Bound",
    }
    assert result.pod("p1").attempts == 2
    assert result.pod("p1").times is not None
    assert (result.pod("p1").times.bound or 0) >= 600
    (message,) = failed_scheduling(sim, "p1")
    assert "context deadline exceeded" in message
    assert len(volumes_of_claims(sim)) == 2
    assert_consistent(sim, result)


def test_claim_deleted_before_binding(tmp_path: Path) -> None:
    fault = {"deleteBeforeBind": {"kind": "PersistentVolumeClaim"}, "pods": ["p1"], "times": 1}
    sim, result = run_with_faults(tmp_path, [*CLUSTER, *PODS], [fault])
    assert ledger(result)["faults"][0]["targets"] == ["PersistentVolumeClaim c1"]
    assert sim.cluster.get("PersistentVolumeClaim", "c1", "default") is None
    p1 = result.pod("p1")
    assert p1.node is None and p1.status == "Unschedulable"
    assert 'persistentvolumeclaim "c1" not found' in p1.message
    assert result.pod("p2").status == "Bound"
    assert "default/c1" not in volumes_of_claims(sim)
    assert_consistent(sim, result)


def test_volume_deleted_before_binding(tmp_path: Path) -> None:
    fault = {"deleteBeforeBind": {"kind": "PersistentVolume"}, "pods": ["p1"], "times": 1}
    sim, result = run_with_faults(tmp_path, [*CLUSTER, *PODS], [fault])
    gone = ledger(result)["faults"][0]["targets"]
    assert gone == ["PersistentVolume pv-1, pv-2"]
    # both volumes were candidates; p1's binding fails, and nothing is left for either pod
    assert {p.name: p.node for p in result.pods if p.name.startswith("p")} == {
        "p1": None,
        "p2": None,
    }
    assert volumes_of_claims(sim) == {}
    assert_consistent(sim, result)


def test_pod_group_deleted_while_members_wait_at_permit(tmp_path: Path) -> None:
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                    "queueSort": {
                        "enabled": [{"name": "Coscheduling"}],
                        "disabled": [{"name": "*"}],
                    },
                },
            }
        ],
    }
    group = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": {"minMember": 3, "scheduleTimeoutSeconds": 10},
    }
    members = []
    for i in range(3):
        member = pod(f"m{i}")
        member["metadata"]["labels"] = {"scheduling.x-k8s.io/pod-group": "g"}
        members.append(member)
    # the third member waits for a scheduler that is not running: the others wait at Permit
    members[2]["spec"]["schedulerName"] = "nobody"
    fault = {"deleteBeforeBind": {"kind": "PodGroup"}, "times": 1}
    sim, result = run_with_faults(tmp_path, [*NODES, group, *members], [fault], config=config)
    assert ledger(result)["faults"][0]["fired"] == 1
    assert sim.cluster.get("PodGroup", "g", "default") is None
    statuses = {p.name: p.status for p in result.pods}
    assert statuses["m2"] == "Pending"
    # upstream Coscheduling denies at Permit a pod whose PodGroup is missing (core.go
    # PodGroupNotFound): the waiting member and the next one are rejected and unreserved,
    # and none binds until the PodGroup comes back
    assert statuses["m0"] == statuses["m1"] == "Pending"
    book = ledger(result)
    assert (book["reserve"], book["unreserve"], book["bound"]) == (2, 2, 0)
    assert failed_scheduling(sim, "m1") == ["0/1 nodes are available: 1 PodGroup not found."]
    # m0 was waiting at Permit when its group went: m1's rejection reached it in Unreserve
    assert failed_scheduling(sim, "m0") == ["0/1 nodes are available: 1 rejection in Unreserve."]
    assert_consistent(sim, result)
