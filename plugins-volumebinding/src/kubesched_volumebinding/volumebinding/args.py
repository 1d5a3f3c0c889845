"""VolumeBindingArgs: the plugin's `pluginConfig` args (kubescheduler.config.k8s.io/v1).

Defaulting follows pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_VolumeBindingArgs)
and validation validation_pluginargs.go (ValidateVolumeBindingArgsWithOptions): `shape` is
only allowed with the StorageCapacityScoring gate on, where it defaults to (0→10, 100→0),
"prefer the node with the most free space". Error texts are upstream's field errors.
"""

from __future__ import annotations

import json
from typing import Final

from pydantic import BaseModel, Field

from kubesched.api.field import ErrorList, Stringer, invalid, new_path, required
from kubesched.framework import PluginArgs
from kubesched_volumebinding.features import current_features

__all__ = [
    "DEFAULT_BIND_TIMEOUT_SECONDS",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "UtilizationShapePoint",
    "VolumeBindingArgs",
    "default_shape",
]

DEFAULT_BIND_TIMEOUT_SECONDS: Final = 600
MAX_CUSTOM_PRIORITY_SCORE: Final = 10
"""Shape scores are 0..10; the scorer scales them to 0..100."""


class UtilizationShapePoint(BaseModel):
    """One point of the scoring curve: storage utilisation % → score (0..10)."""

    model_config = PluginArgs.model_config

    utilization: int
    score: int


def default_shape() -> list[UtilizationShapePoint]:
    """StorageCapacityScoring's default: an empty node scores 10, a full one 0."""
    return [
        UtilizationShapePoint(utilization=0, score=MAX_CUSTOM_PRIORITY_SCORE),
        UtilizationShapePoint(utilization=100, score=0),
    ]


class VolumeBindingArgs(PluginArgs):
    """Args of VolumeBinding."""

    bind_timeout_seconds: int = DEFAULT_BIND_TIMEOUT_SECONDS
    """How long PreBind waits for every claim to be bound (0 fails unless all are bound)."""
    shape: list[UtilizationShapePoint] | None = Field(default=None)
    """The Score curve; only with the StorageCapacityScoring gate on."""

    def set_defaults(self) -> None:
        if current_features().storage_capacity_scoring and not self.shape:
            self.shape = default_shape()

    def validation_errors(self) -> ErrorList:
        errs: ErrorList = []
        if self.bind_timeout_seconds < 0:
            detail = "invalid BindTimeoutSeconds, should not be a negative value"
            errs.append(invalid("bindTimeoutSeconds", self.bind_timeout_seconds, detail))
        if current_features().storage_capacity_scoring:
            errs += _shape_errors(self.shape or [])
        elif self.shape is not None:
            detail = (
                "unexpected field `shape`, remove it or turn on the feature gate "
                "StorageCapacityScoring"
            )
            errs.append(invalid("shape", Stringer(_shape_text(self.shape)), detail))
        return errs


def _shape_text(shape: list[UtilizationShapePoint]) -> str:
    return json.dumps([p.model_dump() for p in shape], separators=(",", ":"))


def _shape_errors(shape: list[UtilizationShapePoint]) -> ErrorList:
    path = new_path("shape")
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs: ErrorList = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            detail = "values must be sorted in increasing order"
            errs.append(invalid(path.index(i).child("utilization"), shape[i].utilization, detail))
            break
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= 100:
            detail = "not in valid range [0, 100]"
            errs.append(invalid(path.index(i).child("utilization"), point.utilization, detail))
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            detail = f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"
            errs.append(invalid(path.index(i).child("score"), point.score, detail))
    return errs
