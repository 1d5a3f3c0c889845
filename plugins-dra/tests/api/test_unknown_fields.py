"""A misspelt field in a DRA manifest is found as `kubectl apply --validate=strict` finds it
(core's field schema holds the resource.k8s.io/v1 kinds), instead of being dropped and
silently defaulted."""

from __future__ import annotations

from pathlib import Path

import pytest
from dra_helpers import load_text

from kubesched._errors import ManifestError

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: gpu, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com, alocationMode: All}
"""

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    capacty: {memory: {value: 40Gi}}
"""


@pytest.mark.parametrize(
    ("text", "path", "detail"),
    [
        (
            CLAIM,
            "spec.devices.requests[0].exactly.alocationMode",
            'unknown field "alocationMode" (did you mean "allocationMode"?)',
        ),
        (
            SLICE,
            "spec.devices[0].capacty",
            'unknown field "capacty" (did you mean "capacity"?)',
        ),
    ],
)
def test_an_unknown_field_names_the_file_document_and_path(
    tmp_path: Path, text: str, path: str, detail: str
) -> None:
    with pytest.raises(ManifestError) as caught:
        load_text(tmp_path, text)
    assert (caught.value.document, caught.value.path, caught.value.detail) == (1, path, detail)


def test_the_same_manifests_spelt_right_load(tmp_path: Path) -> None:
    fixed = CLAIM.replace("alocationMode", "allocationMode")
    assert len(load_text(tmp_path, fixed).objects) == 1
    assert len(load_text(tmp_path, SLICE.replace("capacty", "capacity")).objects) == 1
