"""CoschedulingArgs: scheduler-plugins' defaults (apis/config/v1/defaults.go) and
validation messages (apis/config/validation/validation_pluginargs.go), plus kubesched's
two args and the group backoff they shape."""

from __future__ import annotations

from typing import Any

import pytest
from cosched_helpers import BUILTIN, gang_config
from pydantic import ValidationError

from kubesched import ConfigError
from kubesched.config import parse_config, resolve
from kubesched.runtime import PluginRegistry
from kubesched_coscheduling import Coscheduling, CoschedulingArgs
from kubesched_coscheduling.coscheduling import group_backoff_seconds


def test_defaults() -> None:
    assert CoschedulingArgs().model_dump(by_alias=True) == {
        "permitWaitingTimeSeconds": 60,
        "podGroupBackoffSeconds": 0,
        "podGroupRejectPercentage": 10,
        "podGroupMaxBackoffSeconds": 10,
        "maxWaitingPodGroups": 1,
    }


def test_scheduler_plugins_args_load_unchanged() -> None:
    args = CoschedulingArgs.model_validate(
        {
            "permitWaitingTimeSeconds": 10,
            "podGroupBackoffSeconds": 30,
            "podGroupRejectPercentage": 0,
        }
    )
    assert (args.permit_waiting_time_seconds, args.pod_group_backoff_seconds) == (10, 30)
    assert args.pod_group_reject_percentage == 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"permitWaitingTimeSeconds": -1},
            "permitWaitingTimeSeconds: Invalid value: -1: must be greater than 0",
        ),
        (
            {"podGroupBackoffSeconds": -1},
            "podGroupBackoffSeconds: Invalid value: -1: must be greater than 0",
        ),
        (
            {"podGroupRejectPercentage": 101},
            "podGroupRejectPercentage: Invalid value: 101: must be between 0 and 100",
        ),
        (
            {"podGroupRejectPercentage": -1},
            "podGroupRejectPercentage: Invalid value: -1: must be between 0 and 100",
        ),
        (
            {"maxWaitingPodGroups": -2},
            "maxWaitingPodGroups: Invalid value: -2: must not be negative",
        ),
        (
            {"permitWaitingTimeSeconds": -1, "podGroupBackoffSeconds": -2},
            "[permitWaitingTimeSeconds: Invalid value: -1: must be greater than 0, "
            "podGroupBackoffSeconds: Invalid value: -2: must be greater than 0]",
        ),
    ],
)
def test_validation(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as err:
        CoschedulingArgs.model_validate(data)
    assert message in str(err.value)


def test_zero_wait_is_accepted_as_upstream_does() -> None:
    assert CoschedulingArgs.model_validate({"permitWaitingTimeSeconds": 0})


def test_unknown_fields_are_rejected() -> None:
    with pytest.raises(ValidationError):
        CoschedulingArgs.model_validate({"deniedPGExpirationTimeSeconds": 3})


@pytest.mark.parametrize(
    ("initial", "cap", "failures", "want"),
    [
        (0, 10, 1, 1.0),  # 0 means 1 s
        (0, 10, 4, 8.0),
        (0, 10, 5, 10.0),
        (2, 10, 3, 8.0),
        (30, 10, 1, 30.0),  # a value set alone is upstream's fixed window
        (30, 10, 3, 30.0),
        (5, 60, 4, 40.0),
    ],
)
def test_group_backoff(initial: int, cap: int, failures: int, want: float) -> None:
    args = CoschedulingArgs(pod_group_backoff_seconds=initial, pod_group_max_backoff_seconds=cap)
    assert group_backoff_seconds(args, failures) == want


def test_bad_args_in_a_profile_name_the_plugin() -> None:
    registry = PluginRegistry.of(*BUILTIN, Coscheduling)
    config = parse_config(gang_config({"podGroupRejectPercentage": 200}))
    with pytest.raises(ConfigError) as err:
        resolve(config, registry)
    assert "podGroupRejectPercentage: Invalid value: 200: must be between 0 and 100" in str(
        err.value
    )
