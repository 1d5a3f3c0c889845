"""ResourceSlice: the devices a driver publishes, in pools, as `kubectl get resourceslices
-o yaml` writes them.

upstream: staging/src/k8s.io/api/resource/v1/types.go (ResourceSlice, ResourceSliceSpec,
ResourcePool, Device, DeviceAttribute, DeviceCapacity, CounterSet, ...). Every v1.34
field is typed; which node a device is available on is `spec.nodeName`,
`spec.nodeSelector`, `spec.allNodes` or, with `spec.perDeviceNodeSelection`, the
device's own.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field, StrictBool, StrictInt, StrictStr

from kubesched.api import K8sModel, NodeSelector, ObjectMeta, Quantity
from kubesched_dra.api._device import DeviceTaint

__all__ = [
    "RESOURCE_SLICE_MAX_DEVICES",
    "RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS",
    "AttributeValue",
    "CapacityRequestPolicy",
    "CapacityRequestPolicyRange",
    "Counter",
    "CounterSet",
    "Device",
    "DeviceAttribute",
    "DeviceCapacity",
    "DeviceCounterConsumption",
    "ResourcePool",
    "ResourceSlice",
    "ResourceSliceSpec",
]

RESOURCE_SLICE_MAX_DEVICES: Final = 128
RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS: Final = 64

AttributeValue = int | bool | str
"""The value of a device attribute: an int, a bool, a string or a version (a string)."""


class DeviceAttribute(K8sModel):
    """Exactly one of `int`, `bool`, `string` and `version` (a semantic version)."""

    int_value: StrictInt | None = Field(default=None, alias="int")
    bool_value: StrictBool | None = Field(default=None, alias="bool")
    string_value: StrictStr | None = Field(default=None, alias="string")
    version_value: StrictStr | None = Field(default=None, alias="version")

    @property
    def set_fields(self) -> list[str]:
        """The JSON names of the fields that are set (one when the attribute is valid)."""
        pairs = (
            ("int", self.int_value),
            ("bool", self.bool_value),
            ("string", self.string_value),
            ("version", self.version_value),
        )
        return [name for name, value in pairs if value is not None]

    @property
    def value(self) -> AttributeValue | None:
        """The value that is set (the first one if several are), None if none is."""
        for value in (self.int_value, self.bool_value, self.string_value, self.version_value):
            if value is not None:
                return value
        return None


class CapacityRequestPolicyRange(K8sModel):
    min: Quantity | None = None
    max: Quantity | None = None
    step: Quantity | None = None


class CapacityRequestPolicy(K8sModel):
    """How requests consume a shareable device's capacity (DRAConsumableCapacity)."""

    default: Quantity | None = None
    valid_values: list[Quantity] = Field(default_factory=list)
    valid_range: CapacityRequestPolicyRange | None = None


class DeviceCapacity(K8sModel):
    value: Quantity
    request_policy: CapacityRequestPolicy | None = None


class Counter(K8sModel):
    value: Quantity


class CounterSet(K8sModel):
    """A named set of counters that devices of the pool consume (DRAPartitionableDevices)."""

    name: str = ""
    counters: dict[str, Counter] = Field(default_factory=dict)


class DeviceCounterConsumption(K8sModel):
    counter_set: str = ""
    counters: dict[str, Counter] = Field(default_factory=dict)


class Device(K8sModel):
    """One device, unique by (driver, pool, name). Attribute and capacity names are
    qualified names (`model` or `gpu.example.com/model`; unprefixed ones belong to the
    driver's domain)."""

    name: str = ""
    attributes: dict[str, DeviceAttribute] = Field(default_factory=dict)
    capacity: dict[str, DeviceCapacity] = Field(default_factory=dict)
    consumes_counters: list[DeviceCounterConsumption] = Field(default_factory=list)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[DeviceTaint] = Field(default_factory=list)
    binds_to_node: bool | None = None
    binding_conditions: list[str] = Field(default_factory=list)
    binding_failure_conditions: list[str] = Field(default_factory=list)
    allow_multiple_allocations: bool | None = None


class ResourcePool(K8sModel):
    """The pool a slice belongs to: only slices of the pool's highest generation count,
    and the pool is complete when `resourceSliceCount` slices of it are seen."""

    name: str = ""
    generation: int = 0
    resource_slice_count: int = 0


class ResourceSliceSpec(K8sModel):
    driver: str = ""
    pool: ResourcePool = Field(default_factory=ResourcePool)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    devices: list[Device] = Field(default_factory=list)
    per_device_node_selection: bool | None = None
    shared_counters: list[CounterSet] = Field(default_factory=list)


class ResourceSlice(K8sModel):
    api_version: str = "resource.k8s.io/v1"
    kind: Literal["ResourceSlice"] = "ResourceSlice"
    metadata: ObjectMeta
    spec: ResourceSliceSpec = Field(default_factory=ResourceSliceSpec)

    @property
    def name(self) -> str:
        return self.metadata.name
