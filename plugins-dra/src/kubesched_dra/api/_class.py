"""DeviceClass: selectors and configuration a request inherits by naming the class.

upstream: staging/src/k8s.io/api/resource/v1/types.go (DeviceClass, DeviceClassSpec,
DeviceClassConfiguration).
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field

from kubesched.api import K8sModel, ObjectMeta
from kubesched_dra.api._device import DeviceConfiguration, DeviceSelector

__all__ = [
    "RESOURCE_DEVICE_CLASS_PREFIX",
    "DeviceClass",
    "DeviceClassConfiguration",
    "DeviceClassSpec",
]

RESOURCE_DEVICE_CLASS_PREFIX: Final = "deviceclass.resource.kubernetes.io/"
"""upstream ResourceDeviceClassPrefix: the implicit extended resource name of a class
without `extendedResourceName` is this prefix and the class name."""


class DeviceClassConfiguration(DeviceConfiguration):
    pass


class DeviceClassSpec(K8sModel):
    selectors: list[DeviceSelector] = Field(default_factory=list)
    config: list[DeviceClassConfiguration] = Field(default_factory=list)
    extended_resource_name: str | None = None


class DeviceClass(K8sModel):
    api_version: str = "resource.k8s.io/v1"
    kind: Literal["DeviceClass"] = "DeviceClass"
    metadata: ObjectMeta
    spec: DeviceClassSpec = Field(default_factory=DeviceClassSpec)

    @property
    def name(self) -> str:
        return self.metadata.name
