"""Fuzzing the kube backend's decoder (`kubesched.cluster.kube` decode) with mutated objects.

Property: an object the API server could send either decodes, and then encodes and decodes
back to the same model, or raises DecodeError with a one-line message naming it. Needs the
`kube` extra (aiohttp); the integration env runs without it, the core env with it.
"""

from __future__ import annotations

from typing import Any

import pytest
from fuzz_support import FUZZ_SETTINGS, mutated
from hypothesis import given
from hypothesis import strategies as st

from kubesched.api import KindInfo
from kubesched.api._kinds import core_kinds

pytest.importorskip("aiohttp")

from kubesched.cluster.kube._resources import DecodeError, decode

_KINDS: dict[str, KindInfo] = {info.kind: info for info in core_kinds()}
_NODE = {
    "metadata": {"name": "n1", "labels": {"zone": "a"}, "resourceVersion": "7"},
    "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
    "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
}
_POD = {
    "metadata": {"name": "p", "namespace": "ns", "labels": {"app": "web"}},
    "spec": {
        "nodeSelector": {"zone": "a"},
        "priority": 10,
        "containers": [
            {"name": "c", "image": "i", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}}}
        ],
        "tolerations": [{"key": "k", "operator": "Exists"}],
    },
}


@FUZZ_SETTINGS
@given(kind_raw=st.sampled_from([("Node", _NODE), ("Pod", _POD)]), data=st.data())
def test_kube_decode_fails_only_with_decode_error_and_round_trips(
    kind_raw: tuple[str, dict[str, Any]], data: st.DataObject
) -> None:
    kind, original = kind_raw
    raw = data.draw(mutated(original))
    info = _KINDS[kind]
    if not isinstance(raw, dict):
        return  # the informer only ever hands decode() a JSON object
    try:
        obj = decode(info, raw)
    except DecodeError as error:
        assert "\n" not in str(error)
        return
    assert decode(info, obj.to_dict()) == obj


def test_kube_decode_of_a_non_object_metadata_is_a_decode_error() -> None:
    expected = r'^Node "" from the API server does not decode: metadata'
    with pytest.raises(DecodeError, match=expected):
        decode(_KINDS["Node"], {"metadata": "1.5.3Gi"})
