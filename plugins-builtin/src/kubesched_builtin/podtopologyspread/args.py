"""PodTopologySpreadArgs: the plugin's `pluginConfig` args (kubescheduler.config.k8s.io/v1).

Defaulting follows pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_PodTopologySpreadArgs:
an empty defaultingType becomes System) and validation
pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidatePodTopologySpreadArgs),
with upstream's `field.Error` texts.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, Field

from kubesched.api import LabelSelector, TopologySpreadConstraint
from kubesched.api.field import (
    ErrorList,
    duplicate,
    forbidden,
    invalid,
    new_path,
    not_supported,
    required,
)
from kubesched.api.validation import validate_label_name
from kubesched.framework import PluginArgs

__all__ = [
    "LIST_DEFAULTING",
    "SYSTEM_DEFAULTING",
    "DefaultConstraint",
    "PodTopologySpreadArgs",
]

SYSTEM_DEFAULTING: Final = "System"
LIST_DEFAULTING: Final = "List"
_DEFAULTING_TYPES: Final = (SYSTEM_DEFAULTING, LIST_DEFAULTING)
_ACTIONS: Final = ("DoNotSchedule", "ScheduleAnyway")  # sorted, as sets.List gives them


class DefaultConstraint(BaseModel):
    """A default topology spread constraint (a v1.TopologySpreadConstraint without its own
    selector: the selector is deduced for each pod from its Services and controllers)."""

    model_config = PluginArgs.model_config

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


class PodTopologySpreadArgs(PluginArgs):
    """Args of PodTopologySpread.

    `defaultingType: System` (the default) applies kube-scheduler's built-in default
    constraints to pods that have none; `List` applies `defaultConstraints` (possibly
    none)."""

    default_constraints: list[DefaultConstraint] = Field(default_factory=list)
    defaulting_type: str = SYSTEM_DEFAULTING

    def set_defaults(self) -> None:
        if not self.defaulting_type:
            self.defaulting_type = SYSTEM_DEFAULTING

    def validation_errors(self) -> ErrorList:
        errs: ErrorList = []
        kind = self.defaulting_type
        if kind not in _DEFAULTING_TYPES:
            errs.append(not_supported("defaultingType", kind, _DEFAULTING_TYPES))
        elif kind == SYSTEM_DEFAULTING and self.default_constraints:
            errs.append(invalid("defaultingType", kind, "when .defaultConstraints are not empty"))
        seen: set[tuple[str, str]] = set()
        for i, c in enumerate(self.default_constraints):
            errs += _constraint_errors(c, i)
            pair = (c.topology_key, c.when_unsatisfiable)
            if pair in seen:
                path = new_path("defaultConstraints").index(i)
                errs.append(duplicate(path, f"{{{pair[0]}, {pair[1]}}}"))
            seen.add(pair)
        return errs


def _constraint_errors(c: DefaultConstraint, i: int) -> ErrorList:
    path = new_path("defaultConstraints").index(i)
    errs: ErrorList = []
    if c.max_skew <= 0:
        errs.append(invalid(path.child("maxSkew"), c.max_skew, "not in valid range (0, inf)"))
    if not c.topology_key:
        errs.append(required(path.child("topologyKey"), "can not be empty"))
    else:
        errs += validate_label_name(c.topology_key, path.child("topologyKey"))
    if not c.when_unsatisfiable:
        errs.append(required(path.child("whenUnsatisfiable"), "can not be empty"))
    elif c.when_unsatisfiable not in _ACTIONS:
        errs.append(not_supported(path.child("whenUnsatisfiable"), c.when_unsatisfiable, _ACTIONS))
    if c.label_selector is not None:
        detail = "constraint must not define a selector, as they deduced for each pod"
        errs.append(forbidden(path.child("labelSelector"), detail))
    return errs
