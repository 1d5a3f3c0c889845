"""The memory cluster's deep copy equals pydantic's and shares no mutable part with the
original, for any node or pod the kit's strategies generate; its shallow `replaced` equals
pydantic's model_copy(update=...)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from kubesched.api import Node, Pod, Volume
from kubesched.cluster.memory._copy import deep_copy, replaced
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


def _assert_same_copy(got: BaseModel, want: BaseModel) -> None:
    assert type(got) is type(want)
    assert got.__dict__ == want.__dict__
    assert all(got.__dict__[k] is want.__dict__[k] for k in want.__dict__)  # shallow
    assert got.model_fields_set == want.model_fields_set
    assert got.__pydantic_extra__ == want.__pydantic_extra__
    assert got.__pydantic_private__ == want.__pydantic_private__


@settings(max_examples=60, deadline=None)
@given(pods(), st.text(max_size=5))
def test_replaced_equals_pydantic_model_copy_with_update(pod: Pod, node: str) -> None:
    spec = replaced(pod.spec, node_name=node)
    _assert_same_copy(spec, pod.spec.model_copy(update={"node_name": node}))
    _assert_same_copy(
        replaced(pod, spec=spec, status=pod.status),
        pod.model_copy(update={"spec": spec, "status": pod.status}),
    )
    assert pod.spec.node_name != node or spec.node_name == node
    assert replaced(pod.spec, node_name=node).model_fields_set is not pod.spec.model_fields_set


def test_replaced_keeps_unknown_fields_of_a_model_that_allows_them() -> None:
    volume = Volume.model_validate({"name": "v", "hostPath": {"path": "/x"}})
    _assert_same_copy(replaced(volume, name="w"), volume.model_copy(update={"name": "w"}))
    assert replaced(volume, name="w").__pydantic_extra__ == {"hostPath": {"path": "/x"}}
