"""The conformance kit on DynamicResources, with pods that claim devices: every generated
pod gets a ResourceClaim asking for 0 (no claim), 1 or 2 devices of a class, and every
other node publishes two devices, so Filter accepts some nodes and rejects others."""

from __future__ import annotations

from collections.abc import Sequence

import hypothesis.strategies as st

import kubesched.testing.strategies as kst
from kubesched.api import K8sModel, Node, Pod, PodResourceClaim
from kubesched.testing import ClusterScenario, Scenario
from kubesched.testing.contracts import PluginConformance
from kubesched_dra.api import DeviceClass, ResourceClaim, ResourceSlice
from kubesched_dra.dynamicresources import DynamicResources

DRIVER = "gpu.example.com"
CLASS = "gpu"


def _device_class() -> DeviceClass:
    selector = {"cel": {"expression": f"device.driver == '{DRIVER}'"}}
    return DeviceClass.model_validate(
        {"metadata": {"name": CLASS}, "spec": {"selectors": [selector]}}
    )


def _slices(nodes: Sequence[Node]) -> list[ResourceSlice]:
    return [
        ResourceSlice.model_validate(
            {
                "metadata": {"name": f"{n.metadata.name}-gpus"},
                "spec": {
                    "driver": DRIVER,
                    "nodeName": n.metadata.name,
                    "pool": {"name": n.metadata.name, "resourceSliceCount": 1},
                    "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}],
                },
            }
        )
        for i, n in enumerate(nodes)
        if i % 2 == 0
    ]


def _claim_name(pod: Pod, count: int) -> str:
    return f"{pod.metadata.name}-gpus-{count}"


def _with_claim(pod: Pod, count: int) -> Pod:
    if count == 0:
        return pod
    entry = PodResourceClaim(name="gpus", resource_claim_name=_claim_name(pod, count))
    spec = pod.spec.model_copy(update={"resource_claims": [entry]})
    return pod.model_copy(update={"spec": spec})


def _claims(pods: Sequence[Pod]) -> list[ResourceClaim]:
    claims = []
    for pod in pods:
        for entry in pod.spec.resource_claims:
            name = entry.resource_claim_name or ""
            count = int(name.rsplit("-", 1)[1])
            request = {"name": "gpu", "exactly": {"deviceClassName": CLASS, "count": count}}
            claims.append(
                ResourceClaim.model_validate(
                    {
                        "metadata": {
                            "name": name,
                            "namespace": pod.metadata.namespace or "default",
                        },
                        "spec": {"devices": {"requests": [request]}},
                    }
                )
            )
    return claims


class TestDynamicResourcesConformance(PluginConformance):
    plugin_cls = DynamicResources

    def scenarios(self) -> st.SearchStrategy[Scenario]:
        return st.tuples(kst.scenarios(), st.integers(0, 2)).map(
            lambda t: Scenario(t[0].nodes, t[0].existing, _with_claim(t[0].pod, t[1]), t[0].other)
        )

    def cluster_objects(self, scenario: Scenario) -> Sequence[K8sModel]:
        return [_device_class(), *_slices(scenario.nodes), *_claims([scenario.pod])]

    def cluster_scenarios(self) -> st.SearchStrategy[ClusterScenario]:
        def build(drawn: tuple[ClusterScenario, list[int]]) -> ClusterScenario:
            base, counts = drawn
            pending = [_with_claim(p, counts[i % len(counts)]) for i, p in enumerate(base.pending)]
            extra = [*base.extra, _device_class(), *_slices(base.nodes), *_claims(pending)]
            return ClusterScenario(base.nodes, base.bound, pending, extra)

        return st.tuples(kst.cluster_scenarios(), st.lists(st.integers(0, 2), min_size=1)).map(
            build
        )
