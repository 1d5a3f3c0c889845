"""DeviceInventory (simulation.kubesched.io/v1alpha1): the devices of many nodes in a few
lines, for examples and what-if runs, where `kubectl get resourceslices -o yaml` output
would be hundreds of lines.

```yaml
apiVersion: simulation.kubesched.io/v1alpha1
kind: DeviceInventory
metadata:
  name: h100-nodes
spec:
  driver: gpu.example.com
  nodeSelector:                  # a label selector on nodes; or `nodes: [name, ...]`
    matchLabels: {gpu: h100}
  devices:
  - namePrefix: gpu              # gpu-0 ... gpu-7 on every selected node
    count: 8
    indexAttribute: index        # an int attribute holding each device's number
    attributes:                  # int, bool and string values as they are; a version
      model: H100                # as {version: 1.2.3}
      gpu.example.com/nvlink: true
    capacity:
      memory: 80Gi
```

Each selected node gets its own pool (named after the node) of ResourceSlices with
`nodeName` set, as a node-local driver's kubelet plugin publishes them
(`kubesched_dra.inventory.slices_for`).
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import BeforeValidator, Field

from kubesched.api import K8sModel, LabelSelector, ObjectMeta
from kubesched_dra.api import DeviceAttribute, DeviceCapacity, DeviceTaint

__all__ = [
    "INVENTORY_API_VERSION",
    "AttributeShorthand",
    "CapacityShorthand",
    "DeviceInventory",
    "DeviceInventorySpec",
    "DeviceSet",
]

INVENTORY_API_VERSION: Final = "simulation.kubesched.io/v1alpha1"

_ATTRIBUTE_EXPECTED: Final = (
    "expected a bool, an int, a string or one of {int: ...}, {bool: ...}, {string: ...}, "
    "{version: ...}"
)


def _attribute(value: Any) -> Any:
    """A plain bool, int or string as the attribute holding it; the long form as it is."""
    if isinstance(value, dict | DeviceAttribute):
        return value
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, str):
        return {"string": value}
    raise ValueError(_ATTRIBUTE_EXPECTED)


def _capacity(value: Any) -> Any:
    """A quantity as the capacity of that value; the long form as it is."""
    return value if isinstance(value, dict | DeviceCapacity) else {"value": value}


AttributeShorthand = Annotated[DeviceAttribute, BeforeValidator(_attribute)]
"""An attribute as a plain value (bool, int or string) or in ResourceSlice's form."""

CapacityShorthand = Annotated[DeviceCapacity, BeforeValidator(_capacity)]
"""A capacity as a quantity (`80Gi`) or in ResourceSlice's form (`{value: 80Gi}`)."""


class DeviceSet(K8sModel):
    """`count` devices named `<namePrefix>-<i>` (or one device named `name`) with the same
    attributes and capacities."""

    name: str | None = None
    name_prefix: str | None = None
    count: int = 1
    index_attribute: str | None = None
    attributes: dict[str, AttributeShorthand] = Field(default_factory=dict)
    capacity: dict[str, CapacityShorthand] = Field(default_factory=dict)
    taints: list[DeviceTaint] = Field(default_factory=list)

    def device_names(self) -> list[str]:
        if self.name_prefix is None:
            return [self.name or ""]
        return [f"{self.name_prefix}-{i}" for i in range(self.count)]


class DeviceInventorySpec(K8sModel):
    driver: str = ""
    nodes: list[str] | None = None
    node_selector: LabelSelector | None = None
    devices: list[DeviceSet] = Field(default_factory=list)


class DeviceInventory(K8sModel):
    api_version: str = INVENTORY_API_VERSION
    kind: Literal["DeviceInventory"] = "DeviceInventory"
    metadata: ObjectMeta
    spec: DeviceInventorySpec = Field(default_factory=DeviceInventorySpec)

    def selects(self, name: str, labels: dict[str, str]) -> bool:
        """Whether the node `name` with `labels` gets these devices."""
        if self.spec.nodes is not None:
            return name in self.spec.nodes
        return self.spec.node_selector is not None and self.spec.node_selector.matches(labels)
