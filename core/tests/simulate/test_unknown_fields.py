"""Unknown fields are found as `kubectl apply --validate=strict` finds them; what kubectl
writes (`kubectl get -o yaml`, status and managedFields included) loads cleanly; a value
outside a field's choices reads as the API server words it."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest
from pydantic import BaseModel

from kubesched._errors import ManifestError
from kubesched.api import Namespace, Node, Pod, PriorityClass
from kubesched.clock import VirtualClock
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.simulate._fields import _schema
from kubesched.simulate._manifests import ManifestWarning, load_manifests

# `kubectl get pods,nodes -o yaml` of a kind cluster, trimmed to one object of each
DUMP = """\
apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      kubeadm.alpha.kubernetes.io/cri-socket: unix:///run/containerd/containerd.sock
      node.alpha.kubernetes.io/ttl: "0"
      volumes.kubernetes.io/controller-managed-attach-detach: "true"
    creationTimestamp: "2025-09-01T10:00:00Z"
    labels:
      kubernetes.io/arch: amd64
      kubernetes.io/hostname: kind-worker
      kubernetes.io/os: linux
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:labels:
            .: {}
            f:kubernetes.io/hostname: {}
      manager: kubelet
      operation: Update
      time: "2025-09-01T10:00:00Z"
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:status:
          f:conditions:
            k:{"type":"Ready"}:
              f:lastHeartbeatTime: {}
      manager: kubelet
      operation: Update
      subresource: status
      time: "2025-09-01T10:05:00Z"
    name: kind-worker
    resourceVersion: "4231"
    uid: 0b7d5b6e-1b0c-4d2e-9f57-4a1e5d6c7b8a
  spec:
    podCIDR: 10.244.1.0/24
    podCIDRs:
    - 10.244.1.0/24
    providerID: kind://docker/kind/kind-worker
    taints:
    - effect: NoSchedule
      key: dedicated
      value: gpu
  status:
    addresses:
    - address: 172.18.0.3
      type: InternalIP
    - address: kind-worker
      type: Hostname
    allocatable:
      cpu: "8"
      ephemeral-storage: 100Gi
      hugepages-2Mi: "0"
      memory: 16Gi
      pods: "110"
    capacity:
      cpu: "8"
      ephemeral-storage: 100Gi
      hugepages-2Mi: "0"
      memory: 16Gi
      pods: "110"
    conditions:
    - lastHeartbeatTime: "2025-09-01T10:05:00Z"
      lastTransitionTime: "2025-09-01T10:00:10Z"
      message: kubelet is posting ready status
      reason: KubeletReady
      status: "True"
      type: Ready
    daemonEndpoints:
      kubeletEndpoint:
        Port: 10250
    images:
    - names:
      - registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8
      - registry.k8s.io/pause:3.10
      sizeBytes: 320368
    nodeInfo:
      architecture: amd64
      bootID: 2f5d9a61-0c1e-4a0e-8b1a-6f0f3c2d9e11
      containerRuntimeVersion: containerd://2.1.3
      kernelVersion: 6.8.0-45-generic
      kubeProxyVersion: ""
      kubeletVersion: v1.34.0
      machineID: 4b1f0e3c2d9e4a5b8c7d6e5f4a3b2c1d
      operatingSystem: linux
      osImage: Debian GNU/Linux 12 (bookworm)
      systemUUID: 4b1f0e3c-2d9e-4a5b-8c7d-6e5f4a3b2c1d
    runtimeHandlers:
    - features:
        recursiveReadOnlyMounts: true
        userNamespaces: true
      name: runc
- apiVersion: v1
  kind: Pod
  metadata:
    annotations:
      kubectl.kubernetes.io/restartedAt: "2025-09-01T10:00:00Z"
    creationTimestamp: "2025-09-01T10:01:00Z"
    generateName: web-7c9d8f6b5-
    labels:
      app: web
      pod-template-hash: 7c9d8f6b5
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:generateName: {}
          f:ownerReferences:
            .: {}
            k:{"uid":"6a1e2b3c-4d5e-6f70-8192-a3b4c5d6e7f8"}: {}
      manager: kube-controller-manager
      operation: Update
      time: "2025-09-01T10:01:00Z"
    name: web-7c9d8f6b5-x2x8q
    namespace: default
    ownerReferences:
    - apiVersion: apps/v1
      blockOwnerDeletion: true
      controller: true
      kind: ReplicaSet
      name: web-7c9d8f6b5
      uid: 6a1e2b3c-4d5e-6f70-8192-a3b4c5d6e7f8
    resourceVersion: "5120"
    uid: 9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a
  spec:
    containers:
    - env:
      - name: POD_IP
        valueFrom:
          fieldRef:
            apiVersion: v1
            fieldPath: status.podIP
      image: nginx:1.27
      imagePullPolicy: IfNotPresent
      name: web
      ports:
      - containerPort: 80
        name: http
        protocol: TCP
      readinessProbe:
        failureThreshold: 3
        httpGet:
          path: /
          port: http
          scheme: HTTP
        periodSeconds: 10
        successThreshold: 1
        timeoutSeconds: 1
      resources:
        limits:
          memory: 512Mi
        requests:
          cpu: 250m
          memory: 256Mi
      terminationMessagePath: /dev/termination-log
      terminationMessagePolicy: File
      volumeMounts:
      - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
        name: kube-api-access-abcde
        readOnly: true
    dnsPolicy: ClusterFirst
    enableServiceLinks: true
    nodeName: kind-worker
    preemptionPolicy: PreemptLowerPriority
    priority: 0
    restartPolicy: Always
    schedulerName: default-scheduler
    securityContext: {}
    serviceAccount: default
    serviceAccountName: default
    terminationGracePeriodSeconds: 30
    tolerations:
    - effect: NoExecute
      key: node.kubernetes.io/not-ready
      operator: Exists
      tolerationSeconds: 300
    - effect: NoSchedule
      key: dedicated
      operator: Equal
      value: gpu
    volumes:
    - name: kube-api-access-abcde
      projected:
        defaultMode: 420
        sources:
        - serviceAccountToken:
            expirationSeconds: 3607
            path: token
        - configMap:
            items:
            - key: ca.crt
              path: ca.crt
            name: kube-root-ca.crt
  status:
    conditions:
    - lastProbeTime: null
      lastTransitionTime: "2025-09-01T10:01:01Z"
      status: "True"
      type: PodScheduled
    - lastProbeTime: null
      lastTransitionTime: "2025-09-01T10:01:05Z"
      status: "True"
      type: Ready
    containerStatuses:
    - containerID: containerd://5d1b0c
      image: docker.io/library/nginx:1.27
      imageID: docker.io/library/nginx@sha256:0a1b2c
      lastState: {}
      name: web
      ready: true
      restartCount: 0
      started: true
      state:
        running:
          startedAt: "2025-09-01T10:01:04Z"
      volumeMounts:
      - mountPath: /var/run/secrets/kubernetes.io/serviceaccount
        name: kube-api-access-abcde
        readOnly: true
        recursiveReadOnly: Disabled
    hostIP: 172.18.0.3
    hostIPs:
    - ip: 172.18.0.3
    phase: Running
    podIP: 10.244.1.7
    podIPs:
    - ip: 10.244.1.7
    qosClass: Burstable
    startTime: "2025-09-01T10:01:01Z"
kind: List
metadata:
  resourceVersion: ""
"""


def load(tmp_path: Path, text: str, name: str = "pods.yaml", **options: Any) -> Any:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_manifests([path], default_kinds(), **options)


def test_a_kubectl_get_dump_loads_and_creates_cleanly(tmp_path: Path) -> None:
    loaded = load(tmp_path, DUMP)
    assert [type(o).__name__ for o in loaded.objects] == ["Node", "Pod"]
    assert loaded.warnings == []
    cluster = MemoryCluster(default_kinds(), VirtualClock())
    cluster.create_many(loaded.objects)
    assert cluster.get("Pod", "web-7c9d8f6b5-x2x8q", "default") is not None


POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: web}}
spec:
  containers:
  - name: app
    image: nginx
{extra}
"""


@pytest.mark.parametrize(
    ("extra", "path", "detail"),
    [
        (
            "    resource: {requests: {cpu: '1'}}",
            "spec.containers[0].resource",
            'unknown field "resource" (did you mean "resources"?)',
        ),
        (
            "  node_selector: {disk: ssd}",
            "spec.node_selector",
            'unknown field "node_selector" (did you mean "nodeSelector"?)',
        ),
        (
            "  affinity:\n    nodeAffinity:\n      required: {}",
            "spec.affinity.nodeAffinity.required",
            'unknown field "required"',
        ),
        (
            "  tolerations:\n  - key: k\n    efect: NoSchedule",
            "spec.tolerations[0].efect",
            'unknown field "efect" (did you mean "effect"?)',
        ),
        (
            "status:\n  phasee: Running",
            "status.phasee",
            'unknown field "phasee" (did you mean "phase"?)',
        ),
    ],
)
def test_an_unknown_field_names_file_document_and_path_with_a_close_match(
    tmp_path: Path, extra: str, path: str, detail: str
) -> None:
    with pytest.raises(ManifestError) as caught:
        load(tmp_path, "# pods\n" + POD.format(extra=extra))
    error = caught.value
    assert (error.document, error.path, error.detail) == (1, path, detail)
    assert str(error) == f"{tmp_path / 'pods.yaml'}: document 1: {path}: {detail}"


def test_a_list_wrapper_and_its_items_are_checked(tmp_path: Path) -> None:
    item = POD.format(extra="    imagee: x").replace("\n", "\n    ").rstrip()
    text = f"apiVersion: v1\nkind: List\nitems:\n  - {item}\nmetdata: {{}}\n"
    with pytest.raises(ManifestError) as caught:
        load(tmp_path, text)
    assert caught.value.path == "metdata"
    assert caught.value.detail == 'unknown field "metdata" (did you mean "metadata"?)'
    fixed = text.replace("metdata", "metadata")
    with pytest.raises(ManifestError) as caught:
        load(tmp_path, fixed)
    assert caught.value.path == "items[0].spec.containers[0].imagee"


def test_warn_keeps_loading_and_ignore_does_not_look(tmp_path: Path) -> None:
    text = POD.format(extra="    resource: {}\n    imagePullPolcy: Always")
    seen: list[str] = []
    loaded = load(tmp_path, text, validate="warn", warn=seen.append)
    assert len(loaded.objects) == 1
    assert seen == loaded.warnings
    assert [w.split(": ", 3)[2:] for w in seen] == [
        ["spec.containers[0].resource", 'unknown field "resource" (did you mean "resources"?)'],
        [
            "spec.containers[0].imagePullPolcy",
            'unknown field "imagePullPolcy" (did you mean "imagePullPolicy"?)',
        ],
    ]
    with pytest.warns(ManifestWarning) as record:
        load(tmp_path, text, validate="warn")
    assert [str(w.message) for w in record] == seen
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load(tmp_path, text, validate="ignore").warnings == []


def test_kinds_the_schema_does_not_know_are_not_checked(tmp_path: Path) -> None:
    loaded = load(tmp_path, "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: d}\nbogus: 1\n")
    assert [s.kind for s in loaded.skipped] == ["CronJob"]


@pytest.mark.parametrize(
    ("extra", "path", "detail"),
    [
        (
            "  tolerations: [{key: k, operator: Equals}]",
            "spec.tolerations[0].operator",
            'Unsupported value: "Equals": supported values: "Equal", "Exists"',
        ),
        (
            "  tolerations: [{key: k, effect: Never}]",
            "spec.tolerations[0].effect",
            'Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", '
            '"NoExecute"',
        ),
        (
            "  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, "
            "whenUnsatisfiable: Always}",
            "spec.topologySpreadConstraints[0].whenUnsatisfiable",
            'Unsupported value: "Always": supported values: "DoNotSchedule", "ScheduleAnyway"',
        ),
        (
            "    ports: [{containerPort: 80, protocol: HTTP}]",
            "spec.containers[0].ports[0].protocol",
            'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
        ),
        (
            "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuring"
            "Execution:\n        nodeSelectorTerms:\n        - matchExpressions:\n"
            "          - {key: zone, operator: Equals, values: [a]}",
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms[0].matchExpressions[0].operator",
            'Invalid value: "Equals": not a valid selector operator',
        ),
    ],
)
def test_a_value_outside_the_choices_reads_as_the_api_server_words_it(
    tmp_path: Path, extra: str, path: str, detail: str
) -> None:
    with pytest.raises(ManifestError) as caught:
        load(tmp_path, POD.format(extra=extra))
    assert (caught.value.path, caught.value.detail) == (path, detail)


def _aliases(model: type[BaseModel], type_name: str, seen: set[str]) -> list[str]:
    """Fields of `model` (and the models below it) missing from the schema's `type_name`."""
    if type_name in seen or not type_name:
        return []
    seen.add(type_name)
    fields = _schema()["types"][type_name]
    missing: list[str] = []
    for name, info in model.model_fields.items():
        alias = info.alias or name
        if alias not in fields:
            missing.append(f"{type_name}.{alias}")
            continue
        annotation: Any = info.annotation
        while get_origin(annotation) is not None:
            inner = [a for a in get_args(annotation) if a is not type(None)]
            annotation = inner[-1] if inner else None
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            missing += _aliases(annotation, fields[alias].lstrip("[]{}"), seen)
    return missing


@pytest.mark.parametrize(
    ("model", "key"),
    [
        (Pod, "v1/Pod"),
        (Node, "v1/Node"),
        (Namespace, "v1/Namespace"),
        (PriorityClass, "scheduling.k8s.io/v1/PriorityClass"),
    ],
)
def test_every_field_kubesched_reads_is_in_the_schema(model: type[BaseModel], key: str) -> None:
    assert _aliases(model, _schema()["kinds"][key], set()) == []


def test_the_schema_ships_in_the_package() -> None:
    schema = _schema()
    assert set(schema["kinds"]) >= {"v1/Pod", "v1/Node", "policy/v1/PodDisruptionBudget"}
    assert schema["types"][schema["list"]] == {
        "apiVersion": "",
        "kind": "",
        "items": "",
        "metadata": "V1ListMeta",
    }
    assert json.loads(json.dumps(schema)) == schema
