"""What the API server refuses in a new ResourceSlice, with its messages.

upstream: pkg/apis/resource/validation/validation.go (ValidateResourceSlice,
validateResourceSliceSpec, validateResourcePool, validateDevice, validateDeviceAttribute,
validateDeviceTaint, validateCounterSet). Not ported: node selector syntax, consumable
capacity request policies, binding conditions.
"""

from __future__ import annotations

import re
from typing import Any, Final

from kubesched.api import KindRegistry
from kubesched.api.field import (
    ErrorList,
    Path,
    Stringer,
    forbidden,
    invalid,
    new_path,
    not_supported,
    required,
    too_long,
    too_many,
)
from kubesched.api.validation import is_dns1123_subdomain, validate_label_name
from kubesched_dra.api._device import DeviceTaint
from kubesched_dra.api._slice import (
    RESOURCE_SLICE_MAX_DEVICES,
    RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS,
    CounterSet,
    Device,
    DeviceAttribute,
    DeviceCounterConsumption,
    ResourcePool,
    ResourceSlice,
    ResourceSliceSpec,
)
from kubesched_dra.api._validation_claim import DEVICE_TAINT_EFFECTS, validate_label_value
from kubesched_dra.api._validation_names import (
    validate_driver_name,
    validate_label,
    validate_pool_name,
    validate_qualified_name,
    validate_set,
    validate_slice,
)

__all__ = ["validate_device_attribute", "validate_device_taint", "validate_resource_slice"]

_MAX_ATTRIBUTES_AND_CAPACITIES: Final = 32
_MAX_ATTRIBUTE_VALUE_LENGTH: Final = 64
_MAX_TAINTS: Final = 16
_MAX_COUNTER_SETS: Final = 8
_MAX_COUNTERS_PER_SET: Final = 32
_MAX_COUNTER_CONSUMPTIONS: Final = 2
_ONE_OF: Final = (
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
)
_DEVICE_ONE_OF: Final = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)
_UNSET_OR_TRUE: Final = "must be either unset or set to true"

# upstream semverRe: semver.org 2.0.0
_NUMERIC: Final = r"(0|[1-9]\d*)"
_PRE_RELEASE: Final = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD: Final = r"[0-9a-zA-Z-]+"
_SEMVER: Final = re.compile(
    rf"{_NUMERIC}\.{_NUMERIC}\.{_NUMERIC}(-{_PRE_RELEASE}(\.{_PRE_RELEASE})*)?"
    rf"(\+{_BUILD}(\.{_BUILD})*)?"
)


def validate_resource_slice(obj: Any, kinds: KindRegistry) -> ErrorList:
    """`KindInfo.validate` of ResourceSlice."""
    assert isinstance(obj, ResourceSlice)
    return _spec(obj.spec, new_path("spec"))


def _spec(spec: ResourceSliceSpec, path: Path) -> ErrorList:
    errors = validate_driver_name(spec.driver, path.child("driver"))
    errors += _pool(spec.pool, path.child("pool"))
    set_fields: list[str] = []
    if spec.node_name is not None:
        if spec.node_name:
            set_fields.append("`nodeName`")
            errors += _node_name(spec.node_name, path.child("nodeName"))
        else:
            detail = "must be either unset or set to a non-empty string"
            errors.append(invalid(path.child("nodeName"), spec.node_name, detail))
    if spec.node_selector is not None:
        set_fields.append("`nodeSelector`")
        terms = spec.node_selector.node_selector_terms
        if len(terms) != 1:
            # rendered as Go prints the terms (%v is not reproduced); the count says it
            errors.append(
                invalid(
                    path.child("nodeSelector", "nodeSelectorTerms"),
                    Stringer(f"<{len(terms)} terms>"),
                    "must have exactly one node selector term",
                )
            )
    for name, value in (
        ("allNodes", spec.all_nodes),
        ("perDeviceNodeSelection", spec.per_device_node_selection),
    ):
        if value is True:
            set_fields.append(f"`{name}`")
        elif value is False:
            errors.append(invalid(path.child(name), value, _UNSET_OR_TRUE))
    if not set_fields:
        errors.append(required(path, _ONE_OF))
    elif len(set_fields) > 1:
        shown = "{" + ", ".join(set_fields) + "}"
        errors.append(invalid(path, shown, _ONE_OF + ", but multiple fields are set"))
    if spec.shared_counters and spec.devices:
        errors.append(invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"))
    advanced = any(d.taints or d.consumes_counters for d in spec.devices)
    limit = (
        RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS
        if advanced
        else RESOURCE_SLICE_MAX_DEVICES
    )
    errors += validate_set(
        spec.devices,
        limit,
        lambda d, p: _device(d, p, spec.per_device_node_selection is True),
        lambda d: d.name,
        path.child("devices"),
    )
    errors += validate_set(
        spec.shared_counters,
        _MAX_COUNTER_SETS,
        _counter_set,
        lambda c: c.name,
        path.child("sharedCounters"),
    )
    return errors


def _node_name(name: str, path: Path) -> ErrorList:
    """upstream validateNodeName (ValidateNodeName): a DNS subdomain."""
    return [invalid(path, name, m) for m in is_dns1123_subdomain(name)]


def _pool(pool: ResourcePool, path: Path) -> ErrorList:
    errors = validate_pool_name(pool.name, path.child("name"))
    if pool.resource_slice_count <= 0:
        path_ = path.child("resourceSliceCount")
        errors.append(invalid(path_, pool.resource_slice_count, "must be greater than zero"))
    if pool.generation < 0:
        path_ = path.child("generation")
        errors.append(invalid(path_, pool.generation, "must be greater than or equal to zero"))
    return errors


def _device(device: Device, path: Path, per_device_node_selection: bool) -> ErrorList:
    errors = validate_label(device.name, path.child("name"))
    combined = len(device.attributes) + len(device.capacity)
    if combined > _MAX_ATTRIBUTES_AND_CAPACITIES:
        detail = (
            "the total number of attributes and capacities must not exceed "
            f"{_MAX_ATTRIBUTES_AND_CAPACITIES}"
        )
        errors.append(invalid(path, combined, detail))
    for name, attribute in device.attributes.items():
        errors += validate_qualified_name(name, path.child("attributes"))
        errors += validate_device_attribute(attribute, path.child("attributes").key(name))
    for name, capacity in device.capacity.items():
        errors += validate_qualified_name(name, path.child("capacity"))
        if capacity.request_policy is not None and not device.allow_multiple_allocations:
            policy_path = path.child("capacity").key(name).child("requestPolicy")
            errors.append(forbidden(policy_path, "allowMultipleAllocations must be true"))
    errors += validate_slice(
        device.taints, _MAX_TAINTS, validate_device_taint, path.child("taints")
    )
    errors += validate_set(
        device.consumes_counters,
        _MAX_COUNTER_CONSUMPTIONS,
        _counter_consumption,
        lambda c: c.counter_set,
        path.child("consumesCounters"),
    )
    errors += _device_nodes(device, path, per_device_node_selection)
    return errors


def _counter_consumption(consumption: DeviceCounterConsumption, path: Path) -> ErrorList:
    errors: ErrorList = []
    if not consumption.counter_set:
        errors.append(required(path.child("counterSet")))
    else:
        errors += validate_label(consumption.counter_set, path.child("counterSet"))
    if not consumption.counters:
        errors.append(required(path.child("counters")))
    return errors


def _device_nodes(device: Device, path: Path, per_device_node_selection: bool) -> ErrorList:
    errors: ErrorList = []
    if not per_device_node_selection:
        chosen = (device.node_name, device.node_selector, device.all_nodes)
        if any(v is not None for v in chosen):
            detail = (
                "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
            )
            errors.append(invalid(path, None, detail))
        return errors
    set_fields: list[str] = []
    if device.node_name is not None:
        if device.node_name:
            set_fields.append("`nodeName`")
            errors += _node_name(device.node_name, path.child("nodeName"))
        else:
            errors.append(invalid(path.child("nodeName"), device.node_name, "must not be empty"))
    if device.node_selector is not None:
        set_fields.append("`nodeSelector`")
    if device.all_nodes is True:
        set_fields.append("`allNodes`")
    elif device.all_nodes is False:
        errors.append(invalid(path.child("allNodes"), False, _UNSET_OR_TRUE))
    if not set_fields:
        errors.append(required(path, _DEVICE_ONE_OF))
    elif len(set_fields) > 1:
        errors.append(invalid(path, "{" + ", ".join(set_fields) + "}", _DEVICE_ONE_OF))
    return errors


def validate_device_attribute(attribute: DeviceAttribute, path: Path) -> ErrorList:
    """upstream validateDeviceAttribute: exactly one value; strings and versions at most
    64 bytes, versions semver 2.0.0."""
    errors: ErrorList = []
    text = attribute.string_value
    if text is not None and len(text.encode()) > _MAX_ATTRIBUTE_VALUE_LENGTH:
        errors.append(too_long(path.child("string"), "", _MAX_ATTRIBUTE_VALUE_LENGTH))
    if attribute.version_value is not None:
        version = attribute.version_value
        if not _SEMVER.fullmatch(version):
            detail = "must be a string compatible with semver.org spec 2.0.0"
            errors.append(invalid(path.child("version"), version, detail))
        if len(version.encode()) > _MAX_ATTRIBUTE_VALUE_LENGTH:
            errors.append(too_long(path.child("version"), "", _MAX_ATTRIBUTE_VALUE_LENGTH))
    count = len(attribute.set_fields)
    if count == 0:
        errors.append(invalid(path, "", "exactly one value must be specified"))
    elif count > 1:
        # Go prints the struct (%v); the set fields say the same
        shown = Stringer("{" + ", ".join(attribute.set_fields) + "}")
        errors.append(invalid(path, shown, "exactly one value must be specified"))
    return errors


def validate_device_taint(taint: DeviceTaint, path: Path) -> ErrorList:
    """upstream validateDeviceTaint (on create)."""
    errors = validate_label_name(taint.key, path.child("key"))
    if taint.value:
        errors += validate_label_value(taint.value, path.child("value"))
    if not taint.effect:
        errors.append(required(path.child("effect")))
    elif taint.effect not in DEVICE_TAINT_EFFECTS:
        errors.append(not_supported(path.child("effect"), taint.effect, DEVICE_TAINT_EFFECTS))
    return errors


def _counter_set(counter_set: CounterSet, path: Path) -> ErrorList:
    errors: ErrorList = []
    if not counter_set.name:
        errors.append(required(path.child("name")))
    else:
        errors += validate_label(counter_set.name, path.child("name"))
    if not counter_set.counters:
        errors.append(required(path.child("counters")))
    elif len(counter_set.counters) > _MAX_COUNTERS_PER_SET:
        count = len(counter_set.counters)
        errors.append(too_many(path.child("counters"), count, _MAX_COUNTERS_PER_SET))
    else:
        for name in counter_set.counters:
            errors += validate_label(name, path.child("counters"))
    return errors
