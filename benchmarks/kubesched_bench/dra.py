"""DynamicResources: pods that each get a device through a claim made from a template.

upstream: test/integration/scheduler_perf/dra/performance-config.yaml
(SchedulingWithResourceClaimTemplate) and its templates: `node-with-dra-test-driver.yaml`
(nodes `scheduler-perf-dra-<i>`, cpu 4, memory 32Gi, pods 110), the `createResourceDriver`
op (dra_test.go resourceSlice: one ResourceSlice per node, named after it, driver
`test-driver.cdi.k8s.io`, pool = node, devices `instance-<i>` with attributes model A100,
family GPU, driverVersion 1.2.3, dra.example.com/numa <i> and capacity memory 1Gi),
`deviceclass.yaml` (`test-class`, `device.driver == "test-driver.cdi.k8s.io"`),
`resourceclaimtemplate.yaml` (`test-claim-template`: one request `req-0` of that class, in
each namespace) and `pod-with-claim-template.yaml` (a pause pod without requests whose one
container uses the claim). Upstream chooses `maxClaimsPerNode` so the pods fill the cluster
exactly (5000pods_500nodes: 10; 2000pods_100nodes: 20); here it is
ceil((init pods + pods) / nodes), which gives upstream's values at upstream's sizes.

The resourceclaim controller (kubesched-dra's, embedded) makes each pod's claim; the
scheduler allocates and reserves it. Needs kubesched-dra.
"""

from __future__ import annotations

import math
import random
from typing import Any, Final

from kubesched.api import K8sModel, Node, Pod
from kubesched_bench.spec import Requirement, Size, Workload, index_width
from kubesched_bench.templates import INIT_NAMESPACE, MEASURED_NAMESPACE, clone_pod, default_node

__all__ = [
    "DEVICE_CLASS",
    "DRA",
    "DRIVER",
    "TEMPLATE",
    "max_claims_per_node",
    "scheduling_with_resource_claim_template",
]

DRA: Final = Requirement(
    distribution="kubesched-dra",
    source="./plugins-dra",
    provides="the resource.k8s.io kinds, the DynamicResources plugin, the resourceclaim controller",
)

DRIVER: Final = "test-driver.cdi.k8s.io"
DEVICE_CLASS: Final = "test-class"
TEMPLATE: Final = "test-claim-template"


def max_claims_per_node(size: Size) -> int:
    """Devices per node so that the init and measured pods fill the cluster exactly."""
    return max(1, math.ceil((size.init_pods + size.pods) / max(size.nodes, 1)))


def _resource(doc: dict[str, Any]) -> K8sModel:
    from kubesched_dra.api import (  # installed: WorkloadSpec.build checked
        DeviceClass,
        ResourceClaimTemplate,
        ResourceSlice,
    )

    kinds: dict[str, type[K8sModel]] = {
        "DeviceClass": DeviceClass,
        "ResourceClaimTemplate": ResourceClaimTemplate,
        "ResourceSlice": ResourceSlice,
    }
    return kinds[doc["kind"]].model_validate({"apiVersion": "resource.k8s.io/v1", **doc})


def _slice(node: str, devices: int) -> K8sModel:
    return _resource(
        {
            "kind": "ResourceSlice",
            "metadata": {"name": node},
            "spec": {
                "driver": DRIVER,
                "nodeName": node,
                "pool": {"name": node, "resourceSliceCount": 1},
                "devices": [
                    {
                        "name": f"instance-{i}",
                        "attributes": {
                            "model": {"string": "A100"},
                            "family": {"string": "GPU"},
                            "driverVersion": {"version": "1.2.3"},
                            "dra.example.com/numa": {"int": i},
                        },
                        "capacity": {"memory": {"value": "1Gi"}},
                    }
                    for i in range(devices)
                ],
            },
        }
    )


def _device_class() -> K8sModel:
    selector = {"cel": {"expression": f'device.driver == "{DRIVER}"'}}
    return _resource(
        {
            "kind": "DeviceClass",
            "metadata": {"name": DEVICE_CLASS},
            "spec": {"selectors": [selector]},
        }
    )


def _template(namespace: str) -> K8sModel:
    request = {"name": "req-0", "exactly": {"deviceClassName": DEVICE_CLASS}}
    return _resource(
        {
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": TEMPLATE, "namespace": namespace},
            "spec": {"spec": {"devices": {"requests": [request]}}},
        }
    )


def _pod_template(namespace: str) -> Pod:
    return Pod.model_validate(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "test-dra", "namespace": namespace},
            "spec": {
                "containers": [
                    {
                        "name": "pause",
                        "image": "registry.k8s.io/pause:3.10.1",
                        "resources": {"claims": [{"name": "resource"}]},
                    }
                ],
                "resourceClaims": [{"name": "resource", "resourceClaimTemplateName": TEMPLATE}],
            },
        }
    )


def _pods(namespace: str, count: int, width: int) -> list[Pod]:
    template = _pod_template(namespace)
    return [clone_pod(template, f"test-dra-{i:0{width}d}") for i in range(count)]


def scheduling_with_resource_claim_template(size: Size, rng: random.Random) -> Workload:
    """SchedulingWithResourceClaimTemplate: nodes that each publish
    `max_claims_per_node(size)` devices; init and measured pods each claim one."""
    del rng  # every object is fixed; the scheduler's seed decides ties
    width = index_width(size)
    names = [f"scheduler-perf-dra-{i:0{width}d}" for i in range(size.nodes)]
    nodes: list[Node] = [default_node(name) for name in names]
    devices = max_claims_per_node(size)
    return Workload(
        "SchedulingWithResourceClaimTemplate",
        size,
        nodes,
        _pods(INIT_NAMESPACE, size.init_pods, width),
        _pods(MEASURED_NAMESPACE, size.pods, width),
        setup=[
            *(_slice(name, devices) for name in names),
            _device_class(),
            _template(INIT_NAMESPACE),
        ],
        measured_setup=[_template(MEASURED_NAMESPACE)],
    )
