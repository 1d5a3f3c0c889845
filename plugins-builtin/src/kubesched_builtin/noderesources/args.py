"""NodeResourcesFitArgs: the plugin's `pluginConfig` args (kubescheduler.config.k8s.io/v1).

Defaulting follows pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_NodeResourcesFitArgs)
and validation pkg/scheduler/apis/config/validation/validation_pluginargs.go
(ValidateNodeResourcesFitArgs); error texts are upstream's `field.Error` strings,
`<path>: <type>: <value>: <detail>`, so a mistake reads as it would in kube-scheduler.
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, Field, model_validator

from kubesched.api.field import ErrorList, Path, invalid, new_path, not_supported, required
from kubesched.api.validation import validate_label_name
from kubesched.framework import PluginArgs

__all__ = [
    "LEAST_ALLOCATED",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "MOST_ALLOCATED",
    "REQUESTED_TO_CAPACITY_RATIO",
    "NodeResourcesFitArgs",
    "RequestedToCapacityRatioParam",
    "ResourceSpec",
    "ScoringStrategy",
    "UtilizationShapePoint",
]

LEAST_ALLOCATED: Final = "LeastAllocated"
MOST_ALLOCATED: Final = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO: Final = "RequestedToCapacityRatio"
_SUPPORTED_TYPES: Final = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)

MAX_CUSTOM_PRIORITY_SCORE: Final = 10
"""Shape scores are 0..10; the scorer scales them to 0..100."""

_CONFIG: Final = PluginArgs.model_config


class ResourceSpec(BaseModel):
    """A resource to score on and its weight (0 means the default, 1)."""

    model_config = _CONFIG

    name: str
    weight: int = 0

    @model_validator(mode="after")
    def _default_weight(self) -> ResourceSpec:
        if self.weight == 0:
            self.weight = 1
        return self


class UtilizationShapePoint(BaseModel):
    """One point of the RequestedToCapacityRatio curve: utilization % → score (0..10)."""

    model_config = _CONFIG

    utilization: int
    score: int


class RequestedToCapacityRatioParam(BaseModel):
    model_config = _CONFIG

    shape: list[UtilizationShapePoint] = Field(default_factory=list)


def _default_resources() -> list[ResourceSpec]:
    return [ResourceSpec(name="cpu", weight=1), ResourceSpec(name="memory", weight=1)]


class ScoringStrategy(BaseModel):
    """How Score ranks nodes: LeastAllocated, MostAllocated or RequestedToCapacityRatio."""

    model_config = _CONFIG

    type: str = ""
    resources: list[ResourceSpec] = Field(default_factory=list)
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None

    @model_validator(mode="after")
    def _default_resources(self) -> ScoringStrategy:
        if not self.resources:
            self.resources = _default_resources()
        return self


def _default_strategy() -> ScoringStrategy:
    return ScoringStrategy(type=LEAST_ALLOCATED)


class NodeResourcesFitArgs(PluginArgs):
    """Args of NodeResourcesFit."""

    ignored_resources: list[str] = Field(default_factory=list)
    """Extended resources Filter does not check (e.g. `example.com/foo`)."""
    ignored_resource_groups: list[str] = Field(default_factory=list)
    """Extended resource groups (the part before `/`) Filter does not check."""
    scoring_strategy: ScoringStrategy = Field(default_factory=_default_strategy)

    def validation_errors(self) -> ErrorList:
        errs: ErrorList = []
        for i, res in enumerate(self.ignored_resources):
            errs += validate_label_name(res, f"ignoredResources[{i}]")
        for i, group in enumerate(self.ignored_resource_groups):
            path = new_path("ignoredResourceGroups").index(i)
            if "/" in group:
                errs.append(invalid(path, group, "resource group name can't contain '/'"))
            errs += validate_label_name(group, path)
        return errs + _strategy_errors(self.scoring_strategy, new_path("scoringStrategy"))


# -- validation ----------------------------------------------------------------------------


def _shape_errors(shape: list[UtilizationShapePoint], path: Path) -> ErrorList:
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


def _strategy_errors(strategy: ScoringStrategy, path: Path) -> ErrorList:
    errs: ErrorList = []
    if strategy.type not in _SUPPORTED_TYPES:
        errs.append(not_supported(path.child("type"), strategy.type, _SUPPORTED_TYPES))
    for i, spec in enumerate(strategy.resources):
        if not 0 < spec.weight <= 100:
            detail = f"resource weight of {spec.name} not in valid range (0, 100]"
            errs.append(
                invalid(path.child("resources").index(i).child("weight"), spec.weight, detail)
            )
    if strategy.requested_to_capacity_ratio is not None:
        # upstream reports shape errors under scoringStrategy.shape (sic)
        errs += _shape_errors(strategy.requested_to_capacity_ratio.shape, path.child("shape"))
    elif strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        # upstream would dereference nil here; say what is missing instead
        detail = "must be specified when type is RequestedToCapacityRatio"
        errs.append(required(path.child("requestedToCapacityRatio"), detail))
    return errs
