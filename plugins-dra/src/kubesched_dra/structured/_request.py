"""One shape for a request and a `firstAvailable` subrequest, as the search sees them.

upstream: internal/stable/allocator_stable.go (requestAccessor,
exactDeviceRequestAccessor, deviceSubRequestAccessor).
"""

from __future__ import annotations

from dataclasses import dataclass

from kubesched_dra.api import (
    DeviceRequest,
    DeviceSelector,
    DeviceSubRequest,
    DeviceToleration,
)

__all__ = ["RequestAccessor"]


@dataclass(frozen=True, slots=True)
class RequestAccessor:
    """A request with `exactly`, or one subrequest of a `firstAvailable` list (which
    never has admin access)."""

    name: str
    device_class_name: str
    allocation_mode: str
    count: int
    admin_access: bool
    has_admin_access: bool
    selectors: tuple[DeviceSelector, ...]
    tolerations: tuple[DeviceToleration, ...]

    @classmethod
    def exact(cls, request: DeviceRequest) -> RequestAccessor:
        exactly = request.exactly
        if exactly is None:
            # Neither field set: no class either, which the caller reports.
            return cls(request.name, "", "", 0, False, False, (), ())
        return cls(
            request.name,
            exactly.device_class_name,
            exactly.allocation_mode,
            exactly.count,
            bool(exactly.admin_access),
            exactly.admin_access is not None,
            tuple(exactly.selectors),
            tuple(exactly.tolerations),
        )

    @classmethod
    def sub(cls, request: DeviceSubRequest) -> RequestAccessor:
        return cls(
            request.name,
            request.device_class_name,
            request.allocation_mode,
            request.count,
            False,
            False,
            tuple(request.selectors),
            tuple(request.tolerations),
        )
