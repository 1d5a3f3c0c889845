"""The resource.k8s.io/v1 kinds load from `kubectl get -o yaml` output, every field as
upstream's types.go names it, with the API server's defaults."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from dra_helpers import load_text, only

from kubesched.api import Pod
from kubesched_dra.api import (
    DeviceClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)

SLICES = """\
apiVersion: v1
items:
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata:
    creationTimestamp: "2025-08-28T10:00:00Z"
    generateName: worker-1-gpu.example.com-
    generation: 1
    managedFields:
    - manager: kubelet
      operation: Update
    name: worker-1-gpu.example.com-lqlhz
    ownerReferences:
    - apiVersion: v1
      controller: true
      kind: Node
      name: worker-1
      uid: 7e0c8c6a-0000-4000-8000-000000000001
    resourceVersion: "1209"
    uid: 5b1f7e0e-0000-4000-8000-000000000002
  spec:
    devices:
    - attributes:
        driverVersion:
          version: 1.0.0
        index:
          int: 0
        model:
          string: LATEST-GPU-MODEL
        gpu.example.com/nvlink:
          bool: true
      capacity:
        memory:
          value: 80Gi
      name: gpu-0
    - name: gpu-1
      taints:
      - effect: NoSchedule
        key: example.com/broken
        timeAdded: "2025-08-28T10:05:00Z"
    driver: gpu.example.com
    nodeName: worker-1
    pool:
      generation: 1
      name: worker-1
      resourceSliceCount: 1
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata:
    name: fabric
  spec:
    driver: nic.example.com
    nodeSelector:
      nodeSelectorTerms:
      - matchExpressions:
        - key: rack
          operator: In
          values: [r1]
    pool:
      generation: 3
      name: fabric
      resourceSliceCount: 2
    sharedCounters:
    - name: bandwidth
      counters:
        gbps:
          value: "100"
kind: List
metadata:
  resourceVersion: ""
"""


def test_resource_slices_load_as_kubectl_writes_them(tmp_path: Path) -> None:
    loaded = load_text(tmp_path, SLICES)
    local, fabric = loaded.objects
    assert isinstance(local, ResourceSlice) and isinstance(fabric, ResourceSlice)
    spec = local.spec
    assert (spec.driver, spec.node_name, spec.node_selector, spec.all_nodes) == (
        "gpu.example.com",
        "worker-1",
        None,
        None,
    )
    assert (spec.pool.name, spec.pool.generation, spec.pool.resource_slice_count) == (
        "worker-1",
        1,
        1,
    )
    gpu0, gpu1 = spec.devices
    assert {name: a.value for name, a in gpu0.attributes.items()} == {
        "driverVersion": "1.0.0",
        "index": 0,
        "model": "LATEST-GPU-MODEL",
        "gpu.example.com/nvlink": True,
    }
    assert gpu0.attributes["driverVersion"].set_fields == ["version"]
    assert gpu0.attributes["index"].set_fields == ["int"]
    assert gpu0.capacity["memory"].value == Fraction(80 * 2**30)
    assert [(t.key, t.effect) for t in gpu1.taints] == [("example.com/broken", "NoSchedule")]
    assert fabric.spec.node_name is None
    assert fabric.spec.node_selector is not None
    assert fabric.spec.node_selector.matches("n", {"rack": "r1"})
    assert fabric.spec.shared_counters[0].counters["gbps"].value == 100
    assert fabric.spec.pool.resource_slice_count == 2


CLAIMS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == 'gpu.example.com'
  config:
  - opaque:
      driver: gpu.example.com
      parameters:
        apiVersion: gpu.example.com/v1
        kind: GpuConfig
        sharing: TimeSlicing
  extendedResourceName: example.com/gpu
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: two-gpus
  namespace: ml
spec:
  metadata:
    labels:
      team: ml
  spec:
    devices:
      requests:
      - name: gpus
        exactly:
          deviceClassName: gpu.example.com
          count: 2
          selectors:
          - cel:
              expression: device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0
      constraints:
      - requests: [gpus]
        matchAttribute: gpu.example.com/numa
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: shared
  namespace: ml
spec:
  devices:
    requests:
    - name: any
      firstAvailable:
      - name: big
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.attributes['gpu.example.com'].model == 'H100'
      - name: small
        deviceClassName: gpu.example.com
        allocationMode: All
    - name: admin
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: All
        adminAccess: true
        tolerations:
        - key: example.com/broken
          operator: Exists
          effect: NoSchedule
    config:
    - requests: [any/big]
      opaque:
        driver: gpu.example.com
        parameters: {mode: exclusive}
status:
  allocation:
    devices:
      results:
      - request: any/big
        driver: gpu.example.com
        pool: worker-1
        device: gpu-0
      config:
      - source: FromClass
        opaque:
          driver: gpu.example.com
          parameters: {sharing: TimeSlicing}
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - key: metadata.name
          operator: In
          values: [worker-1]
  reservedFor:
  - resource: pods
    name: trainer-0
    uid: 3a1c0000-0000-4000-8000-000000000003
  devices:
  - driver: gpu.example.com
    pool: worker-1
    device: gpu-0
    conditions:
    - type: Ready
      status: "True"
      reason: Prepared
      message: ""
      lastTransitionTime: "2025-08-28T10:06:00Z"
    networkData:
      interfaceName: eth1
      ips: [10.0.0.5/24]
"""


def test_claims_templates_and_classes_load_with_upstream_defaults(tmp_path: Path) -> None:
    loaded = load_text(tmp_path, CLAIMS)
    by_kind = {type(o).__name__: o for o in loaded.objects}
    device_class = by_kind["DeviceClass"]
    assert isinstance(device_class, DeviceClass)
    (selector,) = device_class.spec.selectors
    assert selector.cel is not None and selector.cel.expression.startswith("device.driver")
    (config,) = device_class.spec.config
    assert config.opaque is not None and config.opaque.parameters["sharing"] == "TimeSlicing"
    assert device_class.spec.extended_resource_name == "example.com/gpu"

    template = by_kind["ResourceClaimTemplate"]
    assert isinstance(template, ResourceClaimTemplate)
    assert template.spec.metadata.labels == {"team": "ml"}
    (request,) = template.spec.spec.devices.requests
    assert request.exactly is not None
    assert (request.exactly.allocation_mode, request.exactly.count) == ("ExactCount", 2)
    (constraint,) = template.spec.spec.devices.constraints
    assert (constraint.requests, constraint.match_attribute) == (
        ["gpus"],
        "gpu.example.com/numa",
    )

    claim = by_kind["ResourceClaim"]
    assert isinstance(claim, ResourceClaim)
    first, admin = claim.spec.devices.requests
    assert first.exactly is None
    big, small = first.first_available
    # upstream defaulting: ExactCount with count 1 when unset; All keeps count 0
    assert (big.name, big.allocation_mode, big.count) == ("big", "ExactCount", 1)
    assert (small.name, small.allocation_mode, small.count) == ("small", "All", 0)
    assert admin.exactly is not None
    assert (admin.exactly.allocation_mode, admin.exactly.count) == ("All", 0)
    assert admin.exactly.admin_access is True
    (toleration,) = admin.exactly.tolerations
    assert (toleration.key, toleration.operator, toleration.effect) == (
        "example.com/broken",
        "Exists",
        "NoSchedule",
    )
    assert claim.spec.devices.config[0].requests == ["any/big"]

    allocation = claim.status.allocation
    assert allocation is not None
    (result,) = allocation.devices.results
    assert (result.request, result.driver, result.pool, result.device) == (
        "any/big",
        "gpu.example.com",
        "worker-1",
        "gpu-0",
    )
    assert allocation.devices.config[0].source == "FromClass"
    assert allocation.node_selector is not None
    assert allocation.node_selector.matches("worker-1", {})
    assert not allocation.node_selector.matches("worker-2", {})
    assert claim.is_reserved_for("3a1c0000-0000-4000-8000-000000000003")
    assert not claim.is_reserved_for("other")
    (status,) = claim.status.devices
    assert status.conditions[0]["type"] == "Ready"
    assert status.network_data is not None and status.network_data.ips == ["10.0.0.5/24"]


def test_a_claim_round_trips_through_to_dict(tmp_path: Path) -> None:
    claim = next(o for o in load_text(tmp_path, CLAIMS).objects if isinstance(o, ResourceClaim))
    again = ResourceClaim.model_validate(claim.to_dict())
    assert again == claim
    written = claim.to_dict()
    assert written["spec"]["devices"]["requests"][0]["firstAvailable"][0]["count"] == 1
    assert written["status"]["reservedFor"][0]["resource"] == "pods"


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer-0
  namespace: ml
spec:
  resourceClaims:
  - name: gpus
    resourceClaimTemplateName: two-gpus
  - name: shared
    resourceClaimName: shared
  containers:
  - name: main
    image: trainer
    resources:
      claims:
      - name: gpus
      - name: shared
        request: any
status:
  resourceClaimStatuses:
  - name: gpus
    resourceClaimName: trainer-0-gpus-x7k2p
"""


def test_pods_carry_their_resource_claims(tmp_path: Path) -> None:
    pod = only(load_text(tmp_path, POD))
    assert isinstance(pod, Pod)
    assert [
        (c.name, c.resource_claim_name, c.resource_claim_template_name)
        for c in pod.spec.resource_claims
    ] == [("gpus", None, "two-gpus"), ("shared", "shared", None)]
    claims = pod.spec.containers[0].resources.claims
    assert [(c.name, c.request) for c in claims] == [("gpus", ""), ("shared", "any")]
    assert [(s.name, s.resource_claim_name) for s in pod.status.resource_claim_statuses] == [
        ("gpus", "trainer-0-gpus-x7k2p")
    ]
    written = pod.to_dict()
    assert written["spec"]["resourceClaims"][0] == {
        "name": "gpus",
        "resourceClaimTemplateName": "two-gpus",
    }
    assert written["status"]["resourceClaimStatuses"] == [
        {"name": "gpus", "resourceClaimName": "trainer-0-gpus-x7k2p"}
    ]
