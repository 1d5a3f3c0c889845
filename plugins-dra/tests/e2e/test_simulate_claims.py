"""`kubesched simulate` with kubesched-dra installed: a DeviceInventory becomes
ResourceSlices on its nodes, pods get claims made from their templates, and the claim of
a pod that finishes is deleted, all through the installed entry points (what the
DynamicResources plugin allocates is its own tests' concern)."""

from __future__ import annotations

from pathlib import Path

from kubesched.api import Pod
from kubesched.cluster.memory import default_kinds
from kubesched.config import load_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, load_manifests
from kubesched_dra.api import POD_RESOURCE_CLAIM_ANNOTATION, ResourceClaim, ResourceSlice

MANIFESTS = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-node
  labels: {gpu: h100}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: cpu-node
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
---
apiVersion: simulation.kubesched.io/v1alpha1
kind: DeviceInventory
metadata:
  name: h100
spec:
  driver: gpu.example.com
  nodeSelector:
    matchLabels: {gpu: h100}
  devices:
  - namePrefix: gpu
    count: 4
    attributes: {model: H100}
    capacity: {memory: 80Gi}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == 'gpu.example.com'
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
---
apiVersion: v1
kind: Pod
metadata:
  name: short-job
  annotations:
    simulation.kubesched.io/duration: 60s
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: one-gpu
  containers:
  - name: main
    image: trainer
    resources:
      requests: {cpu: "1"}
      claims:
      - name: gpu
---
apiVersion: v1
kind: Pod
metadata:
  name: long-job
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: one-gpu
  containers:
  - name: main
    image: trainer
    resources:
      requests: {cpu: "1"}
      claims:
      - name: gpu
"""


def test_inventories_and_template_claims_in_a_simulation(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(MANIFESTS, encoding="utf-8")
    pm = make_plugin_manager()  # the installed entry points: kubesched-dra's hook among them
    registry = PluginRegistry.discover()
    loaded = load_manifests([path], default_kinds(pm))
    sim = Simulation(loaded.objects, resolve(load_config(None), registry), registry, hooks=pm)
    result = sim.run()

    assert {p.name: (p.status, p.node) for p in result.pods} == {
        "short-job": ("Succeeded", "gpu-node"),
        "long-job": ("Bound", "gpu-node"),
    }
    (published,) = [s for s in sim.cluster.list("ResourceSlice") if isinstance(s, ResourceSlice)]
    assert published.spec.node_name == "gpu-node"
    assert [d.name for d in published.spec.devices] == ["gpu-0", "gpu-1", "gpu-2", "gpu-3"]
    # the finished pod's claim is gone; the running pod's stays, recorded in its status
    (claim,) = [c for c in sim.cluster.list("ResourceClaim") if isinstance(c, ResourceClaim)]
    assert claim.metadata.annotations[POD_RESOURCE_CLAIM_ANNOTATION] == "gpu"
    assert claim.metadata.owner_references[0].name == "long-job"
    long_job = sim.cluster.get("Pod", "long-job", "default")
    assert isinstance(long_job, Pod)
    assert [s.resource_claim_name for s in long_job.status.resource_claim_statuses] == [
        claim.metadata.name
    ]
