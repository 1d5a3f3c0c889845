"""NodeAffinityArgs: the plugin's `pluginConfig` args (kubescheduler.config.k8s.io/v1).

Upstream: pkg/scheduler/apis/config/types_pluginargs.go (NodeAffinityArgs) and
validation/validation_pluginargs.go (ValidateNodeAffinityArgs). `addedAffinity` applies to
every pod of the profile: its required terms are ANDed with the pod's own in Filter, and its
preferred terms add to the pod's in Score. Both parts must parse; errors read as upstream's,
e.g. `addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
.matchExpressions[0].key: Invalid value: ...`.
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic.alias_generators import to_camel

from kubesched.api import NodeAffinity
from kubesched_builtin.helper.validation import aggregate, child
from kubesched_builtin.nodeaffinity.selector import NodeSelectorMatcher, PreferredTerms

__all__ = ["NodeAffinityArgs", "validation_errors"]

_ADDED: Final = "addedAffinity"


class NodeAffinityArgs(BaseModel):
    """Args of NodeAffinity."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    added_affinity: NodeAffinity | None = None
    """Node affinity the scheduler adds to every pod it schedules with this profile."""

    @model_validator(mode="after")
    def _validate(self) -> NodeAffinityArgs:
        errors = validation_errors(self)
        if errors:
            raise ValueError(aggregate(errors))
        return self


def validation_errors(args: NodeAffinityArgs) -> list[str]:
    """Every parse error of `addedAffinity`, as upstream field errors; empty when valid."""
    affinity = args.added_affinity
    if affinity is None:
        return []
    errs: list[str] = []
    required = affinity.required_during_scheduling_ignored_during_execution
    if required is not None:
        path = child(_ADDED, "requiredDuringSchedulingIgnoredDuringExecution")
        errs += NodeSelectorMatcher.parse(required, path).errors
    preferred = affinity.preferred_during_scheduling_ignored_during_execution
    if preferred:
        path = child(_ADDED, "preferredDuringSchedulingIgnoredDuringExecution")
        errs += PreferredTerms.parse(preferred, path).errors
    return errs
