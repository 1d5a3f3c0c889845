"""What the embedded cluster refuses in a DeviceInventory, in the API server's words, so a
mistake reads like one in a ResourceSlice: `DeviceInventory.simulation.kubesched.io
"gpus" is invalid: spec.devices[0].count: Invalid value: 0: must be greater than zero`."""

from __future__ import annotations

from typing import Any, Final

from kubesched.api import KindRegistry
from kubesched.api.field import ErrorList, Path, duplicate, invalid, new_path, required
from kubesched.api.validation import is_dns1123_subdomain
from kubesched_dra.api import (
    validate_device_attribute,
    validate_device_taint,
    validate_driver_name,
    validate_label,
    validate_qualified_name,
    validate_slice,
)
from kubesched_dra.inventory._models import DeviceInventory, DeviceSet

__all__ = ["validate_device_inventory"]

_ONE_OF_NODES: Final = "exactly one of `nodes` or `nodeSelector` is required"
_ONE_OF_NAMES: Final = "exactly one of `name` or `namePrefix` is required"
_MAX_TAINTS: Final = 16


def validate_device_inventory(obj: Any, kinds: KindRegistry) -> ErrorList:
    """`KindInfo.validate` of DeviceInventory."""
    assert isinstance(obj, DeviceInventory)
    spec = obj.spec
    path = new_path("spec")
    errors = validate_driver_name(spec.driver, path.child("driver"))
    if (spec.nodes is None) == (spec.node_selector is None):
        if spec.nodes is None:
            errors.append(required(path, _ONE_OF_NODES))
        else:
            errors.append(invalid(path, "{`nodes`, `nodeSelector`}", _ONE_OF_NODES))
    for i, node in enumerate(spec.nodes or []):
        errors += [
            invalid(path.child("nodes").index(i), node, m) for m in is_dns1123_subdomain(node)
        ]
    if not spec.devices:
        errors.append(required(path.child("devices")))
    errors += validate_slice(spec.devices, -1, _device_set, path.child("devices"))
    seen: set[str] = set()
    for i, entry in enumerate(spec.devices):
        for name in entry.device_names():
            if name in seen:
                errors.append(duplicate(path.child("devices").index(i), name))
            seen.add(name)
    return errors


def _device_set(entry: DeviceSet, path: Path) -> ErrorList:
    errors: ErrorList = []
    if (entry.name is None) == (entry.name_prefix is None):
        if entry.name is None:
            errors.append(required(path, _ONE_OF_NAMES))
        else:
            errors.append(invalid(path, "{`name`, `namePrefix`}", _ONE_OF_NAMES))
    elif entry.name is not None:
        errors += validate_label(entry.name, path.child("name"))
        if entry.count != 1:
            detail = "must be 1 when `name` is set (use `namePrefix` for several devices)"
            errors.append(invalid(path.child("count"), entry.count, detail))
    else:
        if entry.count <= 0:
            errors.append(invalid(path.child("count"), entry.count, "must be greater than zero"))
        # the longest generated name stands for all of them
        last = f"{entry.name_prefix}-{max(entry.count - 1, 0)}"
        errors += [
            invalid(
                path.child("namePrefix"),
                entry.name_prefix,
                f'gives device name "{last}": {e.detail}',
            )
            for e in validate_label(last, path.child("namePrefix"))
        ]
    if entry.index_attribute is not None:
        errors += validate_qualified_name(entry.index_attribute, path.child("indexAttribute"))
        if entry.index_attribute in entry.attributes:
            detail = "is also set in `attributes`"
            errors.append(invalid(path.child("indexAttribute"), entry.index_attribute, detail))
    for name, value in entry.attributes.items():
        errors += validate_qualified_name(name, path.child("attributes"))
        errors += validate_device_attribute(value, path.child("attributes").key(name))
    for name in entry.capacity:
        errors += validate_qualified_name(name, path.child("capacity"))
    errors += validate_slice(entry.taints, _MAX_TAINTS, validate_device_taint, path.child("taints"))
    return errors
