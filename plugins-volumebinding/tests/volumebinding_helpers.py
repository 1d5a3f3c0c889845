"""Builders for storage objects and a small environment to run the volume plugins in.

make_pv("pv-a").capacity("5G").affinity(nodeKey=["node1"]).obj()
make_pvc("pvc-a").request("1G").cls("waitClass").obj()
storage_class("wait", mode="WaitForFirstConsumer", provisioner="...")
env = VolumeEnv(objects)        # a memory cluster holding them, events delivered
plugin = env.plugin(VolumeBinding)
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar, cast

from kubesched.api import K8sModel, Node, Pod
from kubesched.clock import VirtualClock
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.framework import ClusterEvent, Handle, NodeInfo, Plugin, Snapshot
from kubesched.runtime import make_plugin_manager
from kubesched.testing import make_node, make_pod
from kubesched_volumebinding import hooks
from kubesched_volumebinding.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)

__all__ = [
    "PVBuilder",
    "PVCBuilder",
    "VolumeEnv",
    "capacity",
    "csi_driver",
    "csi_node",
    "make_pv",
    "make_pvc",
    "node",
    "pod_with_claims",
    "run",
    "storage_class",
    "volume_kinds",
]

_P = TypeVar("_P", bound=Plugin)

run = asyncio.run


class PVBuilder:
    def __init__(self, name: str) -> None:
        self._d: dict[str, Any] = {
            "metadata": {"name": name, "resourceVersion": "1"},
            "spec": {"capacity": {}, "accessModes": []},
            "status": {"phase": "Available"},
        }

    def capacity(self, size: str) -> PVBuilder:
        self._d["spec"]["capacity"]["storage"] = size
        return self

    def cls(self, name: str) -> PVBuilder:
        self._d["spec"]["storageClassName"] = name
        return self

    def phase(self, phase: str) -> PVBuilder:
        self._d["status"]["phase"] = phase
        return self

    def pending(self) -> PVBuilder:
        """No status, as a hand-written manifest: the API's Pending until the PV controller
        makes it Available."""
        self._d.pop("status", None)
        return self

    def modes(self, *modes: str) -> PVBuilder:
        self._d["spec"]["accessModes"] = list(modes)
        return self

    def version(self, rv: str) -> PVBuilder:
        self._d["metadata"]["resourceVersion"] = rv
        return self

    def label(self, **labels: str) -> PVBuilder:
        self._d["metadata"].setdefault("labels", {}).update(labels)
        return self

    def labels(self, labels: dict[str, str]) -> PVBuilder:
        self._d["metadata"].setdefault("labels", {}).update(labels)
        return self

    def affinity(
        self, expressions: dict[str, list[str]] | None = None, **kw: list[str]
    ) -> PVBuilder:
        """One required term: each key In its values."""
        reqs = {**(expressions or {}), **kw}
        term = {
            "matchExpressions": [{"key": k, "operator": "In", "values": v} for k, v in reqs.items()]
        }
        self._d["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [term]}}
        return self

    def node_affinity(self, required: dict[str, Any]) -> PVBuilder:
        self._d["spec"]["nodeAffinity"] = {"required": required}
        return self

    def claim(
        self, pvc: PersistentVolumeClaim | None = None, *, name: str = "", uid: str = ""
    ) -> PVBuilder:
        """Pre-bind to a claim (with its uid and bound-by-controller, as the controller
        writes it), or to a claim name only."""
        if pvc is not None:
            self._d["spec"]["claimRef"] = {
                "kind": "PersistentVolumeClaim",
                "namespace": pvc.metadata.namespace or "default",
                "name": pvc.metadata.name,
                "uid": pvc.metadata.uid,
            }
            self._d["metadata"].setdefault("annotations", {})[ANN_BOUND_BY_CONTROLLER] = "yes"
        else:
            self._d["spec"]["claimRef"] = {"namespace": "default", "name": name, "uid": uid}
        return self

    def csi(self, driver: str, handle: str) -> PVBuilder:
        self._d["spec"]["csi"] = {"driver": driver, "volumeHandle": handle}
        return self

    def mode(self, volume_mode: str) -> PVBuilder:
        self._d["spec"]["volumeMode"] = volume_mode
        return self

    def reclaim(self, policy: str) -> PVBuilder:
        self._d["spec"]["persistentVolumeReclaimPolicy"] = policy
        return self

    def deleting(self) -> PVBuilder:
        self._d["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        return self

    def spec(self, **fields: Any) -> PVBuilder:
        self._d["spec"].update(fields)
        return self

    def obj(self) -> PersistentVolume:
        return PersistentVolume.model_validate(self._d)


class PVCBuilder:
    def __init__(self, name: str, namespace: str = "default") -> None:
        self._d: dict[str, Any] = {
            "metadata": {
                "name": name,
                "namespace": namespace,
                "uid": f"uid-{name}",
                "resourceVersion": "1",
            },
            "spec": {"accessModes": [], "resources": {"requests": {}}},
        }

    def request(self, size: str) -> PVCBuilder:
        self._d["spec"]["resources"]["requests"]["storage"] = size
        return self

    def cls(self, name: str | None) -> PVCBuilder:
        self._d["spec"]["storageClassName"] = name
        return self

    def beta_cls(self, name: str) -> PVCBuilder:
        return self.annotate(**{"volume.beta.kubernetes.io/storage-class": name})

    def modes(self, *modes: str) -> PVCBuilder:
        self._d["spec"]["accessModes"] = list(modes)
        return self

    def bound(self, pv: str) -> PVCBuilder:
        """Fully bound: volumeName and bind-completed."""
        self._d["spec"]["volumeName"] = pv
        self._d["status"] = {"phase": "Bound"}
        return self.annotate(**{ANN_BIND_COMPLETED: "yes"})

    def prebound(self, pv: str) -> PVCBuilder:
        self._d["spec"]["volumeName"] = pv
        return self

    def selected_node(self, node: str) -> PVCBuilder:
        return self.annotate(**{ANN_SELECTED_NODE: node})

    def phase(self, phase: str) -> PVCBuilder:
        self._d.setdefault("status", {})["phase"] = phase
        return self

    def version(self, rv: str) -> PVCBuilder:
        self._d["metadata"]["resourceVersion"] = rv
        return self

    def uid(self, uid: str) -> PVCBuilder:
        self._d["metadata"]["uid"] = uid
        return self

    def annotate(self, **annotations: str) -> PVCBuilder:
        self._d["metadata"].setdefault("annotations", {}).update(annotations)
        return self

    def owner(self, pod: Pod, controller: bool = True) -> PVCBuilder:
        self._d["metadata"]["ownerReferences"] = [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": pod.metadata.name,
                "uid": pod.metadata.uid,
                "controller": controller,
            }
        ]
        return self

    def selector(self, **labels: str) -> PVCBuilder:
        self._d["spec"]["selector"] = {"matchLabels": labels}
        return self

    def deleting(self) -> PVCBuilder:
        self._d["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
        return self

    def spec(self, **fields: Any) -> PVCBuilder:
        self._d["spec"].update(fields)
        return self

    def obj(self) -> PersistentVolumeClaim:
        return PersistentVolumeClaim.model_validate(self._d)


def make_pv(name: str) -> PVBuilder:
    return PVBuilder(name)


def make_pvc(name: str, namespace: str = "default") -> PVCBuilder:
    return PVCBuilder(name, namespace)


def storage_class(
    name: str,
    *,
    mode: str | None = "WaitForFirstConsumer",
    provisioner: str = "",
    allowed: dict[str, list[str]] | None = None,
    annotations: dict[str, str] | None = None,
    reclaim: str | None = None,
) -> StorageClass:
    """A class; `allowed` is one allowedTopologies term (key in values)."""
    d: dict[str, Any] = {
        "metadata": {"name": name, "annotations": annotations or {}},
        "provisioner": provisioner,
        "volumeBindingMode": mode,
    }
    if allowed is not None:
        d["allowedTopologies"] = [
            {"matchLabelExpressions": [{"key": k, "values": v} for k, v in allowed.items()]}
        ]
    if reclaim is not None:
        d["reclaimPolicy"] = reclaim
    return StorageClass.model_validate(d)


def csi_driver(name: str, storage_capacity: bool | None) -> CSIDriver:
    return CSIDriver.model_validate(
        {"metadata": {"name": name}, "spec": {"storageCapacity": storage_capacity}}
    )


def csi_node(
    name: str,
    drivers: Sequence[dict[str, Any]] = (),
    migrated: str | None = None,
) -> CSINode:
    meta: dict[str, Any] = {"name": name}
    if migrated is not None:
        meta["annotations"] = {"storage.alpha.kubernetes.io/migrated-plugins": migrated}
    return CSINode.model_validate({"metadata": meta, "spec": {"drivers": list(drivers)}})


def capacity(
    name: str,
    storage_class_name: str,
    topology: dict[str, str] | None,
    capacity_: str | None = None,
    maximum: str | None = None,
    *,
    no_topology: bool = False,
    namespace: str = "kube-system",
) -> CSIStorageCapacity:
    """A CSIStorageCapacity; `topology` None with `no_topology` False is `{}` (every node)."""
    d: dict[str, Any] = {
        "metadata": {"name": name, "namespace": namespace},
        "storageClassName": storage_class_name,
    }
    if not no_topology:
        d["nodeTopology"] = {"matchLabels": topology or {}}
    if capacity_ is not None:
        d["capacity"] = capacity_
    if maximum is not None:
        d["maximumVolumeSize"] = maximum
    return CSIStorageCapacity.model_validate(d)


def pod_with_claims(
    name: str, *claims: str, namespace: str = "default", ephemeral: Iterable[str] = ()
) -> Pod:
    """A pod with one PVC volume per claim name and generic ephemeral volumes by name."""
    volumes: list[dict[str, Any]] = [
        {"name": f"vol-{i}", "persistentVolumeClaim": {"claimName": c}}
        for i, c in enumerate(claims)
    ]
    volumes += [{"name": v, "ephemeral": {"volumeClaimTemplate": {}}} for v in ephemeral]
    return make_pod(name, namespace).req(cpu="100m").spec(volumes=volumes).obj()


def volume_kinds() -> Any:
    pm = make_plugin_manager(load_entrypoints=False)
    pm.register(hooks)
    return default_kinds(pm)


class _Handle:
    def __init__(self, cluster: MemoryCluster, snapshot: Snapshot) -> None:
        self.cluster = cluster
        self.snapshot = snapshot
        self.profile_name = "default-scheduler"
        self.clock = cluster.clock
        self.reported: list[tuple[ClusterEvent, Any, Any]] = []

    def report_cluster_event(self, event: ClusterEvent, old: Any, new: Any) -> None:
        self.reported.append((event, old, new))


class VolumeEnv:
    """A memory cluster holding `objects` (admitted as the API server would, keeping the
    given uids), with plugins built on a handle to it and watch events delivered."""

    def __init__(self, objects: Iterable[K8sModel] = (), nodes: Iterable[Node] = ()) -> None:
        self.clock = VirtualClock()
        self.cluster = MemoryCluster(volume_kinds(), self.clock, uid_seed=1)
        self.nodes = list(nodes)
        self.cluster.create_many([*self.nodes, *objects])
        self.snapshot = Snapshot([NodeInfo(n) for n in self.nodes])
        self.fake_handle = _Handle(self.cluster, self.snapshot)
        self.handle = cast(Handle, self.fake_handle)

    def plugin(self, cls: type[_P], args: Any = None) -> _P:
        plugin = cls(args if args is not None else cls.Args(), self.handle)
        self.cluster.flush()
        return plugin

    @property
    def reported(self) -> list[tuple[ClusterEvent, Any, Any]]:
        """What plugins reported through `Handle.report_cluster_event`."""
        return self.fake_handle.reported

    def get(self, kind: str, name: str, namespace: str | None = None) -> Any:
        return self.cluster.get(kind, name, namespace)

    def node_info(self, name: str) -> NodeInfo:
        info = self.snapshot.get(name)
        assert info is not None
        return info


def node(name: str, **labels: str) -> Node:
    """A node with room for pods, labelled with its hostname (as the kubelet does)."""
    all_labels = {"kubernetes.io/hostname": name, **labels}
    return make_node(name).alloc(cpu="4", memory="8Gi", pods=110).label(**all_labels).obj()
