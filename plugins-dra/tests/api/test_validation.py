"""The memory cluster refuses a resource.k8s.io/v1 object the API server would refuse,
with the API server's message (upstream pkg/apis/resource/validation's rules and texts)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from dra_helpers import create_in_memory, load_text, refusal

from kubesched._errors import ManifestError
from kubesched.api import ObjectMeta
from kubesched.simulate._manifests import create_objects
from kubesched_dra.api import (
    CELDeviceSelector,
    Device,
    DeviceAttribute,
    DeviceClaim,
    DeviceClass,
    DeviceClassSpec,
    DeviceConstraint,
    DeviceRequest,
    DeviceSelector,
    DeviceSubRequest,
    DeviceTaint,
    DeviceToleration,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceClaimTemplate,
    ResourceClaimTemplateSpec,
    ResourcePool,
    ResourceSlice,
    ResourceSliceSpec,
)

GPU = "gpu.example.com"


def claim(
    *requests: DeviceRequest, constraints: list[DeviceConstraint] | None = None
) -> ResourceClaim:
    return ResourceClaim(
        metadata=ObjectMeta(name="c", namespace="ml"),
        spec=ResourceClaimSpec(
            devices=DeviceClaim(requests=list(requests), constraints=constraints or [])
        ),
    )


def exactly(name: str = "gpu", **fields: Any) -> DeviceRequest:
    fields.setdefault("device_class_name", GPU)
    return DeviceRequest(name=name, exactly=ExactDeviceRequest(**fields))


def slice_(*devices: Device, **spec: Any) -> ResourceSlice:
    fields: dict[str, Any] = {
        "driver": GPU,
        "pool": ResourcePool(name="n1", generation=1, resource_slice_count=1),
        "node_name": "n1",
        **spec,
    }
    return ResourceSlice(
        metadata=ObjectMeta(name="s"), spec=ResourceSliceSpec(devices=list(devices), **fields)
    )


def test_valid_objects_are_created() -> None:
    cluster = create_in_memory(
        DeviceClass(
            metadata=ObjectMeta(name=GPU),
            spec=DeviceClassSpec(
                selectors=[DeviceSelector(cel=CELDeviceSelector(expression="true"))],
                extended_resource_name="example.com/gpu",
            ),
        ),
        claim(
            exactly("a", count=2),
            DeviceRequest(
                name="b",
                first_available=[
                    DeviceSubRequest(name="big", device_class_name=GPU),
                    DeviceSubRequest(name="small", device_class_name=GPU, allocation_mode="All"),
                ],
            ),
            constraints=[DeviceConstraint(requests=["a", "b/big"], match_attribute=f"{GPU}/numa")],
        ),
        slice_(
            Device(
                name="gpu-0",
                attributes={
                    "model": DeviceAttribute(string_value="H100"),
                    f"{GPU}/driverVersion": DeviceAttribute(version_value="1.2.3-rc.1+build.5"),
                },
            )
        ),
    )
    kinds = ("DeviceClass", "ResourceClaim", "ResourceSlice")
    assert {kind: len(cluster.list(kind)) for kind in kinds} == dict.fromkeys(kinds, 1)


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            claim(exactly(device_class_name="")),
            "spec.devices.requests[0].exactly.deviceClassName: Required value",
        ),
        (
            claim(exactly(allocation_mode="All", count=2)),
            "spec.devices.requests[0].exactly.count: Invalid value: 2: "
            "must not be specified when allocationMode is 'All'",
        ),
        (
            claim(exactly(count=-1)),
            "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero",
        ),
        (
            claim(DeviceRequest(name="gpu")),
            "spec.devices.requests[0]: Required value: "
            "exactly one of `exactly` or `firstAvailable` is required",
        ),
        (
            claim(exactly("gpu"), exactly("gpu")),
            'spec.devices.requests[1]: Duplicate value: "gpu"',
        ),
        (
            claim(exactly("GPU")),
            'spec.devices.requests[0].name: Invalid value: "GPU": a lowercase RFC 1123 label '
            "must consist of lower case alphanumeric characters or '-', and must start and end "
            "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
            "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ),
        (
            claim(exactly(selectors=[DeviceSelector()])),
            "spec.devices.requests[0].exactly.selectors[0].cel: Required value",
        ),
        (
            claim(
                exactly(),
                constraints=[DeviceConstraint(requests=["other"], match_attribute=f"{GPU}/numa")],
            ),
            'spec.devices.constraints[0].requests[0]: Invalid value: "other": must be the name '
            "of a request in the claim or the name of a request and a subrequest separated by '/'",
        ),
        (
            claim(exactly(), constraints=[DeviceConstraint(match_attribute="numa")]),
            'spec.devices.constraints[0].matchAttribute: Invalid value: "numa": a fully '
            "qualified name must be a domain and a name separated by a slash",
        ),
        (
            claim(exactly(), constraints=[DeviceConstraint()]),
            "spec.devices.constraints[0].matchAttribute: Required value",
        ),
        (
            claim(exactly(tolerations=[DeviceToleration(key="k", operator="Exists", value="v")])),
            'spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: "v": '
            "must be empty for operator `Exists`",
        ),
        (
            claim(
                exactly(tolerations=[DeviceToleration(operator="Equal", effect="PreferNoSchedule")])
            ),
            "spec.devices.requests[0].exactly.tolerations[0].effect: Unsupported value: "
            '"PreferNoSchedule": supported values: "NoExecute", "NoSchedule", "None"',
        ),
    ],
)
def test_a_bad_claim_is_refused(obj: ResourceClaim, message: str) -> None:
    assert refusal(obj) == f'ResourceClaim.resource.k8s.io "c" is invalid: {message}'


def cel(expression: str) -> list[DeviceSelector]:
    return [DeviceSelector(cel=CELDeviceSelector(expression=expression))]


def test_a_selector_that_does_not_compile_is_refused() -> None:
    bad = claim(exactly(selectors=cel("device.driver ==")))
    assert refusal(bad) == (
        'ResourceClaim.resource.k8s.io "c" is invalid: '
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "
        '"device.driver ==": compilation failed: ERROR: <input>:1:17: Syntax error: '
        "mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', "
        "'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
        " | device.driver ==\n"
        " | ................^"
    )


def test_a_selector_that_is_not_a_bool_is_refused() -> None:
    bad = DeviceClass(metadata=ObjectMeta(name=GPU), spec=DeviceClassSpec(selectors=cel("1 + 1")))
    assert refusal(bad) == (
        f'DeviceClass.resource.k8s.io "{GPU}" is invalid: spec.selectors[0].cel.expression: '
        'Invalid value: "1 + 1": must evaluate to bool or the unknown type, not int'
    )


def test_a_template_is_checked_like_the_claim_it_holds() -> None:
    template = ResourceClaimTemplate(
        metadata=ObjectMeta(name="t", namespace="ml"),
        spec=ResourceClaimTemplateSpec(
            spec=ResourceClaimSpec(
                devices=DeviceClaim(requests=[exactly(count=0, allocation_mode="ExactCount")])
            )
        ),
    )
    # count 0 with ExactCount is defaulted to 1 when read, so set it after construction
    template.spec.spec.devices.requests[0].exactly.count = 0  # type: ignore[union-attr]
    assert refusal(template) == (
        'ResourceClaimTemplate.resource.k8s.io "t" is invalid: '
        "spec.spec.devices.requests[0].exactly.count: Invalid value: 0: must be greater than zero"
    )


def test_a_bad_device_class_is_refused() -> None:
    bad = DeviceClass(
        metadata=ObjectMeta(name=GPU),
        spec=DeviceClassSpec(extended_resource_name="gpu"),
    )
    assert refusal(bad) == (
        f'DeviceClass.resource.k8s.io "{GPU}" is invalid: spec.extendedResourceName: '
        'Invalid value: "gpu": must be a valid extended resource name'
    )


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            slice_(driver=""),
            '[spec.driver: Required value, spec.driver: Invalid value: "": a lowercase RFC 1123 '
            "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'example.com', regex used for "
            "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]",
        ),
        (
            slice_(pool=ResourcePool(name="n1", generation=1, resource_slice_count=0)),
            "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
        ),
        (
            slice_(pool=ResourcePool(resource_slice_count=1)),
            "spec.pool.name: Required value",
        ),
        (
            slice_(node_name=None),
            "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
            "`perDeviceNodeSelection` is required",
        ),
        (
            slice_(all_nodes=True),
            'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, '
            "`nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple "
            "fields are set",
        ),
        (
            slice_(Device(name="gpu-0"), Device(name="gpu-0")),
            'spec.devices[1]: Duplicate value: "gpu-0"',
        ),
        (
            slice_(Device(name="gpu-0", attributes={"model": DeviceAttribute()})),
            'spec.devices[0].attributes[model]: Invalid value: "": exactly one value must be '
            "specified",
        ),
        (
            slice_(Device(name="gpu-0", attributes={"v": DeviceAttribute(version_value="1.0")})),
            'spec.devices[0].attributes[v].version: Invalid value: "1.0": must be a string '
            "compatible with semver.org spec 2.0.0",
        ),
        (
            slice_(Device(name="gpu-0", attributes={"a/b/c": DeviceAttribute(int_value=1)})),
            'spec.devices[0].attributes: Invalid value: "a/b/c": '
            "must not contain more than one slash",
        ),
        (
            slice_(Device(name="gpu-0", taints=[DeviceTaint(key="k", effect="Later")])),
            'spec.devices[0].taints[0].effect: Unsupported value: "Later": supported values: '
            '"NoExecute", "NoSchedule", "None"',
        ),
        (
            slice_(*(Device(name=f"d{i}") for i in range(129))),
            "spec.devices: Too many: 129: must have at most 128 items",
        ),
    ],
)
def test_a_bad_slice_is_refused(obj: ResourceSlice, message: str) -> None:
    assert refusal(obj) == f'ResourceSlice.resource.k8s.io "s" is invalid: {message}'


DUPLICATE_DEVICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: worker-1-gpus
spec:
  driver: gpu.example.com
  nodeName: worker-1
  pool:
    name: worker-1
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
  - name: gpu-0
"""


def test_a_refused_manifest_names_its_file_and_document(tmp_path: Path) -> None:
    loaded = load_text(tmp_path, DUPLICATE_DEVICE, name="slices.yaml")
    cluster = create_in_memory()

    async def create() -> None:
        await create_objects(cluster, loaded.objects, loaded.origins)

    with pytest.raises(ManifestError) as caught:
        asyncio.run(create())
    assert str(caught.value) == (
        f"{tmp_path / 'slices.yaml'}: document 1: ResourceSlice.resource.k8s.io "
        '"worker-1-gpus" is invalid: spec.devices[1]: Duplicate value: "gpu-0"'
    )
