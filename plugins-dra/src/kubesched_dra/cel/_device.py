"""A device as a selector sees it: the `device` variable's value, converted once.

upstream: staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go (Device,
DeviceMatches, getAttributeValue, parseQualifiedName).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubesched_dra.api import Device
from kubesched_dra.cel._library import quantity, semver
from kubesched_dra.cel._semver import SemverError, parse_semver

__all__ = ["CELDevice", "parse_qualified_name"]


def parse_qualified_name(name: str, default_domain: str) -> tuple[str, str]:
    """Split `domain/id`; a name without a domain belongs to `default_domain` (the driver)."""
    domain, sep, ident = name.partition("/")
    if not sep:
        return default_domain, name
    return domain, ident


@dataclass(frozen=True, slots=True, eq=False)
class CELDevice:
    """The `device` variable of one device: `driver`, `allowMultipleAllocations` and the
    `attributes` and `capacity` maps by domain then id. `error` is set when an attribute
    has no CEL value (an unparsable version): every evaluation then fails with it, as
    upstream's DeviceMatches does."""

    driver: str
    attributes: dict[str, dict[str, Any]]
    capacity: dict[str, dict[str, Any]]
    allow_multiple_allocations: bool
    error: str | None = None

    @classmethod
    def from_device(cls, driver: str, device: Device) -> CELDevice:
        """Convert `device` of a slice published by `driver`."""
        error: str | None = None
        attributes: dict[str, dict[str, Any]] = {}
        for name, attribute in device.attributes.items():
            # upstream getAttributeValue: int, bool, string, then version.
            value: Any = next(
                (
                    v
                    for v in (attribute.int_value, attribute.bool_value, attribute.string_value)
                    if v is not None
                ),
                None,
            )
            if value is None and attribute.version_value is not None:
                try:
                    value = semver(parse_semver(attribute.version_value))
                except SemverError as problem:
                    error = error or f"attribute {name}: parse semantic version: {problem}"
                    continue
            if value is None:
                error = error or f"attribute {name}: unsupported attribute value"
                continue
            domain, ident = parse_qualified_name(name, driver)
            attributes.setdefault(domain, {})[ident] = value
        capacity: dict[str, dict[str, Any]] = {}
        for name, cap in device.capacity.items():
            domain, ident = parse_qualified_name(name, driver)
            capacity.setdefault(domain, {})[ident] = quantity(cap.value)
        return cls(driver, attributes, capacity, bool(device.allow_multiple_allocations), error)

    def activation(self, indexed_domains: frozenset[str]) -> dict[str, Any]:
        """The variable's value for an expression that indexes `indexed_domains`: each one
        the device lacks maps to an empty map (upstream's map with a default)."""
        attributes, capacity = self.attributes, self.capacity
        if indexed_domains:
            if not indexed_domains <= attributes.keys():
                attributes = {d: {} for d in indexed_domains} | attributes
            if not indexed_domains <= capacity.keys():
                capacity = {d: {} for d in indexed_domains} | capacity
        return {
            "driver": self.driver,
            "allowMultipleAllocations": self.allow_multiple_allocations,
            "attributes": attributes,
            "capacity": capacity,
        }
