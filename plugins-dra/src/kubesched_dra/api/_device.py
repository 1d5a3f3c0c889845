"""The pieces of resource.k8s.io/v1 that slices, claims and classes share: CEL selectors,
opaque configuration, device taints and tolerations.

upstream: staging/src/k8s.io/api/resource/v1/types.go (DeviceSelector, CELDeviceSelector,
DeviceConfiguration, OpaqueDeviceConfiguration, DeviceTaint, DeviceToleration).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from kubesched.api import K8sModel

__all__ = [
    "CEL_SELECTOR_EXPRESSION_MAX_COST",
    "CEL_SELECTOR_EXPRESSION_MAX_LENGTH",
    "CELDeviceSelector",
    "DeviceConfiguration",
    "DeviceSelector",
    "DeviceTaint",
    "DeviceToleration",
    "OpaqueDeviceConfiguration",
]

CEL_SELECTOR_EXPRESSION_MAX_COST: Final = 1_000_000
"""upstream CELSelectorExpressionMaxCost: the cost limit of one selector's evaluation."""

CEL_SELECTOR_EXPRESSION_MAX_LENGTH: Final = 10 * 1024
"""upstream CELSelectorExpressionMaxLength."""


class CELDeviceSelector(K8sModel):
    """A CEL expression over one device (`device.driver`, `device.attributes[...]`,
    `device.capacity[...]`, `device.allowMultipleAllocations`) that must be true."""

    expression: str = ""


class DeviceSelector(K8sModel):
    """Exactly one field set; `cel` is the only kind of selector in v1."""

    cel: CELDeviceSelector | None = None


class OpaqueDeviceConfiguration(K8sModel):
    """Driver-specific parameters, passed to the driver and never read while allocating."""

    driver: str = ""
    parameters: Any = None


class DeviceConfiguration(K8sModel):
    """Exactly one field set (`opaque`); embedded inline in the claim's, the class's and
    the allocation's configuration entries."""

    opaque: OpaqueDeviceConfiguration | None = None


class DeviceTaint(K8sModel):
    """A driver's taint on a device: claims that do not tolerate it cannot get the
    device (NoSchedule) or lose it (NoExecute). Unknown effects count as None."""

    key: str = ""
    value: str = ""
    effect: str = ""
    time_added: datetime | None = None


class DeviceToleration(K8sModel):
    """A request's toleration of device taints; `operator` defaults to Equal."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: DeviceTaint) -> bool:
        """upstream dynamic-resource-allocation/resourceclaim/toleration.go (ToleratesTaint):
        empty effect matches every effect, empty key with Exists every key."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        return self.operator in ("", "Equal") and self.value == taint.value
