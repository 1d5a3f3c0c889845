"""VolumeBinding: default pods that each mount a PersistentVolumeClaim, on zoned nodes.

upstream: test/integration/scheduler_perf/volumes/performance-config.yaml
(SchedulingCSIPVs, SchedulingInTreePVs: `templates/pv-csi.yaml`, `pv-aws.yaml`,
`config/templates/pvc.yaml`, created per pod by test/utils/runners.go
CreatePodWithPersistentVolume) and the older benchmark_test.go
SchedulingWaitForFirstConsumerPVs (NewCreatePodWithPersistentVolumeWithFirstConsumerStrategy).
Pods take their claim kind in turn (pod i: i mod 3):

0. **pre-bound CSI** (SchedulingCSIPVs): a PV of `ebs.csi.aws.com` (1Gi, ReadOnlyMany)
   bound to the pod's claim, the claim bound to it (`pv.kubernetes.io/bind-completed`, as
   upstream's pvc.yaml), every node's CSINode allowing 39 such volumes (upstream's
   nodeAllocatableStrategy). The scheduler only checks; nothing is written at PreBind.
1. **local, WaitForFirstConsumer** (SchedulingWaitForFirstConsumerPVs, with local PVs):
   class `local-storage` (`kubernetes.io/no-provisioner`), one pre-created local PV (1Gi,
   ReadWriteOnce) per such claim, pinned by node affinity to one node
   (`kubernetes.io/hostname`), the nodes taken in turn. The scheduler picks a node with a
   free PV, binds the PV at PreBind and waits for the PV controller to bind the claim.
2. **provisioned, WaitForFirstConsumer**: class `csi-provisioned`
   (`pd.csi.storage.gke.io`), no PV: the scheduler selects the node, the embedded
   provisioner creates a PV in that node's zone (no delay), the PV controller binds it.

The init pods' claims and volumes are created before the nodes (unmeasured); the measured
pods' are created when measuring starts, just before the pods, as upstream's createPods op
creates each pod's PV and PVC with it. Needs kubesched-volumebinding: its storage kinds,
its plugins in the default profile, and the PV controller and provisioner.
"""

from __future__ import annotations

import random
from typing import Any, Final

from kubesched.api import K8sModel, Pod, Volume
from kubesched_bench.spec import Requirement, Size, Workload, index_width, node_names
from kubesched_bench.templates import (
    HOSTNAME_LABEL,
    INIT_NAMESPACE,
    MEASURED_NAMESPACE,
    clone_pod,
    default_pod,
    zoned_nodes,
)

__all__ = [
    "CLAIM_KINDS",
    "CSI_DRIVER",
    "CSI_VOLUME_LIMIT",
    "LOCAL_CLASS",
    "PROVISIONED_CLASS",
    "VOLUMEBINDING",
    "ZONES",
    "volume_binding",
]

VOLUMEBINDING: Final = Requirement(
    distribution="kubesched-volumebinding",
    source="./plugins-volumebinding",
    provides="the storage kinds, the VolumeBinding plugin, the PV controller and provisioner",
)

ZONES: Final = ("zone-a", "zone-b", "zone-c")
CSI_DRIVER: Final = "ebs.csi.aws.com"
CSI_VOLUME_LIMIT: Final = 39  # upstream: volumes/performance-config.yaml csiNodeAllocatable
LOCAL_CLASS: Final = "local-storage"
PROVISIONED_CLASS: Final = "csi-provisioned"
CLAIM_KINDS: Final = ("csi", "local", "provisioned")
"""Pod i's claim is of kind CLAIM_KINDS[i % 3]."""

_BIND_COMPLETED: Final = "pv.kubernetes.io/bind-completed"
_SIZE: Final = "1Gi"


def _storage_kinds() -> dict[str, type[Any]]:
    from kubesched_volumebinding.storage import (  # installed: WorkloadSpec.build checked
        CSINode,
        PersistentVolume,
        PersistentVolumeClaim,
        StorageClass,
    )

    return {
        "CSINode": CSINode,
        "PersistentVolume": PersistentVolume,
        "PersistentVolumeClaim": PersistentVolumeClaim,
        "StorageClass": StorageClass,
    }


class _Builder:
    """Builds the claims, volumes and pods of one phase (one namespace)."""

    def __init__(self, size: Size, nodes: list[str]) -> None:
        self.kinds = _storage_kinds()
        self.width = index_width(size)
        self.nodes = nodes
        self.local_count = 0  # local PVs made so far, across phases: the next node in turn

    def _make(self, kind: str, doc: dict[str, Any]) -> K8sModel:
        model: K8sModel = self.kinds[kind].model_validate({"kind": kind, **doc})
        return model

    def classes(self) -> list[K8sModel]:
        local = {
            "apiVersion": "storage.k8s.io/v1",
            "metadata": {"name": LOCAL_CLASS},
            "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer",
        }
        provisioned = {
            "apiVersion": "storage.k8s.io/v1",
            "metadata": {"name": PROVISIONED_CLASS},
            "provisioner": "pd.csi.storage.gke.io",
            "volumeBindingMode": "WaitForFirstConsumer",
            "reclaimPolicy": "Delete",
        }
        return [self._make("StorageClass", local), self._make("StorageClass", provisioned)]

    def csi_nodes(self) -> list[K8sModel]:
        return [
            self._make(
                "CSINode",
                {
                    "apiVersion": "storage.k8s.io/v1",
                    "metadata": {"name": name},
                    "spec": {
                        "drivers": [
                            {
                                "name": CSI_DRIVER,
                                "nodeID": name,
                                "allocatable": {"count": CSI_VOLUME_LIMIT},
                            }
                        ]
                    },
                },
            )
            for name in self.nodes
        ]

    def phase(
        self, namespace: str, prefix: str, count: int
    ) -> tuple[list[K8sModel], list[Pod], list[str]]:
        """`count` pods named `<prefix>-<i>` with their claims `pvc-<prefix>-<i>` (and
        volumes): (claims and volumes in creation order, pods, claim keys)."""
        objects: list[K8sModel] = []
        pods: list[Pod] = []
        claims: list[str] = []
        template = default_pod(prefix, namespace)
        for i in range(count):
            name = f"{prefix}-{i:0{self.width}d}"
            claim = f"pvc-{name}"
            kind = CLAIM_KINDS[i % len(CLAIM_KINDS)]
            pv_name = f"{namespace}-pv-{kind}-{name}"
            if kind == "csi":
                objects.append(self._claim(namespace, claim, "ReadOnlyMany", volume=pv_name))
                objects.append(self._csi_volume(pv_name, namespace, claim))
            elif kind == "local":
                objects.append(self._local_volume(pv_name))
                objects.append(self._claim(namespace, claim, "ReadWriteOnce", LOCAL_CLASS))
            else:
                objects.append(self._claim(namespace, claim, "ReadWriteOnce", PROVISIONED_CLASS))
            volume = Volume.model_validate(
                {"name": "data", "persistentVolumeClaim": {"claimName": claim}}
            )
            pods.append(clone_pod(template, name, spec={"volumes": [volume]}))
            claims.append(f"{namespace}/{claim}")
        return objects, pods, claims

    def _claim(
        self,
        namespace: str,
        name: str,
        access_mode: str,
        storage_class: str | None = None,
        volume: str = "",
    ) -> K8sModel:
        doc: dict[str, Any] = {
            "apiVersion": "v1",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"accessModes": [access_mode], "resources": {"requests": {"storage": _SIZE}}},
        }
        if storage_class is not None:
            doc["spec"]["storageClassName"] = storage_class
        if volume:  # upstream's pvc.yaml, bound by CreatePodWithPersistentVolume
            doc["metadata"]["annotations"] = {_BIND_COMPLETED: "true"}
            doc["spec"]["volumeName"] = volume
            doc["status"] = {"phase": "Bound"}
        return self._make("PersistentVolumeClaim", doc)

    def _csi_volume(self, name: str, namespace: str, claim: str) -> K8sModel:
        return self._make(
            "PersistentVolume",
            {
                "apiVersion": "v1",
                "metadata": {"name": name},
                "spec": {
                    "accessModes": ["ReadOnlyMany"],
                    "capacity": {"storage": _SIZE},
                    "csi": {"driver": CSI_DRIVER, "volumeHandle": name},
                    "persistentVolumeReclaimPolicy": "Retain",
                    "claimRef": {
                        "kind": "PersistentVolumeClaim",
                        "apiVersion": "v1",
                        "namespace": namespace,
                        "name": claim,
                    },
                },
                "status": {"phase": "Bound"},
            },
        )

    def _local_volume(self, name: str) -> K8sModel:
        node = self.nodes[self.local_count % len(self.nodes)]
        self.local_count += 1
        term = {"matchExpressions": [{"key": HOSTNAME_LABEL, "operator": "In", "values": [node]}]}
        return self._make(
            "PersistentVolume",
            {
                "apiVersion": "v1",
                "metadata": {"name": name},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "capacity": {"storage": _SIZE},
                    "local": {"path": "/mnt/disks/vol0"},
                    "persistentVolumeReclaimPolicy": "Retain",
                    "storageClassName": LOCAL_CLASS,
                    "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
                },
                "status": {"phase": "Available"},
            },
        )


def volume_binding(size: Size, rng: random.Random) -> Workload:
    """VolumeBinding: default nodes in three zones; init and measured pods are default
    pods with one claim each, of the three kinds of the module docstring in turn."""
    del rng  # every object is fixed; the scheduler's seed decides ties
    names = node_names(size)
    nodes = zoned_nodes(names, ZONES)
    builder = _Builder(size, names)
    init_objects, init_pods, init_claims = builder.phase(INIT_NAMESPACE, "pod-init", size.init_pods)
    objects, pods, claims = builder.phase(MEASURED_NAMESPACE, "pod", size.pods)
    return Workload(
        "VolumeBinding",
        size,
        nodes,
        init_pods,
        pods,
        setup=[*builder.classes(), *builder.csi_nodes(), *init_objects],
        measured_setup=objects,
        claims=[*init_claims, *claims],
    )
