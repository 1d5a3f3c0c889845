"""ResourceClaim and ResourceClaimTemplate: what a pod asks for and what it got.

upstream: staging/src/k8s.io/api/resource/v1/types.go (ResourceClaim, DeviceClaim,
DeviceRequest, ExactDeviceRequest, DeviceSubRequest, DeviceConstraint,
ResourceClaimStatus, AllocationResult, ...) and pkg/apis/resource/v1/defaults.go: a
request's `allocationMode` defaults to ExactCount and, in that mode, `count` to 1.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final, Literal

from pydantic import Field, model_validator

from kubesched.api import K8sModel, NodeSelector, ObjectMeta, Quantity
from kubesched_dra.api._device import DeviceConfiguration, DeviceSelector, DeviceToleration

__all__ = [
    "ALLOCATION_MODE_ALL",
    "ALLOCATION_MODE_EXACT_COUNT",
    "FINALIZER",
    "POD_RESOURCE_CLAIM_ANNOTATION",
    "RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE",
    "AllocatedDeviceStatus",
    "AllocationMode",
    "AllocationResult",
    "CapacityRequirements",
    "DeviceAllocationConfiguration",
    "DeviceAllocationResult",
    "DeviceClaim",
    "DeviceClaimConfiguration",
    "DeviceConstraint",
    "DeviceRequest",
    "DeviceRequestAllocationResult",
    "DeviceSubRequest",
    "ExactDeviceRequest",
    "NetworkDeviceData",
    "ResourceClaim",
    "ResourceClaimConsumerReference",
    "ResourceClaimSpec",
    "ResourceClaimStatus",
    "ResourceClaimTemplate",
    "ResourceClaimTemplateSpec",
]

FINALIZER: Final = "resource.kubernetes.io/delete-protection"
"""upstream resourceapi.Finalizer: set on claims allocated by the scheduler."""

POD_RESOURCE_CLAIM_ANNOTATION: Final = "resource.kubernetes.io/pod-claim-name"
"""upstream resourceapi.PodResourceClaimAnnotation: on a template-generated claim, the
pod's `spec.resourceClaims[].name` it was generated for."""

RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE: Final = 256

ALLOCATION_MODE_EXACT_COUNT: Final = "ExactCount"
ALLOCATION_MODE_ALL: Final = "All"

AllocationMode = Literal["All", "ExactCount"]
"""upstream DeviceAllocationMode; listed in the order upstream's NotSupported error lists
them."""


class CapacityRequirements(K8sModel):
    """Per-device capacity a request consumes from a shareable device."""

    requests: dict[str, Quantity] = Field(default_factory=dict)


class _DeviceRequestFields(K8sModel):
    """What an exact request and a subrequest have in common, with their defaulting."""

    device_class_name: str = ""
    selectors: list[DeviceSelector] = Field(default_factory=list)
    allocation_mode: AllocationMode = "ExactCount"
    count: int = 0
    tolerations: list[DeviceToleration] = Field(default_factory=list)
    capacity: CapacityRequirements | None = None

    @model_validator(mode="after")
    def _default_count(self) -> _DeviceRequestFields:
        # upstream pkg/apis/resource/v1/defaults.go (SetDefaults_ExactDeviceRequest,
        # SetDefaults_DeviceSubRequest)
        if self.allocation_mode == ALLOCATION_MODE_EXACT_COUNT and self.count == 0:
            self.count = 1
        return self


class ExactDeviceRequest(_DeviceRequestFields):
    """A request for `count` devices of a class (or all matching ones, `All`)."""

    admin_access: bool | None = None


class DeviceSubRequest(_DeviceRequestFields):
    """One alternative of a `firstAvailable` list, referred to as `<request>/<name>`."""

    name: str = ""


class DeviceRequest(K8sModel):
    """Exactly one of `exactly` and `firstAvailable` (prioritized alternatives)."""

    name: str = ""
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] = Field(default_factory=list)


class DeviceConstraint(K8sModel):
    """Devices of `requests` (all of the claim's when empty) must share the value of
    `matchAttribute` (or all differ in `distinctAttribute`)."""

    requests: list[str] = Field(default_factory=list)
    match_attribute: str | None = None
    distinct_attribute: str | None = None


class DeviceClaimConfiguration(DeviceConfiguration):
    requests: list[str] = Field(default_factory=list)


class DeviceClaim(K8sModel):
    requests: list[DeviceRequest] = Field(default_factory=list)
    constraints: list[DeviceConstraint] = Field(default_factory=list)
    config: list[DeviceClaimConfiguration] = Field(default_factory=list)


class ResourceClaimSpec(K8sModel):
    devices: DeviceClaim = Field(default_factory=DeviceClaim)


class ResourceClaimConsumerReference(K8sModel):
    """A user of the claim in its namespace; the scheduler writes pods (`resource:
    pods`, empty `apiGroup`)."""

    api_group: str = ""
    resource: str = ""
    name: str = ""
    uid: str = ""


class DeviceRequestAllocationResult(K8sModel):
    """One allocated device: `request` is `<request>` or `<request>/<subrequest>`."""

    request: str = ""
    driver: str = ""
    pool: str = ""
    device: str = ""
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] = Field(default_factory=list)
    binding_conditions: list[str] = Field(default_factory=list)
    binding_failure_conditions: list[str] = Field(default_factory=list)
    share_id: str | None = Field(default=None, alias="shareID")
    consumed_capacity: dict[str, Quantity] = Field(default_factory=dict)


class DeviceAllocationConfiguration(DeviceConfiguration):
    source: Literal["FromClass", "FromClaim"] = "FromClaim"
    requests: list[str] = Field(default_factory=list)


class DeviceAllocationResult(K8sModel):
    results: list[DeviceRequestAllocationResult] = Field(default_factory=list)
    config: list[DeviceAllocationConfiguration] = Field(default_factory=list)


class AllocationResult(K8sModel):
    """Where the allocated devices are (`nodeSelector`; None: everywhere) and which."""

    devices: DeviceAllocationResult = Field(default_factory=DeviceAllocationResult)
    node_selector: NodeSelector | None = None
    allocation_timestamp: datetime | None = None


class NetworkDeviceData(K8sModel):
    interface_name: str = ""
    ips: list[str] = Field(default_factory=list)
    hardware_address: str = ""


class AllocatedDeviceStatus(K8sModel):
    """A driver's report on one allocated device; conditions and data kept as written."""

    driver: str = ""
    pool: str = ""
    device: str = ""
    share_id: str | None = Field(default=None, alias="shareID")
    conditions: list[dict[str, Any]] = Field(default_factory=list)
    data: Any = None
    network_data: NetworkDeviceData | None = None


class ResourceClaimStatus(K8sModel):
    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] = Field(default_factory=list)
    devices: list[AllocatedDeviceStatus] = Field(default_factory=list)


class ResourceClaim(K8sModel):
    api_version: str = "resource.k8s.io/v1"
    kind: Literal["ResourceClaim"] = "ResourceClaim"
    metadata: ObjectMeta
    spec: ResourceClaimSpec = Field(default_factory=ResourceClaimSpec)
    status: ResourceClaimStatus = Field(default_factory=ResourceClaimStatus)

    @property
    def key(self) -> str:
        """`namespace/name`, as the scheduler's caches key claims."""
        return f"{self.metadata.namespace or 'default'}/{self.metadata.name}"

    def is_reserved_for(self, uid: str) -> bool:
        """upstream resourceclaim.IsReservedForPod: `uid` is among `status.reservedFor`."""
        return any(ref.uid == uid for ref in self.status.reserved_for)


class ResourceClaimTemplateSpec(K8sModel):
    """The claim to create: labels and annotations from `metadata`, `spec` as is."""

    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = Field(default_factory=ResourceClaimSpec)


class ResourceClaimTemplate(K8sModel):
    api_version: str = "resource.k8s.io/v1"
    kind: Literal["ResourceClaimTemplate"] = "ResourceClaimTemplate"
    metadata: ObjectMeta
    spec: ResourceClaimTemplateSpec = Field(default_factory=ResourceClaimTemplateSpec)
