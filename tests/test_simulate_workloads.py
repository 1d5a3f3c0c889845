"""Workloads end to end through `kubesched simulate`: claims from a StatefulSet's templates
bound by kubesched-volumebinding, pods that finish (Succeeded, Failed) and free their node,
DaemonSet pods placed by the default plugins, and bad workloads refused with the file,
document and field while nothing else is lost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubesched.cli._main import EXIT_BAD_INPUT, main
from kubesched.cluster.memory import default_kinds
from kubesched.config import load_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, load_manifests
from kubesched.workloads import register

NODES = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2, topology.kubernetes.io/zone: b}}
status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
"""


def _write(tmp_path: Path, text: str, name: str = "cluster.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _json(capsys: pytest.CaptureFixture[str], *paths: Path) -> dict[str, Any]:
    code = main(["simulate", *map(str, paths), "-o", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data: dict[str, Any] = json.loads(captured.out)
    return data


STATEFULSET = """
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: example.com/disk
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 2
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres, resources: {requests: {cpu: "1"}}}]
  volumeClaimTemplates:
    - metadata: {name: data, labels: {tier: storage}}
      spec:
        accessModes: [ReadWriteOnce]
        resources: {requests: {storage: 10Gi}}
"""


def test_statefulset_claims_are_created_and_bound_by_volumebinding(tmp_path: Path) -> None:
    # what `simulate` does, keeping the Simulation to look at the claims
    pm = make_plugin_manager()
    register(pm)
    registry = PluginRegistry.discover()
    loaded = load_manifests([_write(tmp_path, NODES + "---" + STATEFULSET)], default_kinds(pm))
    sim = Simulation(loaded.objects, resolve(load_config(None), registry), registry, hooks=pm)
    result = sim.run()

    assert [(p.name, p.status) for p in result.pods] == [("db-0", "Bound"), ("db-1", "Bound")]
    claims = sorted(sim.cluster.list("PersistentVolumeClaim"), key=lambda c: c.metadata.name)
    assert [c.metadata.name for c in claims] == ["data-db-0", "data-db-1"]
    pods = sorted(sim.cluster.list("Pod"), key=lambda p: p.metadata.name)
    for claim, pod in zip(claims, pods, strict=True):
        assert claim.metadata.labels == {"tier": "storage", "app": "db"}
        assert claim.spec.volume_name, f"{claim.metadata.name} is bound"
        [volume] = pod.spec.volumes
        assert (volume.name, volume.persistent_volume_claim) == (
            "data",
            {"claimName": claim.metadata.name},
        )


FINISHING = """
---
apiVersion: v1
kind: Pod
metadata:
  name: short
  annotations: {simulation.kubesched.io/duration: 1m}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: crash
  annotations:
    simulation.kubesched.io/duration: 30s
    simulation.kubesched.io/result: Failed
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: waiting}
spec:
  priority: -1
  containers: [{name: c, image: busybox, resources: {requests: {cpu: "2"}}}]
"""


def test_finished_pods_free_their_node_and_are_reported_as_such(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = _json(capsys, _write(tmp_path, NODES + FINISHING))
    pods = {p["name"]: p for p in data["pods"]}

    assert pods["crash"]["status"] == "Failed" and pods["crash"]["node"]
    assert pods["short"]["status"] == "Succeeded" and pods["short"]["node"]
    # both nodes were full; the lower-priority pod got the first one freed (crash's, at 30 s)
    assert pods["waiting"]["status"] == "Bound"
    assert pods["waiting"]["node"] == pods["crash"]["node"]
    assert data["summary"]["succeeded"] == 1 and data["summary"]["failed"] == 1
    assert data["summary"]["virtualSeconds"] == 60.0


DAEMONSET = """
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: a, image: agent, resources: {requests: {cpu: "1500m"}}}]
"""


def test_daemonset_pods_go_to_their_own_node_or_stay_pending(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    full = """
---
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  nodeName: n2
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""
    data = _json(capsys, _write(tmp_path, NODES + DAEMONSET + full))
    agents = sorted(
        ((p["status"], p["node"], p["message"]) for p in data["pods"] if p["name"] != "big"),
        key=str,
    )
    # n2 has 1 CPU left: its daemon pod fits nowhere else, as its affinity pins it there
    assert agents[0][:2] == ("Bound", "n1")
    assert agents[1][0] == "Unschedulable"
    # NodeAffinity's PreFilter narrows the pod to its node (upstream's wording for the rest)
    assert agents[1][2].startswith(
        "0/2 nodes are available: 1 Insufficient cpu, "
        "1 node(s) didn't satisfy plugin(s) [NodeAffinity]."
    )


BAD = [
    (
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
""",
        'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: '
        'map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ),
    (
        """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres}]}
""",
        'StatefulSet.apps "db" is invalid: spec.serviceName: Required value: '
        "a StatefulSet needs serviceName",
    ),
]


@pytest.mark.parametrize(("text", "detail"), BAD)
def test_a_bad_workload_names_its_file_document_and_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, detail: str
) -> None:
    nodes = _write(tmp_path, NODES, "nodes.yaml")
    bad = _write(tmp_path, "# first a pod\n" + FINISHING.strip() + "\n---" + text, "bad.yaml")

    code = main(["simulate", str(nodes), str(bad), "--no-progress"])
    err = capsys.readouterr().err

    assert code == EXIT_BAD_INPUT
    assert f"{bad}: document 4: {detail}" in " ".join(err.split())


def test_a_pod_the_api_server_refuses_is_reported_on_its_workload(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    broken = """
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priorityClassName: missing
      containers: [{name: web, image: nginx}]
"""
    data = _json(capsys, _write(tmp_path, NODES + broken))

    [web] = data["sections"]["workloads"]
    assert (web["kind"], web["desired"], web["pods"]) == ("Deployment", 2, 0)
    assert web["message"].startswith('Error creating: pods "web-')
    assert web["message"].endswith('" is forbidden: no PriorityClass with name missing was found')
    assert data["pods"] == []


def test_an_ordered_statefulset_waits_behind_an_unschedulable_ordinal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    sts = """
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres, resources: {requests: {cpu: "3"}}}]
"""
    data = _json(capsys, _write(tmp_path, NODES + sts))

    assert [(p["name"], p["status"]) for p in data["pods"]] == [("db-0", "Unschedulable")]
    [db] = data["sections"]["workloads"]
    assert (db["desired"], db["pods"], db["bound"]) == (3, 1, 0)
    assert db["message"] == "OrderedReady: db-1 waits until db-0 is bound"


def test_a_pod_with_a_bad_duration_names_its_file_and_document(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pod = """
---
apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {simulation.kubesched.io/duration: soon}
spec: {containers: [{name: c, image: x}]}
"""
    path = _write(tmp_path, NODES + pod)
    code = main(["simulate", str(path), "--no-progress"])
    err = " ".join(capsys.readouterr().err.split())

    assert code == EXIT_BAD_INPUT
    assert (
        f'{path}: document 3: pods "p" is invalid: metadata.annotations'
        '[simulation.kubesched.io/duration]: Invalid value: "soon": a non-negative Go '
        'duration such as "90s" or "1h30m"'
    ) in err
