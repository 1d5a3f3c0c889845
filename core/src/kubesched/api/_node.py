"""Nodes, as far as a scheduler reads them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kubesched.api._base import K8sModel, ResourceList
from kubesched.api._meta import ObjectMeta
from kubesched.api._taints import Taint

__all__ = ["ContainerImage", "Node", "NodeCondition", "NodeSpec", "NodeStatus"]


class NodeSpec(K8sModel):
    unschedulable: bool = False
    taints: list[Taint] = Field(default_factory=list)
    pod_cidr: str | None = Field(default=None, alias="podCIDR")


class NodeCondition(K8sModel):
    type: str
    status: str
    reason: str = ""
    message: str = ""


class ContainerImage(K8sModel):
    names: list[str] = Field(default_factory=list)
    size_bytes: int = 0


class NodeStatus(K8sModel):
    capacity: ResourceList = Field(default_factory=dict)
    allocatable: ResourceList = Field(default_factory=dict)
    conditions: list[NodeCondition] = Field(default_factory=list)
    images: list[ContainerImage] = Field(default_factory=list)


class Node(K8sModel):
    api_version: str = "v1"
    kind: Literal["Node"] = "Node"
    metadata: ObjectMeta
    spec: NodeSpec = Field(default_factory=NodeSpec)
    status: NodeStatus = Field(default_factory=NodeStatus)

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def allocatable(self) -> ResourceList:
        """`status.allocatable`, falling back to `status.capacity` as the kubelet would."""
        return self.status.allocatable or self.status.capacity
