"""Claim constraints: `matchAttribute`, all devices of the named requests share a value.

upstream: internal/stable/allocator_stable.go (matchAttributeConstraint,
lookupAttribute). Constraints are monotonic: once one refuses a device, adding more
devices never makes it accept, so the search can stop early.
"""

from __future__ import annotations

from kubesched_dra.api import Device, DeviceAttribute
from kubesched_dra.structured._types import DeviceID

__all__ = ["MatchAttributeConstraint", "lookup_attribute"]


def lookup_attribute(device: Device, device_id: DeviceID, name: str) -> DeviceAttribute | None:
    """The attribute `name` (fully qualified) of `device`: by that name, or by its id
    alone when the domain is the device's driver."""
    attribute = device.attributes.get(name)
    if attribute is not None:
        return attribute
    domain, sep, ident = name.partition("/")
    if not sep or domain != device_id.driver:
        return None
    return device.attributes.get(ident)


def _same_value(a: DeviceAttribute, b: DeviceAttribute) -> bool:
    # upstream compares the field the new device's attribute sets; semver 2.0.0 versions
    # are in minimal form, so equal versions are equal strings.
    if a.string_value is not None:
        return b.string_value is not None and a.string_value == b.string_value
    if a.int_value is not None:
        return b.int_value is not None and a.int_value == b.int_value
    if a.bool_value is not None:
        return b.bool_value is not None and a.bool_value == b.bool_value
    if a.version_value is not None:
        return b.version_value is not None and a.version_value == b.version_value
    return False


class MatchAttributeConstraint:
    """All devices of `request_names` (every request when empty) have the same value of
    `attribute_name`; only how many devices are in the set is tracked."""

    __slots__ = ("_attribute", "_num_devices", "attribute_name", "request_names")

    def __init__(self, request_names: frozenset[str], attribute_name: str) -> None:
        self.request_names = request_names
        self.attribute_name = attribute_name
        self._attribute: DeviceAttribute | None = None
        self._num_devices = 0

    def _applies(self, request: str, sub_request: str) -> bool:
        if not self.request_names:
            return True
        if not sub_request:
            return request in self.request_names
        return request in self.request_names or f"{request}/{sub_request}" in self.request_names

    def add(self, request: str, sub_request: str, device: Device, device_id: DeviceID) -> bool:
        """Whether `device` may join; if so it is counted (undo with :meth:`remove`)."""
        if not self._applies(request, sub_request):
            return True
        attribute = lookup_attribute(device, device_id, self.attribute_name)
        if attribute is None:
            return False
        if self._num_devices == 0:
            self._attribute = attribute
            self._num_devices = 1
            return True
        assert self._attribute is not None
        if not _same_value(attribute, self._attribute):
            return False
        self._num_devices += 1
        return True

    def remove(self, request: str, sub_request: str, device: Device, device_id: DeviceID) -> None:
        """Undo one successful :meth:`add` with the same arguments."""
        if not self._applies(request, sub_request):
            return
        self._num_devices -= 1
