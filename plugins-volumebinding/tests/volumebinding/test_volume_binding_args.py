"""VolumeBindingArgs: defaults and validation as upstream's SetDefaults_VolumeBindingArgs
and ValidateVolumeBindingArgsWithOptions (TestValidateVolumeBindingArgs)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from kubesched_volumebinding.features import ENV_VAR, current_features
from kubesched_volumebinding.volumebinding import VolumeBindingArgs


def _args(**data: Any) -> VolumeBindingArgs:
    return VolumeBindingArgs.model_validate(data)


def test_defaults_without_scoring() -> None:
    args = _args()
    assert args.bind_timeout_seconds == 600
    assert args.shape is None


def test_default_shape_with_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "StorageCapacityScoring=true")
    args = _args()
    assert [(p.utilization, p.score) for p in args.shape or []] == [(0, 10), (100, 0)]


def test_zero_timeout_is_valid() -> None:
    assert _args(bindTimeoutSeconds=0).bind_timeout_seconds == 0


@pytest.mark.parametrize(
    ("data", "scoring", "message"),
    [
        (
            {"bindTimeoutSeconds": -10},
            False,
            "bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not be a "
            "negative value",
        ),
        (
            {"shape": [{"utilization": 0, "score": 0}]},
            False,
            "unexpected field `shape`, remove it or turn on the feature gate "
            "StorageCapacityScoring",
        ),
        (
            {"shape": [{"utilization": 0, "score": 0}, {"utilization": 0, "score": 10}]},
            True,
            "shape[1].utilization: Invalid value: 0: values must be sorted in increasing order",
        ),
        (
            {"shape": [{"utilization": 0, "score": 0}, {"utilization": 101, "score": 10}]},
            True,
            "shape[1].utilization: Invalid value: 101: not in valid range [0, 100]",
        ),
        (
            {"shape": [{"utilization": 0, "score": -1}, {"utilization": 100, "score": 11}]},
            True,
            "[shape[0].score: Invalid value: -1: not in valid range [0, 10], "
            "shape[1].score: Invalid value: 11: not in valid range [0, 10]]",
        ),
    ],
)
def test_invalid_args(
    data: dict[str, Any], scoring: bool, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if scoring:
        monkeypatch.setenv(ENV_VAR, "StorageCapacityScoring=true")
    with pytest.raises(ValidationError) as info:
        _args(**data)
    assert message in str(info.value)


def test_unknown_field_is_rejected() -> None:
    with pytest.raises(ValidationError, match="bindTimeout"):
        _args(bindTimeout=5)


def test_feature_gate_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "SchedulerPopFromBackoffQ=true, VolumeAttributesClass=false")
    features = current_features()
    assert not features.volume_attributes_class and not features.storage_capacity_scoring
    monkeypatch.setenv(ENV_VAR, "StorageCapacityScoring=maybe")
    with pytest.raises(ValueError, match="StorageCapacityScoring"):
        current_features()
    monkeypatch.setenv(ENV_VAR, "Other=true")  # kube-scheduler refuses unknown gates too
    with pytest.raises(ValueError, match="unrecognized feature gate: Other"):
        current_features()
