"""DynamicResourcesArgs: upstream v1.34's defaulting (filterTimeout 10s) and validation
(ValidateDynamicResourcesArgs) with their field-error texts."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from kubesched.features import ENV_VAR
from kubesched_dra.dynamicresources import DynamicResourcesArgs


def test_filter_timeout_defaults_to_ten_seconds() -> None:
    args = DynamicResourcesArgs()
    assert args.filter_timeout == "10s"
    assert args.filter_timeout_seconds == 10.0


@pytest.mark.parametrize(("text", "seconds"), [("0", 0.0), ("250ms", 0.25), ("1m30s", 90.0)])
def test_filter_timeout_accepts_go_durations(text: str, seconds: float) -> None:
    args = DynamicResourcesArgs.model_validate({"filterTimeout": text})
    assert args.filter_timeout_seconds == seconds


def test_negative_timeout_is_invalid() -> None:
    with pytest.raises(ValidationError) as info:
        DynamicResourcesArgs.model_validate({"filterTimeout": "-1000ms"})
    assert "filterTimeout: Invalid value: -1s: must be zero or positive" in str(info.value)


def test_timeout_is_forbidden_with_the_gate_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "DRASchedulerFilterTimeout=false")
    assert DynamicResourcesArgs().filter_timeout is None
    with pytest.raises(ValidationError) as info:
        DynamicResourcesArgs.model_validate({"filterTimeout": "5s"})
    assert "filterTimeout: Forbidden: DRASchedulingFilterTimeout feature gate is disabled" in str(
        info.value
    )


def test_not_a_duration_names_the_field() -> None:
    with pytest.raises(ValidationError) as info:
        DynamicResourcesArgs.model_validate({"filterTimeout": "ten seconds"})
    assert 'filterTimeout: Invalid value: "ten seconds": invalid duration' in str(info.value)


def test_unknown_field_is_refused() -> None:
    with pytest.raises(ValidationError, match="bindingTimeout"):
        DynamicResourcesArgs.model_validate({"bindingTimeout": "600s"})
