"""PodTopologySpreadArgs: the plugin's `pluginConfig` args (kubescheduler.config.k8s.io/v1).

Defaulting follows pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_PodTopologySpreadArgs:
an empty defaultingType becomes System) and validation
pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidatePodTopologySpreadArgs),
with upstream's `field.Error` texts.
"""

from __future__ import annotations

import json
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from kubesched.api import LabelSelector, TopologySpreadConstraint
from kubesched_builtin.helper.validation import qualified_name_errors

__all__ = [
    "LIST_DEFAULTING",
    "SYSTEM_DEFAULTING",
    "DefaultConstraint",
    "PodTopologySpreadArgs",
    "validation_errors",
]

SYSTEM_DEFAULTING: Final = "System"
LIST_DEFAULTING: Final = "List"
_DEFAULTING_TYPES: Final = (SYSTEM_DEFAULTING, LIST_DEFAULTING)
_ACTIONS: Final = ("DoNotSchedule", "ScheduleAnyway")  # sorted, as sets.List gives them

_CONFIG: Final = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class DefaultConstraint(BaseModel):
    """A default topology spread constraint (a v1.TopologySpreadConstraint without its own
    selector: the selector is deduced for each pod from its Services and controllers)."""

    model_config = _CONFIG

    max_skew: int = 0
    topology_key: str = ""
    when_unsatisfiable: str = ""
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: Literal["Honor", "Ignore"] | None = None
    node_taints_policy: Literal["Honor", "Ignore"] | None = None
    match_label_keys: list[str] = Field(default_factory=list)

    def as_constraint(self) -> TopologySpreadConstraint:
        """The constraint as a pod would carry it (only valid once validated)."""
        return TopologySpreadConstraint.model_validate(self.model_dump())


class PodTopologySpreadArgs(BaseModel):
    """Args of PodTopologySpread.

    `defaultingType: System` (the default) applies kube-scheduler's built-in default
    constraints to pods that have none; `List` applies `defaultConstraints` (possibly
    none)."""

    model_config = _CONFIG

    default_constraints: list[DefaultConstraint] = Field(default_factory=list)
    defaulting_type: str = SYSTEM_DEFAULTING

    @model_validator(mode="after")
    def _validate(self) -> PodTopologySpreadArgs:
        if not self.defaulting_type:
            self.defaulting_type = SYSTEM_DEFAULTING
        errors = validation_errors(self)
        if errors:
            # upstream utilerrors.Aggregate: one error alone, several as "[a, b]"
            raise ValueError(errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")
        return self


def _quoted(value: str) -> str:
    return json.dumps(value)


def validation_errors(args: PodTopologySpreadArgs) -> list[str]:
    """Every problem with (defaulted) args, as upstream field errors; empty when valid."""
    errs: list[str] = []
    kind = args.defaulting_type
    if kind not in _DEFAULTING_TYPES:
        supported = ", ".join(_quoted(t) for t in _DEFAULTING_TYPES)
        errs.append(
            f"defaultingType: Unsupported value: {_quoted(kind)}: supported values: {supported}"
        )
    elif kind == SYSTEM_DEFAULTING and args.default_constraints:
        errs.append(
            f"defaultingType: Invalid value: {_quoted(kind)}: "
            "when .defaultConstraints are not empty"
        )

    seen: dict[tuple[str, str], int] = {}
    for i, c in enumerate(args.default_constraints):
        path = f"defaultConstraints[{i}]"
        if c.max_skew <= 0:
            errs.append(f"{path}.maxSkew: Invalid value: {c.max_skew}: not in valid range (0, inf)")
        if not c.topology_key:
            errs.append(f"{path}.topologyKey: Required value: can not be empty")
        else:
            errs += qualified_name_errors(f"{path}.topologyKey", c.topology_key)
        if not c.when_unsatisfiable:
            errs.append(f"{path}.whenUnsatisfiable: Required value: can not be empty")
        elif c.when_unsatisfiable not in _ACTIONS:
            supported = ", ".join(_quoted(a) for a in _ACTIONS)
            errs.append(
                f"{path}.whenUnsatisfiable: Unsupported value: {_quoted(c.when_unsatisfiable)}: "
                f"supported values: {supported}"
            )
        if c.label_selector is not None:
            errs.append(
                f"{path}.labelSelector: Forbidden: "
                "constraint must not define a selector, as they deduced for each pod"
            )
        pair = (c.topology_key, c.when_unsatisfiable)
        if pair in seen:
            errs.append(f"{path}: Duplicate value: {_quoted(f'{{{pair[0]}, {pair[1]}}}')}")
        else:
            seen[pair] = i
    return errs
