"""`simulate --explain` with the volume plugins installed, end to end: the explanation
names the claim that failed on each node and why, in the result, its JSON and the CLI
table, while the pods' messages keep upstream's reasons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubesched.cli._main import main
from kubesched.simulate import simulate

CLUSTER = """\
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {kubernetes.io/hostname: node-a, topology.kubernetes.io/zone: z1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: node-b
  labels: {kubernetes.io/hostname: node-b, topology.kubernetes.io/zone: z2}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: node-c
  labels: {kubernetes.io/hostname: node-c, topology.kubernetes.io/zone: z3}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions:
  - {key: topology.kubernetes.io/zone, values: [z1, z2]}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: fast-z1, namespace: kube-system}
storageClassName: fast
nodeTopology: {matchLabels: {topology.kubernetes.io/zone: z1}}
capacity: 1Gi
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: fast-z2, namespace: kube-system}
storageClassName: fast
nodeTopology: {matchLabels: {topology.kubernetes.io/zone: z2}}
capacity: 100Gi
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: local-a}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/disk}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: kubernetes.io/hostname, operator: In, values: [node-a]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 10Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: scratch, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources: {requests: {storage: 10Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: default}
spec:
  containers: [{name: c, image: db, resources: {requests: {cpu: 100m}}}]
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: data}}
  - {name: scratch, persistentVolumeClaim: {claimName: scratch}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: logs-pv}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: static
  csi: {driver: csi.example.com, volumeHandle: logs}
  claimRef: {namespace: default, name: logs}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: topology.kubernetes.io/zone, operator: In, values: [z1]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: logs
  namespace: default
  annotations: {pv.kubernetes.io/bind-completed: "yes"}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: static
  volumeName: logs-pv
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: c, image: web, resources: {requests: {cpu: "3"}}}]
  volumes:
  - {name: logs, persistentVolumeClaim: {claimName: logs}}
"""

BIND = "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind"
AFFINITY = "UnschedulableAndUnresolvable: node(s) didn't match PersistentVolume's node affinity"
NO_PV = (
    'claim default/data: no PV of class "local" with 10Gi or more, ReadWriteOnce, reachable '
    'from the node (local-a too small (5Gi < 10Gi)); class "local" cannot provision '
    '(provisioner "kubernetes.io/no-provisioner")'
)


@pytest.fixture
def cluster(tmp_path: Path) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER, encoding="utf-8")
    return str(path)


def test_simulate_explains_each_claim_per_node(cluster: str) -> None:
    result = simulate([cluster], explain=["db", "default/web"])
    assert result.pod("db").status == "Unschedulable"
    assert "3 node(s) didn't find available persistent volumes to bind" in result.pod("db").message
    nodes = {n.node: n for n in result.explanations["default/db"].nodes}
    assert nodes["node-a"].filters["VolumeBinding"] == BIND
    assert nodes["node-a"].details["VolumeBinding"] == [
        NO_PV,
        'claim default/scratch: no PV of class "fast"; CSIStorageCapacity too small: claim '
        'requests 10Gi, the largest for class "fast" on node node-a is 1Gi '
        "(kube-system/fast-z1)",
    ]
    assert nodes["node-b"].details["VolumeBinding"] == [
        NO_PV,
        'claim default/scratch: no PV of class "fast"; class "fast" can provision it here '
        "(csi.example.com)",
    ]
    assert nodes["node-c"].details["VolumeBinding"][1] == (
        'claim default/scratch: no PV of class "fast"; class "fast" allowedTopologies exclude '
        "node node-c (topology.kubernetes.io/zone in [z1, z2])"
    )
    # web: its bound PV lives in z1, where it does not fit for CPU
    web = {n.node: n for n in result.explanations["default/web"].nodes}
    assert web["node-a"].filters["VolumeBinding"] == "ok"
    assert "VolumeBinding" not in web["node-a"].details
    assert web["node-b"].filters["VolumeBinding"] == AFFINITY
    assert web["node-b"].details["VolumeBinding"] == [
        'claim default/logs: bound PV "logs-pv" has node affinity that excludes node node-b: '
        "term 1: topology.kubernetes.io/zone In [z1] (node has topology.kubernetes.io/zone=z2)"
    ]
    assert result.pod("web").node == "node-a"


def test_json_carries_the_details(cluster: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", cluster, "--output", "json", "--explain", "db"]) == 0
    data = json.loads(capsys.readouterr().out)
    nodes = {n["node"]: n for n in data["explanations"]["default/db"]["nodes"]}
    assert nodes["node-a"]["details"]["VolumeBinding"][0] == NO_PV
    assert nodes["node-a"]["filters"]["VolumeBinding"] == BIND


def test_table_shows_the_details_under_the_verdict(
    cluster: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["simulate", cluster, "--no-progress", "--explain", "db"]) == 0
    rows = [line.strip(" │") for line in capsys.readouterr().out.splitlines()]
    verdict = next(i for i, row in enumerate(rows) if row.startswith("node-c") and "✗" in row)
    assert rows[verdict].endswith("VolumeBinding: " + BIND)
    assert rows[verdict + 1] == "· " + NO_PV
    assert rows[verdict + 2] == (
        '· claim default/scratch: no PV of class "fast"; class "fast" allowedTopologies '
        "exclude node node-c (topology.kubernetes.io/zone in [z1, z2])"
    )
