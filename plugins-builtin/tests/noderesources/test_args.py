"""NodeResourcesFitArgs: v1 defaulting and upstream's validation messages
(pkg/scheduler/apis/config/v1/defaults_test.go, validation/validation_pluginargs_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import fake_handle
from pydantic import ValidationError

from kubesched.framework import NoArgs
from kubesched_builtin.noderesources import NodeResourcesFit, NodeResourcesFitArgs

SUPPORTED = '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'


def test_defaults() -> None:
    args = NodeResourcesFitArgs()
    assert args.model_dump(by_alias=True, exclude_none=True) == {
        "ignoredResources": [],
        "ignoredResourceGroups": [],
        "scoringStrategy": {
            "type": "LeastAllocated",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
        },
    }


def test_strategy_without_resources_gets_cpu_and_memory_and_zero_weight_becomes_one() -> None:
    args = NodeResourcesFitArgs.model_validate(
        {"scoringStrategy": {"type": "MostAllocated"}, "ignoredResources": ["example.com/foo"]}
    )
    assert [(r.name, r.weight) for r in args.scoring_strategy.resources] == [
        ("cpu", 1),
        ("memory", 1),
    ]
    args = NodeResourcesFitArgs.model_validate(
        {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "nvidia.com/gpu"}]}}
    )
    assert [(r.name, r.weight) for r in args.scoring_strategy.resources] == [("nvidia.com/gpu", 1)]


def test_snake_case_names_are_accepted_too() -> None:
    args = NodeResourcesFitArgs.model_validate({"ignored_resource_groups": ["example.com"]})
    assert args.ignored_resource_groups == ["example.com"]


@pytest.mark.parametrize(
    "data",
    [
        {"ignoredResource": ["x"]},
        {"scoringStrategy": {"type": "LeastAllocated", "shape": []}},
        {
            "scoringStrategy": {
                "type": "LeastAllocated",
                "resources": [{"name": "cpu", "wieght": 1}],
            }
        },
    ],
)
def test_unknown_fields_are_rejected(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        NodeResourcesFitArgs.model_validate(data)


def _rtcr(shape: list[dict[str, int]]) -> dict[str, Any]:
    return {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": shape}}


INVALID = [
    (
        "negative weight",
        {
            "scoringStrategy": {
                "type": "LeastAllocated",
                "resources": [{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}],
            }
        },
        "scoringStrategy.resources[0].weight: Invalid value: -1: "
        "resource weight of memory not in valid range (0, 100]",
    ),
    (
        "weight above MaxNodeScore",
        {
            "scoringStrategy": {
                "type": "MostAllocated",
                "resources": [{"name": "memory", "weight": 1}, {"name": "cpu", "weight": 101}],
            }
        },
        "scoringStrategy.resources[1].weight: Invalid value: 101: "
        "resource weight of cpu not in valid range (0, 100]",
    ),
    (
        "unsupported type",
        {"scoringStrategy": {"type": "Invalid"}},
        f'scoringStrategy.type: Unsupported value: "Invalid": supported values: {SUPPORTED}',
    ),
    (
        "strategy given without a type",
        {"scoringStrategy": {"resources": [{"name": "cpu", "weight": 1}]}},
        f'scoringStrategy.type: Unsupported value: "": supported values: {SUPPORTED}',
    ),
    (
        "RequestedToCapacityRatio without its parameters",
        {"scoringStrategy": {"type": "RequestedToCapacityRatio"}},
        "scoringStrategy.requestedToCapacityRatio: Required value: "
        "must be specified when type is RequestedToCapacityRatio",
    ),
    (
        "empty shape",
        {"scoringStrategy": _rtcr([])},
        "scoringStrategy.shape: Required value: at least one point must be specified",
    ),
    (
        "shape not sorted",
        {
            "scoringStrategy": _rtcr(
                [{"utilization": 10, "score": 1}, {"utilization": 10, "score": 2}]
            )
        },
        "scoringStrategy.shape[1].utilization: Invalid value: 10: "
        "values must be sorted in increasing order",
    ),
    (
        "utilization out of range",
        {"scoringStrategy": _rtcr([{"utilization": 101, "score": 1}])},
        "scoringStrategy.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]",
    ),
    (
        "score out of range",
        {"scoringStrategy": _rtcr([{"utilization": 0, "score": 11}])},
        "scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10]",
    ),
    (
        "resource group with a slash",
        {"ignoredResourceGroups": ["example.com/aa"]},
        'ignoredResourceGroups[0]: Invalid value: "example.com/aa": '
        "resource group name can't contain '/'",
    ),
    (
        "ignored resource that is not a qualified name",
        {"ignoredResources": ["example.com/aaa/bbb"]},
        'ignoredResources[0]: Invalid value: "example.com/aaa/bbb": '
        "a qualified name must consist of",
    ),
    (
        "ignored resource with a bad name part",
        {"ignoredResources": ["example.com/-aaa"]},
        'ignoredResources[0]: Invalid value: "example.com/-aaa": name part must consist of',
    ),
]


@pytest.mark.parametrize(("name", "data", "message"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid_args(name: str, data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as info:
        NodeResourcesFitArgs.model_validate(data)
    assert message in str(info.value)


def test_several_errors_are_listed_together() -> None:
    with pytest.raises(ValidationError) as info:
        NodeResourcesFitArgs.model_validate(
            {"ignoredResourceGroups": ["a/b"], "scoringStrategy": {"type": "X"}}
        )
    text = str(info.value)
    assert '[ignoredResourceGroups[0]: Invalid value: "a/b"' in text
    assert ', scoringStrategy.type: Unsupported value: "X"' in text


@pytest.mark.parametrize(
    "data",
    [
        {"ignoredResources": ["example.com/foo", "foo"], "ignoredResourceGroups": ["example.com"]},
        {
            "scoringStrategy": _rtcr(
                [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
            )
        },
        {
            "scoringStrategy": {
                "type": "LeastAllocated",
                "resources": [{"name": "cpu", "weight": 100}],
            }
        },
    ],
)
def test_valid_args(data: dict[str, Any]) -> None:
    NodeResourcesFitArgs.model_validate(data)


def test_plugin_wants_its_own_args_type() -> None:
    with pytest.raises(TypeError, match="wants args of type NodeResourcesFitArgs, got NoArgs"):
        NodeResourcesFit(NoArgs(), fake_handle())
    assert NodeResourcesFit.Args is NodeResourcesFitArgs
