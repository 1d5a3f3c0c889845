"""The kubesched-volumebinding distribution: its version, its public names, the kinds its
hook registers and how they load from `kubectl get -o yaml` output."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest
from volumebinding_helpers import make_pv, make_pvc, volume_kinds

import kubesched_volumebinding
from kubesched.simulate._manifests import load_manifests
from kubesched.testing import make_node
from kubesched_volumebinding.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    claim_class,
    is_fully_bound,
)
from kubesched_volumebinding.volumebinding import find_matching_volume


def test_version_matches_distribution_metadata() -> None:
    assert kubesched_volumebinding.__version__ == version("kubesched-volumebinding")


def test_public_names() -> None:
    assert sorted(kubesched_volumebinding.__all__) == [
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeBindingArgs",
        "VolumeRestrictions",
        "VolumeZone",
        "__version__",
    ]
    plugins = (
        kubesched_volumebinding.VolumeBinding,
        kubesched_volumebinding.VolumeZone,
        kubesched_volumebinding.VolumeRestrictions,
        kubesched_volumebinding.NodeVolumeLimits,
    )
    assert [p.name for p in plugins] == [
        "VolumeBinding",
        "VolumeZone",
        "VolumeRestrictions",
        "NodeVolumeLimits",
    ]


def test_hook_registers_the_storage_kinds() -> None:
    kinds = volume_kinds()
    registered = {(k.api_version, k.kind, k.namespaced) for k in kinds}
    assert {
        ("v1", "PersistentVolume", False),
        ("v1", "PersistentVolumeClaim", True),
        ("storage.k8s.io/v1", "StorageClass", False),
        ("storage.k8s.io/v1", "CSINode", False),
        ("storage.k8s.io/v1", "CSIDriver", False),
        ("storage.k8s.io/v1", "CSIStorageCapacity", True),
        ("storage.k8s.io/v1", "VolumeAttachment", False),
    } <= registered


KUBECTL_OUTPUT = """\
apiVersion: v1
items:
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata:
    annotations:
      pv.kubernetes.io/bind-completed: "yes"
      volume.beta.kubernetes.io/storage-class: fast
    creationTimestamp: "2024-05-01T10:00:00Z"
    managedFields:
    - manager: kube-controller-manager
      operation: Update
    name: data-db-0
    namespace: prod
    resourceVersion: "123456"
    uid: 0f6c1d2e-0000-4000-8000-000000000001
  spec:
    accessModes: [ReadWriteOnce]
    resources:
      requests:
        storage: 10Gi
    volumeMode: Filesystem
    volumeName: pvc-0f6c1d2e
  status:
    accessModes: [ReadWriteOnce]
    capacity:
      storage: 10Gi
    phase: Bound
- apiVersion: v1
  kind: PersistentVolume
  metadata:
    name: pvc-0f6c1d2e
    finalizers: [kubernetes.io/pv-protection]
  spec:
    accessModes: [ReadWriteOnce]
    capacity:
      storage: 10Gi
    claimRef:
      apiVersion: v1
      kind: PersistentVolumeClaim
      name: data-db-0
      namespace: prod
      uid: 0f6c1d2e-0000-4000-8000-000000000001
    csi:
      driver: pd.csi.storage.gke.io
      volumeHandle: projects/p/zones/z/disks/d
    nodeAffinity:
      required:
        nodeSelectorTerms:
        - matchExpressions:
          - key: topology.gke.io/zone
            operator: In
            values: [europe-west1-b]
    persistentVolumeReclaimPolicy: Delete
    storageClassName: fast
    volumeMode: Filesystem
  status:
    phase: Bound
- apiVersion: storage.k8s.io/v1
  kind: StorageClass
  metadata:
    name: fast
  parameters:
    type: pd-ssd
  provisioner: pd.csi.storage.gke.io
  reclaimPolicy: Delete
kind: List
metadata:
  resourceVersion: ""
"""


def test_kubectl_output_loads(tmp_path: Path) -> None:
    path = tmp_path / "dump.yaml"
    path.write_text(KUBECTL_OUTPUT, encoding="utf-8")
    loaded = load_manifests([path], volume_kinds())
    pvc, pv, sc = loaded.objects
    assert isinstance(pvc, PersistentVolumeClaim) and isinstance(pv, PersistentVolume)
    assert isinstance(sc, StorageClass)
    assert claim_class(pvc) == "fast" and is_fully_bound(pvc)
    assert pvc.spec.resources.requests["storage"] == 10 * 2**30
    assert sc.volume_binding_mode == "Immediate"  # the API's default
    assert pv.spec.csi == {
        "driver": "pd.csi.storage.gke.io",
        "volumeHandle": "projects/p/zones/z/disks/d",
    }
    assert pv.to_dict()["spec"]["claimRef"]["name"] == "data-db-0"


@pytest.mark.parametrize(
    ("capacity", "asked", "fits"),
    [
        ("1Gi", "1024Mi", True),  # the same number of bytes
        ("1G", "1Gi", False),  # 10^9 < 2^30
        ("1073741824", "1Gi", True),
        ("1073741823", "1Gi", False),
        ("1.5Gi", "1536Mi", True),
    ],
)
def test_quantities_are_compared_exactly(capacity: str, asked: str, fits: bool) -> None:
    pv = make_pv("pv").capacity(capacity).obj()
    claim = make_pvc("c").request(asked).obj()
    node = make_node("n").obj()
    found = find_matching_volume(claim, [pv], node, (), delay_binding=True)
    assert (found is not None) is fits
