"""The memory cluster's deep copy equals pydantic's and shares no mutable part with the
original, for any node or pod the kit's strategies generate."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from kubesched.api import Node, Pod
from kubesched.cluster.memory._copy import deep_copy
from kubesched.testing.strategies import nodes, pods


def _mutable_parts(value: Any) -> list[Any]:
    """Every model, list and dict in the tree, the root included."""
    found: list[Any] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, BaseModel):
            found.append(v)
            stack.extend(v.__dict__.values())
        elif isinstance(v, list):
            found.append(v)
            stack.extend(v)
        elif isinstance(v, dict):
            found.append(v)
            stack.extend(v.values())
    return found


def _assert_deep_copy(original: BaseModel) -> None:
    copied = deep_copy(original)
    assert type(copied) is type(original)
    assert copied == original.model_copy(deep=True)
    assert copied.model_dump(mode="json") == original.model_dump(mode="json")
    assert copied.model_fields_set == original.model_fields_set
    shared = {id(v) for v in _mutable_parts(original)} & {id(v) for v in _mutable_parts(copied)}
    assert not shared


@settings(max_examples=60, deadline=None)
@given(st.one_of(nodes(), pods()))
def test_deep_copy_equals_pydantic_and_shares_nothing(obj: Node | Pod) -> None:
    _assert_deep_copy(obj)


def test_deep_copy_keeps_fields_set_apart() -> None:
    pod = Pod.model_validate({"metadata": {"name": "p", "labels": {"a": "b"}}})
    copied = deep_copy(pod)
    copied.metadata.labels["c"] = "d"
    copied.model_fields_set.add("status")
    assert pod.metadata.labels == {"a": "b"}
    assert "status" not in pod.model_fields_set
