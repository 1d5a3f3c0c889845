"""Objects of the DynamicResources point tests, after upstream dynamicresources_test.go:
a worker node with a slice of devices, a class, claims (by name or generated from a
template), pods referencing them; and the plugin built with a real Handle over them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

from kubesched.api import K8sModel, Node, Pod
from kubesched.clock import VirtualTimeLoop
from kubesched.framework import CycleState, Status
from kubesched.testing import PluginHarness, Scenario, make_node, make_pod
from kubesched_dra.api import DeviceClass, ResourceClaim, ResourceSlice
from kubesched_dra.dynamicresources import DynamicResources, DynamicResourcesArgs

__all__ = [
    "CLASS",
    "DRIVER",
    "POD_UID",
    "Points",
    "allocated",
    "claim",
    "device_class",
    "generated_claim",
    "node",
    "pod_with_claim",
    "pod_with_template",
    "reserved_for",
    "slice_of",
]

_T = TypeVar("_T")

DRIVER = "some-driver"
CLASS = "my-resource-class"
POD_UID = "1234"


def node(name: str, **labels: str) -> Node:
    return make_node(name).alloc(cpu="8", memory="16Gi", pods=110).label(**labels).obj()


def device_class(name: str = CLASS, expression: str | None = None) -> DeviceClass:
    spec: dict[str, Any] = {}
    if expression is not None:
        spec["selectors"] = [{"cel": {"expression": expression}}]
    return DeviceClass.model_validate({"metadata": {"name": name}, "spec": spec})


def slice_of(node_name: str, *devices: str, driver: str = DRIVER) -> ResourceSlice:
    return ResourceSlice.model_validate(
        {
            "metadata": {"name": f"{node_name}-slice"},
            "spec": {
                "driver": driver,
                "nodeName": node_name,
                "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": d} for d in devices],
            },
        }
    )


def claim(name: str = "my-pod-my-resource", count: int = 1, uid: str = "") -> ResourceClaim:
    request = {"name": "req-1", "exactly": {"deviceClassName": CLASS, "count": count}}
    return ResourceClaim.model_validate(
        {
            "metadata": {"name": name, "namespace": "default", "uid": uid or f"uid-{name}"},
            "spec": {"devices": {"requests": [request]}},
        }
    )


def generated_claim(pod_uid: str = POD_UID) -> ResourceClaim:
    """The claim the resourceclaim controller made for my-pod from its template."""
    data = claim().model_dump(by_alias=True)
    owner = {"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": pod_uid}
    data["metadata"]["ownerReferences"] = [{**owner, "controller": True}]
    return ResourceClaim.model_validate(data)


def allocated(
    c: ResourceClaim, node_name: str = "worker", device: str = "instance-1"
) -> ResourceClaim:
    """`c` allocated the way the allocator would on `node_name`."""
    data = c.model_dump(by_alias=True)
    data["status"]["allocation"] = {
        "devices": {
            "results": [{"request": "req-1", "driver": DRIVER, "pool": node_name, "device": device}]
        },
        "nodeSelector": {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
            ]
        },
    }
    return ResourceClaim.model_validate(data)


def reserved_for(c: ResourceClaim, *uids: str) -> ResourceClaim:
    data = c.model_dump(by_alias=True)
    data["status"]["reservedFor"] = [
        {"resource": "pods", "name": f"pod-{u}", "uid": u} for u in uids
    ]
    return ResourceClaim.model_validate(data)


def pod_with_claim(
    claim_name: str = "my-pod-my-resource", name: str = "my-pod", uid: str = POD_UID
) -> Pod:
    return (
        make_pod(name)
        .uid(uid)
        .req(cpu="100m")
        .spec(resourceClaims=[{"name": "my-resource", "resourceClaimName": claim_name}])
        .obj()
    )


def pod_with_template(*, generated: str | None = "my-pod-my-resource") -> Pod:
    """my-pod with a claim from a template; `generated`: the claim name in its status
    (None: the controller has not created it yet)."""
    pod = (
        make_pod("my-pod")
        .uid(POD_UID)
        .req(cpu="100m")
        .spec(resourceClaims=[{"name": "my-resource", "resourceClaimTemplateName": "tmpl"}])
        .obj()
    )
    if generated is None:
        return pod
    data = pod.model_dump(by_alias=True)
    data["status"]["resourceClaimStatuses"] = [
        {"name": "my-resource", "resourceClaimName": generated}
    ]
    return Pod.model_validate(data)


class Points:
    """The plugin over a cluster holding `objects`, the nodes and `pod`."""

    def __init__(
        self,
        pod: Pod,
        nodes: Sequence[Node],
        objects: Sequence[K8sModel],
        args: DynamicResourcesArgs | None = None,
    ) -> None:
        self.harness = PluginHarness(
            DynamicResources, args or DynamicResourcesArgs(), Scenario(nodes, [], pod), objects
        )
        plugin = self.harness.plugin
        assert isinstance(plugin, DynamicResources)
        self.plugin = plugin
        self.pod = pod
        self.state = CycleState()

    def pre_filter(self) -> Status | None:
        _, status = self.plugin.pre_filter(self.state, self.pod, self.harness.nodes)
        return status

    def filter(self) -> dict[str, Status | None]:
        return {n.name: self.plugin.filter(self.state, self.pod, n) for n in self.harness.nodes}

    def reserve(self, node_name: str = "worker") -> None:
        """PreFilter, Filter on every node, then Reserve on `node_name`; each succeeds."""
        assert self.pre_filter() is None
        self.filter()
        assert self.plugin.reserve(self.state, self.pod, node_name) is None

    def run(self, work: Awaitable[_T]) -> _T:
        """Await `work` on the harness's virtual clock, then let the tasks it started
        and the watch events it caused finish."""

        async def main() -> _T:
            value = await work
            while self.plugin.tasks:
                await asyncio.gather(*self.plugin.tasks)
            await asyncio.sleep(0)
            return value

        loop = VirtualTimeLoop(self.harness.clock)
        try:
            return loop.run_until_complete(main())
        finally:
            loop.close()

    def claim(self, name: str = "my-pod-my-resource") -> ResourceClaim:
        found = self.harness.cluster.get("ResourceClaim", name, "default")
        assert isinstance(found, ResourceClaim)
        return found
