"""DefaultPreemptionArgs: v1 defaults and upstream's validation messages
(pkg/scheduler/apis/config/v1/defaults_test.go, validation/validation_pluginargs_test.go
TestValidateDefaultPreemptionArgs)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from kubesched import ConfigError
from kubesched.config import parse_config, resolve
from kubesched.runtime import PluginRegistry
from kubesched_builtin.defaultbinder import DefaultBinder
from kubesched_builtin.defaultpreemption import DefaultPreemption, DefaultPreemptionArgs
from kubesched_builtin.queuesort import PrioritySort


def test_defaults() -> None:
    assert DefaultPreemptionArgs().model_dump(by_alias=True) == {
        "minCandidateNodesPercentage": 10,
        "minCandidateNodesAbsolute": 100,
    }
    assert DefaultPreemption.Args is DefaultPreemptionArgs


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("valid config", {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}),
        ("zero percentage", {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 100}),
        ("zero absolute", {"minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": 0}),
        ("bounds", {"minCandidateNodesPercentage": 100, "minCandidateNodesAbsolute": 0}),
    ],
)
def test_valid(name: str, data: dict[str, Any]) -> None:
    DefaultPreemptionArgs.model_validate(data)


INVALID = [
    (
        "negative minCandidateNodesPercentage",
        {"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": 100},
        "minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]",
    ),
    (
        "too large minCandidateNodesPercentage",
        {"minCandidateNodesPercentage": 900, "minCandidateNodesAbsolute": 100},
        "minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]",
    ),
    (
        "negative minCandidateNodesAbsolute",
        {"minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": -1},
        "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)",
    ),
    (
        "all zero",
        {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
        "[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
        "minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be "
        "zero at the same time as minCandidateNodesPercentage]",
    ),
    (
        "both out of range",
        {"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": -1},
        "[minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100], "
        "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)]",
    ),
]


@pytest.mark.parametrize(("name", "data", "message"), INVALID, ids=[c[0] for c in INVALID])
def test_invalid(name: str, data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as info:
        DefaultPreemptionArgs.model_validate(data)
    assert message in str(info.value)


def test_unknown_field_is_rejected() -> None:
    with pytest.raises(ValidationError, match="minCandidateNodes"):
        DefaultPreemptionArgs.model_validate({"minCandidateNodes": 3})


def _config(args: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "pluginConfig": [{"name": "DefaultPreemption", "args": args}],
            }
        ],
    }


REGISTRY = PluginRegistry.of(PrioritySort, DefaultBinder, DefaultPreemption)


def test_plugin_config_args_reach_the_profile() -> None:
    resolved = resolve(parse_config(_config({"minCandidateNodesAbsolute": 7})), REGISTRY)
    args = resolved.profiles[0].args["DefaultPreemption"]
    assert isinstance(args, DefaultPreemptionArgs)
    assert (args.min_candidate_nodes_percentage, args.min_candidate_nodes_absolute) == (10, 7)
    assert resolved.profiles[0].points["PostFilter"] == ["DefaultPreemption"]


def test_invalid_plugin_config_args_are_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        resolve(parse_config(_config({"minCandidateNodesPercentage": 101})), REGISTRY)
    assert "minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]" in str(
        info.value
    )
