"""NodeResourcesFitArgs: the plugin's `pluginConfig` args (kubescheduler.config.k8s.io/v1).

Defaulting follows pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_NodeResourcesFitArgs)
and validation pkg/scheduler/apis/config/validation/validation_pluginargs.go
(ValidateNodeResourcesFitArgs); error texts are upstream's `field.Error` strings,
`<path>: <type>: <value>: <detail>`, so a mistake reads as it would in kube-scheduler.
"""

from __future__ import annotations

import json
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from kubesched_builtin.helper.validation import qualified_name_errors

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

_CONFIG: Final = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


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


class NodeResourcesFitArgs(BaseModel):
    """Args of NodeResourcesFit."""

    model_config = _CONFIG

    ignored_resources: list[str] = Field(default_factory=list)
    """Extended resources Filter does not check (e.g. `example.com/foo`)."""
    ignored_resource_groups: list[str] = Field(default_factory=list)
    """Extended resource groups (the part before `/`) Filter does not check."""
    scoring_strategy: ScoringStrategy = Field(default_factory=_default_strategy)

    @model_validator(mode="after")
    def _validate(self) -> NodeResourcesFitArgs:
        errors = validation_errors(self)
        if errors:
            # upstream utilerrors.Aggregate: one error alone, several as "[a, b]"
            raise ValueError(errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")
        return self


# -- validation ----------------------------------------------------------------------------


def _invalid(path: str, value: object, detail: str) -> str:
    shown = json.dumps(value) if isinstance(value, str) else str(value)
    return f"{path}: Invalid value: {shown}: {detail}"


def _shape_errors(shape: list[UtilizationShapePoint], path: str) -> list[str]:
    if not shape:
        return [f"{path}: Required value: at least one point must be specified"]
    errs: list[str] = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errs.append(
                _invalid(
                    f"{path}[{i}].utilization",
                    shape[i].utilization,
                    "values must be sorted in increasing order",
                )
            )
            break
    for i, point in enumerate(shape):
        if not 0 <= point.utilization <= 100:
            errs.append(
                _invalid(
                    f"{path}[{i}].utilization", point.utilization, "not in valid range [0, 100]"
                )
            )
        if not 0 <= point.score <= MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(
                _invalid(
                    f"{path}[{i}].score",
                    point.score,
                    f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]",
                )
            )
    return errs


def validation_errors(args: NodeResourcesFitArgs) -> list[str]:
    """Every problem with (defaulted) args, as upstream field errors; empty when valid."""
    errs: list[str] = []
    for i, res in enumerate(args.ignored_resources):
        errs += qualified_name_errors(f"ignoredResources[{i}]", res)
    for i, group in enumerate(args.ignored_resource_groups):
        path = f"ignoredResourceGroups[{i}]"
        if "/" in group:
            errs.append(_invalid(path, group, "resource group name can't contain '/'"))
        errs += qualified_name_errors(path, group)

    strategy = args.scoring_strategy
    if strategy.type not in _SUPPORTED_TYPES:
        supported = ", ".join(json.dumps(t) for t in _SUPPORTED_TYPES)
        errs.append(
            f"scoringStrategy.type: Unsupported value: {json.dumps(strategy.type)}: "
            f"supported values: {supported}"
        )
    for i, spec in enumerate(strategy.resources):
        if not 0 < spec.weight <= 100:
            errs.append(
                _invalid(
                    f"scoringStrategy.resources[{i}].weight",
                    spec.weight,
                    f"resource weight of {spec.name} not in valid range (0, 100]",
                )
            )
    if strategy.requested_to_capacity_ratio is not None:
        # upstream reports shape errors under scoringStrategy.shape (sic)
        errs += _shape_errors(strategy.requested_to_capacity_ratio.shape, "scoringStrategy.shape")
    elif strategy.type == REQUESTED_TO_CAPACITY_RATIO:
        # upstream would dereference nil here; say what is missing instead
        errs.append(
            "scoringStrategy.requestedToCapacityRatio: Required value: "
            "must be specified when type is RequestedToCapacityRatio"
        )
    return errs
