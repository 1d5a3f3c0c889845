"""VolumeBindingArgs: the plugin's `pluginConfig` args (kubescheduler.config.k8s.io/v1).

Defaulting follows pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_VolumeBindingArgs)
and validation validation_pluginargs.go (ValidateVolumeBindingArgsWithOptions): `shape` is
only allowed with the StorageCapacityScoring gate on, where it defaults to (0→10, 100→0),
"prefer the node with the most free space". Error texts are upstream's field errors.
"""

from __future__ import annotations

import json
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from kubesched_volumebinding.features import current_features

__all__ = [
    "DEFAULT_BIND_TIMEOUT_SECONDS",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "UtilizationShapePoint",
    "VolumeBindingArgs",
    "default_shape",
    "validation_errors",
]

DEFAULT_BIND_TIMEOUT_SECONDS: Final = 600
MAX_CUSTOM_PRIORITY_SCORE: Final = 10
"""Shape scores are 0..10; the scorer scales them to 0..100."""

_CONFIG: Final = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class UtilizationShapePoint(BaseModel):
    """One point of the scoring curve: storage utilisation % → score (0..10)."""

    model_config = _CONFIG

    utilization: int
    score: int


def default_shape() -> list[UtilizationShapePoint]:
    """StorageCapacityScoring's default: an empty node scores 10, a full one 0."""
    return [
        UtilizationShapePoint(utilization=0, score=MAX_CUSTOM_PRIORITY_SCORE),
        UtilizationShapePoint(utilization=100, score=0),
    ]


class VolumeBindingArgs(BaseModel):
    """Args of VolumeBinding."""

    model_config = _CONFIG

    bind_timeout_seconds: int = DEFAULT_BIND_TIMEOUT_SECONDS
    """How long PreBind waits for every claim to be bound (0 fails unless all are bound)."""
    shape: list[UtilizationShapePoint] | None = Field(default=None)
    """The Score curve; only with the StorageCapacityScoring gate on."""

    @model_validator(mode="after")
    def _default_and_validate(self) -> VolumeBindingArgs:
        scoring = current_features().storage_capacity_scoring
        if scoring and not self.shape:
            self.shape = default_shape()
        errors = validation_errors(self, allow_shape=scoring)
        if errors:
            # upstream utilerrors.Aggregate: one error alone, several as "[a, b]"
            raise ValueError(errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")
        return self


def _invalid(path: str, value: object, detail: str) -> str:
    return f"{path}: Invalid value: {value}: {detail}"


def _shape_text(shape: list[UtilizationShapePoint]) -> str:
    return json.dumps([p.model_dump() for p in shape], separators=(",", ":"))


def _shape_errors(shape: list[UtilizationShapePoint]) -> list[str]:
    if not shape:
        return ["shape: Required value: at least one point must be specified"]
    errs: list[str] = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errs.append(
                _invalid(
                    f"shape[{i}].utilization",
                    shape[i].utilization,
                    "values must be sorted in increasing order",
                )
            )
            break
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= 100:
            errs.append(
                _invalid(
                    f"shape[{i}].utilization", point.utilization, "not in valid range [0, 100]"
                )
            )
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(
                _invalid(
                    f"shape[{i}].score",
                    point.score,
                    f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]",
                )
            )
    return errs


def validation_errors(args: VolumeBindingArgs, *, allow_shape: bool) -> list[str]:
    """Every problem with (defaulted) args, as upstream field errors; empty when valid."""
    errs: list[str] = []
    if args.bind_timeout_seconds < 0:
        errs.append(
            _invalid(
                "bindTimeoutSeconds",
                args.bind_timeout_seconds,
                "invalid BindTimeoutSeconds, should not be a negative value",
            )
        )
    if allow_shape:
        errs += _shape_errors(args.shape or [])
    elif args.shape is not None:
        errs.append(
            _invalid(
                "shape",
                _shape_text(args.shape),
                "unexpected field `shape`, remove it or turn on the feature gate "
                "StorageCapacityScoring",
            )
        )
    return errs
