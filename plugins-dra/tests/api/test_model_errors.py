"""A resource.k8s.io/v1 object the model cannot hold is refused at load with the file,
the document, the field path and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest
from dra_helpers import load_text

from kubesched._errors import ManifestError

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: c
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: {mode}
"""


def test_an_unknown_allocation_mode_is_not_supported(tmp_path: Path) -> None:
    with pytest.raises(ManifestError) as caught:
        load_text(tmp_path, CLAIM.format(mode="Some"), name="claim.yaml")
    assert str(caught.value) == (
        f"{tmp_path / 'claim.yaml'}: document 1: "
        "spec.devices.requests[0].exactly.allocationMode: "
        'Unsupported value: "Some": supported values: "All", "ExactCount"'
    )


SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: s
spec:
  driver: gpu.example.com
  nodeName: n1
  pool:
    name: n1
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
    attributes:
      index: {value}
"""


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('{int: "0"}', 'spec.devices[0].attributes.index.int: expected a valid integer, got "0"'),
        ("{bool: 1}", "spec.devices[0].attributes.index.bool: expected a valid boolean, got 1"),
    ],
)
def test_an_attribute_value_of_the_wrong_type_is_refused(
    tmp_path: Path, value: str, expected: str
) -> None:
    with pytest.raises(ManifestError) as caught:
        load_text(tmp_path, SLICE.format(value=value), name="slice.yaml")
    assert str(caught.value) == f"{tmp_path / 'slice.yaml'}: document 1: {expected}"


def test_a_capacity_that_is_not_a_quantity_is_refused(tmp_path: Path) -> None:
    text = SLICE.format(value="{int: 0}") + "    capacity:\n      memory: {value: lots}\n"
    with pytest.raises(ManifestError) as caught:
        load_text(tmp_path, text, name="slice.yaml")
    message = str(caught.value)
    assert message.startswith(
        f"{tmp_path / 'slice.yaml'}: document 1: spec.devices[0].capacity.memory.value: "
    )
    assert '"lots"' in message
