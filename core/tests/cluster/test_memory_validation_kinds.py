"""The memory cluster refuses invalid nodes, priority classes and namespaces as the API
server does (pkg/apis/core/validation ValidateNode and ValidateNamespace,
pkg/apis/scheduling/validation ValidatePriorityClass), and prints quantities as
resource.Quantity.String() does."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from kubesched.api import K8sModel, Namespace, Node, PriorityClass, parse_quantity
from kubesched.cluster.memory import AdmissionError, MemoryCluster
from kubesched.cluster.memory._validation_field import quantity_string


def refusal(cluster: MemoryCluster, obj: K8sModel) -> str:
    with pytest.raises(AdmissionError) as caught:
        cluster.create_many([obj])
    assert caught.value.reason == "invalid"
    return str(caught.value)


def node(spec: dict[str, Any] | None = None, **status: Any) -> Node:
    return Node.model_validate({"metadata": {"name": "n1"}, "spec": spec or {}, "status": status})


NODE_CASES: list[tuple[str, Node, str]] = [
    (
        "negative allocatable",
        node(allocatable={"cpu": "-4", "memory": "8Gi"}),
        'Node "n1" is invalid: status.allocatable.cpu: Invalid value: "-4": must be greater than '
        "or equal to 0",
    ),
    (
        "a fraction of a pod",
        node(capacity={"pods": "1.5"}),
        'Node "n1" is invalid: status.capacity.pods: Invalid value: 1500m: must be an integer',
    ),
    (
        "the same taint twice",
        node({"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}] * 2}),
        'Node "n1" is invalid: metadata.taints[1]: Duplicate value: core.Taint{Key:"dedicated", '
        'Value:"gpu", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by '
        "key and effect pair",
    ),
    (
        "a taint value with a space",
        node({"taints": [{"key": "k", "value": "a b", "effect": "NoExecute"}]}),
        'Node "n1" is invalid: metadata.taints[0].value: Invalid value: "a b": a valid label must '
        "be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
        "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ),
]


@pytest.mark.parametrize(
    ("obj", "message"), [c[1:] for c in NODE_CASES], ids=[c[0] for c in NODE_CASES]
)
def test_an_invalid_node_is_refused(cluster: MemoryCluster, obj: Node, message: str) -> None:
    assert refusal(cluster, obj) == message
    assert cluster.list("Node") == []


def priority_class(name: str, value: int, **fields: Any) -> PriorityClass:
    return PriorityClass.model_validate({"metadata": {"name": name}, "value": value, **fields})


PC = "PriorityClass.scheduling.k8s.io"
RESERVED = (
    "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for "
    "system use only. error:"
)


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            priority_class("high", 2_000_000_000),
            f'{PC} "high" is invalid: value: Forbidden: maximum allowed value of a user defined '
            "priority is 1000000000",
        ),
        (
            priority_class("system-high", 100),
            f'{PC} "system-high" is invalid: {RESERVED} system-high is not a known system '
            "priority class",
        ),
        (
            priority_class("system-node-critical", 100),
            f'{PC} "system-node-critical" is invalid: {RESERVED} value of system-node-critical '
            "PriorityClass must be 2000001000",
        ),
        (
            priority_class("system-cluster-critical", 2_000_000_000, globalDefault=True),
            f'{PC} "system-cluster-critical" is invalid: {RESERVED} globalDefault of '
            "system-cluster-critical PriorityClass must be false",
        ),
    ],
)
def test_an_invalid_priority_class_is_refused(
    cluster: MemoryCluster, obj: PriorityClass, message: str
) -> None:
    assert refusal(cluster, obj) == message


def test_the_system_classes_and_user_classes_up_to_a_billion_are_stored(
    cluster: MemoryCluster,
) -> None:
    cluster.create_many(
        [
            priority_class("system-cluster-critical", 2_000_000_000),
            priority_class("system-node-critical", 2_000_001_000),
            priority_class("high", 1_000_000_000),
        ]
    )
    assert len(cluster.list("PriorityClass")) == 3


def test_a_namespace_name_must_be_a_dns_label(cluster: MemoryCluster) -> None:
    obj = Namespace.model_validate({"metadata": {"name": "team.a"}})
    assert refusal(cluster, obj) == (
        'Namespace "team.a" is invalid: metadata.name: Invalid value: "team.a": must not contain '
        "dots"
    )


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("0", "0"),
        ("-1", "-1"),
        ("1000", "1k"),
        ("1500", "1500"),
        ("0.5", "500m"),
        ("1.5", "1500m"),
        ("-500m", "-500m"),
        ("250u", "250u"),
        ("1n", "1n"),
        ("2G", "2G"),
        ("1Gi", "1Gi"),
        ("-1Gi", "-1Gi"),
        ("1.5Gi", "1536Mi"),
        ("1025", "1025"),
        ("3Mi", "3Mi"),
    ],
)
def test_quantities_print_in_canonical_form(text: str, canonical: str) -> None:
    value = parse_quantity(text)
    assert quantity_string(value) == canonical
    assert parse_quantity(canonical) == value == Fraction(value)
