"""DynamicResources in the default profile, end to end on the memory cluster: claims made
from templates by the resourceclaim controller, devices never given twice, a shared claim,
and the messages a user reads."""

from __future__ import annotations

from dra_plugin_helpers import objects, run

NODES = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.example.com'"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu}
"""


def templated_pod(name: str) -> str:
    return f"""\
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  containers: [{{name: c, image: x, resources: {{claims: [{{name: gpu}}]}}}}]
  resourceClaims: [{{name: gpu, resourceClaimTemplateName: one-gpu}}]
"""


def test_template_claims_get_distinct_devices_until_none_is_left() -> None:
    r = run(objects(NODES + "".join(templated_pod(f"p{i}") for i in range(3))))
    bound = {p: r.node_of(p) for p in ("p0", "p1", "p2") if r.node_of(p)}
    assert sorted(bound) == ["p0", "p1"] and set(bound.values()) == {"n1"}
    devices = []
    for name in bound:
        pod = r.pod(name)
        (status,) = pod.status.resource_claim_statuses
        assert status.resource_claim_name is not None
        devices += r.devices(status.resource_claim_name)
        claim = r.claim(status.resource_claim_name)
        assert [ref.uid for ref in claim.status.reserved_for] == [pod.metadata.uid]
    assert sorted(devices) == ["n1/gpu-0", "n1/gpu-1"]
    assert r.message("p2") == (
        "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    )


def test_missing_class_keeps_the_pod_out_with_upstreams_message() -> None:
    claim = """\
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: nope}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: r, resourceClaimName: c}]
"""
    r = run(objects(NODES + claim))
    # its own PreFilter rejected the pod: the state it wrote first holds no claims yet
    assert r.message("p") == (
        "0/2 nodes are available: request r: device class nope does not exist. "
        "no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is "
        "not helpful for scheduling."
    )
