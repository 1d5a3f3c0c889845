"""Builders for the allocator's tests, named as upstream's allocatortesting helpers
(staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/
allocator_testing.go): node(), device_class(), claim(), request(), slice_with_devices() ...
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kubesched.api import Node, NodeSelector
from kubesched_dra.api import AllocationResult, DeviceClass, ResourceClaim, ResourceSlice

REGION1, REGION2 = "region-1", "region-2"
NODE1, NODE2 = "node-1", "node-2"
CLASS_A, CLASS_B = "class-a", "class-b"
DRIVER_A, DRIVER_B = "driver-a", "driver-b"
POOL1, POOL2, POOL3, POOL4 = "pool-1", "pool-2", "pool-3", "pool-4"
REQ0, REQ1, REQ2 = "req-0", "req-1", "req-2"
SUB_REQ0, SUB_REQ1 = "subReq-0", "subReq-1"
CLAIM0, CLAIM1 = "claim-0", "claim-1"
SLICE1, SLICE2, SLICE3 = "slice-1", "slice-2", "slice-3"
DEVICE0, DEVICE1, DEVICE2, DEVICE3 = "device-0", "device-1", "device-2", "device-3"
ALL_NODES = "nodeSelectionAll"


def node(name: str, region: str) -> Node:
    return Node.model_validate(
        {"metadata": {"name": name, "labels": {"region": region, "planet": "earth"}}}
    )


def selector(expression: str) -> dict[str, Any]:
    return {"cel": {"expression": expression}}


def device_configuration(driver: str, attribute: str) -> dict[str, Any]:
    return {"opaque": {"driver": driver, "parameters": {attribute: attribute + "Value"}}}


def device_class(name: str, driver: str, config_attribute: str | None = None) -> DeviceClass:
    spec: dict[str, Any] = {"selectors": [selector(f'device.driver == "{driver}"')]}
    if config_attribute is not None:
        spec["config"] = [device_configuration(driver, config_attribute)]
    return DeviceClass.model_validate({"metadata": {"name": name}, "spec": spec})


def request(
    name: str, class_name: str, count: int, *selectors: dict[str, Any], **exactly: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "deviceClassName": class_name,
        "allocationMode": "ExactCount",
        "count": count,
        "selectors": list(selectors),
    }
    body.update(exactly)
    return {"name": name, "exactly": body}


def all_request(name: str, class_name: str, **exactly: Any) -> dict[str, Any]:
    return {
        "name": name,
        "exactly": {"deviceClassName": class_name, "allocationMode": "All", **exactly},
    }


def sub_request(
    name: str, class_name: str, count: int, *selectors: dict[str, Any], mode: str = "ExactCount"
) -> dict[str, Any]:
    return {
        "name": name,
        "deviceClassName": class_name,
        "allocationMode": mode,
        "count": count,
        "selectors": list(selectors),
    }


def prioritized(name: str, *subs: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "firstAvailable": list(subs)}


def claim(
    name: str,
    *requests: dict[str, Any],
    constraints: list[dict[str, Any]] | None = None,
    config: list[dict[str, Any]] | None = None,
    namespace: str | None = None,
) -> ResourceClaim:
    return ResourceClaim.model_validate(
        {
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "devices": {
                    "requests": list(requests),
                    "constraints": constraints or [],
                    "config": config or [],
                }
            },
        }
    )


def claim_with_request(name: str, req: str, class_name: str, **kwargs: Any) -> ResourceClaim:
    return claim(name, request(req, class_name, 1), **kwargs)


def device(
    name: str,
    capacity: dict[str, str] | None = None,
    attributes: dict[str, dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "name": name,
        "capacity": {k: {"value": v} for k, v in (capacity or {}).items()},
        "attributes": attributes or {},
        **extra,
    }


def slice_with_devices(
    name: str,
    node_selection: str | dict[str, Any],
    pool: str | dict[str, Any],
    driver: str,
    *devices: dict[str, Any],
) -> ResourceSlice:
    resource_pool = (
        {"name": pool, "resourceSliceCount": 1, "generation": 1} if isinstance(pool, str) else pool
    )
    spec: dict[str, Any] = {"driver": driver, "pool": resource_pool, "devices": list(devices)}
    if isinstance(node_selection, dict):
        spec["nodeSelector"] = node_selection
    elif node_selection == ALL_NODES:
        spec["allNodes"] = True
    else:
        spec["nodeName"] = node_selection
    return ResourceSlice.model_validate({"metadata": {"name": name}, "spec": spec})


def slice_with_one_device(
    name: str, node_selection: str | dict[str, Any], pool: str | dict[str, Any], driver: str
) -> ResourceSlice:
    return slice_with_devices(name, node_selection, pool, driver, device(DEVICE1))


def slice_with_multiple_devices(
    name: str, node_selection: str | dict[str, Any], pool: str, driver: str, count: int
) -> ResourceSlice:
    devices = [device(f"device-{i}") for i in range(count)]
    return slice_with_devices(name, node_selection, pool, driver, *devices)


def resource_pool(name: str, count: int, generation: int = 1) -> dict[str, Any]:
    return {"name": name, "resourceSliceCount": count, "generation": generation}


def node_label_selector(key: str, *values: str) -> dict[str, Any]:
    return {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}
        ]
    }


def local_node_selector(node_name: str) -> dict[str, Any]:
    return {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
        ]
    }


def result(
    request_name: str, driver: str, pool: str, device_name: str, admin: bool = False
) -> tuple[str, str, str, str, bool]:
    return (request_name, driver, pool, device_name, admin)


def _selector_key(selector: NodeSelector | None) -> Any:
    # Order of terms, requirements and values is irrelevant (upstream's matchers).
    if selector is None:
        return None
    return Counter(
        (
            frozenset((r.key, r.operator, frozenset(r.values)) for r in term.match_expressions),
            frozenset((r.key, r.operator, frozenset(r.values)) for r in term.match_fields),
        )
        for term in selector.node_selector_terms
    )


def assert_allocation(
    actual: AllocationResult,
    node_selector: dict[str, Any] | None,
    *results: tuple[str, str, str, str, bool],
    config: list[dict[str, Any]] | None = None,
) -> None:
    """As upstream's allocationResult matcher: results in any order, the node selector
    up to order, the configuration as given (none when not given)."""
    got = Counter(
        (r.request, r.driver, r.pool, r.device, bool(r.admin_access))
        for r in actual.devices.results
    )
    assert got == Counter(results)
    for r in actual.devices.results:
        assert r.admin_access in (None, True)
    expected_selector = (
        NodeSelector.model_validate(node_selector) if node_selector is not None else None
    )
    assert _selector_key(actual.node_selector) == _selector_key(expected_selector)
    got_config = [c.model_dump(by_alias=True, exclude_none=True) for c in actual.devices.config]
    assert got_config == (config or [])
