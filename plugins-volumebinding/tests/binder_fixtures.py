"""The objects of upstream's binder_test.go, in our builders: claims in namespace `testns`,
PVs with node affinity on `nodeKey`, and four classes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from volumebinding_helpers import make_pv, make_pvc, storage_class, volume_kinds

from kubesched.api import K8sModel, Node, Pod
from kubesched.clock import VirtualClock
from kubesched.cluster.memory import MemoryCluster
from kubesched.testing import make_node, make_pod
from kubesched_volumebinding.storage import PersistentVolume, PersistentVolumeClaim
from kubesched_volumebinding.volumebinding import (
    Listers,
    PVAssumeCache,
    PVCAssumeCache,
    VolumeBinder,
)

NS = "testns"
NODE_KEY = "nodeKey"
PROVISIONER = "test-provisioner"
WAIT = "waitClass"
IMMEDIATE = "immediateClass"
WAIT_PROV = "waitClassWithProvisioner"
TOPO_MISMATCH = "topoMismatchClass"

CLASSES = [
    storage_class(
        WAIT_PROV, provisioner=PROVISIONER, allowed={NODE_KEY: ["node1", "reference-value"]}
    ),
    storage_class(IMMEDIATE, mode="Immediate"),
    storage_class(WAIT, provisioner="kubernetes.io/no-provisioner"),
    storage_class(TOPO_MISMATCH, provisioner=PROVISIONER, allowed={NODE_KEY: ["reference-value"]}),
]

NODE1 = make_node("node1").label(**{NODE_KEY: "node1"}).obj()
NODE2 = make_node("node2").label(**{NODE_KEY: "node2"}).obj()


def pvc(
    name: str, size: str, cls: str, *, bound: str = "", prebound: str = "", version: str = "1"
) -> PersistentVolumeClaim:
    b = make_pvc(name, NS).request(size).cls(cls).version(version)
    if bound:
        b.bound(bound)
    if prebound:
        b.prebound(prebound)
    return b.obj()


def pv(
    name: str,
    node: str,
    size: str,
    cls: str,
    *,
    claim: PersistentVolumeClaim | None = None,
    version: str = "1",
) -> PersistentVolume:
    b = make_pv(name).capacity(size).cls(cls).version(version).affinity({NODE_KEY: [node]})
    if claim is not None:
        b.claim(claim).phase("Bound")
    return b.obj()


UNBOUND = pvc("unbound-pvc", "1G", WAIT)
UNBOUND2 = pvc("unbound-pvc2", "5G", WAIT)
PREBOUND = pvc("prebound-pvc", "1G", WAIT, prebound="pv-node1a")
BOUND = pvc("bound-pvc", "1G", WAIT, bound="pv-bound")
IMMEDIATE_UNBOUND = pvc("immediate-unbound-pvc", "1G", IMMEDIATE)
IMMEDIATE_BOUND = pvc("immediate-bound-pvc", "1G", IMMEDIATE, bound="pv-bound-immediate")
PROVISIONED = pvc("provisioned-pvc", "1Gi", WAIT_PROV)
PROVISIONED2 = pvc("provisioned-pvc2", "1Gi", WAIT_PROV)
PROVISIONED2_NEWER = pvc("provisioned-pvc2", "1Gi", WAIT_PROV, version="2")
NO_PROVISIONER = pvc("no-provisioner-pvc", "1Gi", WAIT)
TOPO_MISMATCH_PVC = pvc("topo-mismatch-pvc", "1Gi", TOPO_MISMATCH)
SELECTED_NODE = make_pvc("provisioned-pvc", NS).request("1Gi").cls(WAIT_PROV)
SELECTED_NODE_PVC = SELECTED_NODE.selected_node("node1").obj()

PV_NODE1A = pv("pv-node1a", "node1", "5G", WAIT)
PV_NODE1B = pv("pv-node1b", "node1", "10G", WAIT)
PV_NODE2 = pv("pv-node2", "node2", "1G", WAIT)
PV_BOUND = pv("pv-bound", "node1", "1G", WAIT, claim=BOUND)
PV_NODE1A_BOUND = pv("pv-node1a", "node1", "5G", WAIT, claim=UNBOUND)
PV_NODE1B_BOUND = pv("pv-node1b", "node1", "10G", WAIT, claim=UNBOUND2)
PV_BOUND_IMMEDIATE = pv("pv-bound-immediate", "node1", "1G", IMMEDIATE, claim=IMMEDIATE_BOUND)
PV_BOUND_IMMEDIATE_NODE2 = pv("pv-bound-immediate", "node2", "1G", IMMEDIATE, claim=IMMEDIATE_BOUND)


def make_test_pod(*claims: PersistentVolumeClaim, ephemeral: Iterable[str] = ()) -> Pod:
    volumes: list[dict[str, Any]] = [
        {"name": f"v{i}", "persistentVolumeClaim": {"claimName": c.metadata.name}}
        for i, c in enumerate(claims)
    ]
    volumes += [{"name": v, "ephemeral": {"volumeClaimTemplate": {}}} for v in ephemeral]
    return make_pod("test-pod", NS, uid="test-pod-uid").node("node1").spec(volumes=volumes).obj()


def ephemeral_pvc(pod: Pod, volume: str, *, owned: bool) -> PersistentVolumeClaim:
    b = make_pvc(f"{pod.metadata.name}-{volume}", NS).request("1G").cls(WAIT).bound("pv-bound")
    if owned:
        b.owner(pod)
    return b.obj()


class BinderEnv:
    """A binder whose caches are filled directly (keeping the given versions) and whose
    listers read a memory cluster with the classes, nodes and any extra objects."""

    def __init__(self, extra: Iterable[K8sModel] = (), nodes: Iterable[Node] = ()) -> None:
        self.cluster = MemoryCluster(volume_kinds(), VirtualClock())
        self.cluster.create_many([*CLASSES, *(nodes or [NODE1, NODE2]), *extra])
        self.pv_cache = PVAssumeCache()
        self.pvc_cache = PVCAssumeCache()
        self.binder = VolumeBinder(Listers(self.cluster), self.pv_cache, self.pvc_cache)

    def add(
        self, pvs: Iterable[PersistentVolume] = (), pvcs: Iterable[PersistentVolumeClaim] = ()
    ) -> BinderEnv:
        for v in pvs:
            self.pv_cache.add(v)
        for c in pvcs:
            self.pvc_cache.add(c)
        return self
