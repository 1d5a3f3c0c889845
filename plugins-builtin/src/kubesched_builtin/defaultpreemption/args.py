"""DefaultPreemptionArgs: how many candidate nodes the preemption dry run looks for.

Defaults from pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_DefaultPreemptionArgs),
validation and its messages from pkg/scheduler/apis/config/validation/validation_pluginargs.go
(ValidateDefaultPreemptionArgs), as `field.Error` strings.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic.alias_generators import to_camel

__all__ = ["DefaultPreemptionArgs", "validation_errors"]

_PERCENTAGE = "minCandidateNodesPercentage"
_ABSOLUTE = "minCandidateNodesAbsolute"


class DefaultPreemptionArgs(BaseModel):
    """Args of DefaultPreemption. The dry run wants
    `max(numNodes * percentage / 100, absolute)` candidates, at most every node."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    min_candidate_nodes_percentage: int = 10
    """Share of the potential nodes (0..100) to find candidates among."""
    min_candidate_nodes_absolute: int = 100
    """Lower bound on the number of candidates (>= 0)."""

    @model_validator(mode="after")
    def _validate(self) -> DefaultPreemptionArgs:
        errors = validation_errors(self)
        if errors:
            # upstream utilerrors.Aggregate: one error alone, several as "[a, b]"
            raise ValueError(errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")
        return self


def validation_errors(args: DefaultPreemptionArgs) -> list[str]:
    """Every problem with the args, as upstream field errors; empty when valid."""
    pct, absolute = args.min_candidate_nodes_percentage, args.min_candidate_nodes_absolute
    errs: list[str] = []
    if not 0 <= pct <= 100:
        errs.append(f"{_PERCENTAGE}: Invalid value: {pct}: not in valid range [0, 100]")
    if absolute < 0:
        errs.append(f"{_ABSOLUTE}: Invalid value: {absolute}: not in valid range [0, inf)")
    if pct == 0 and absolute == 0:
        errs.append(
            f"{_PERCENTAGE}: Invalid value: 0: cannot be zero at the same time as {_ABSOLUTE}"
        )
        errs.append(
            f"{_ABSOLUTE}: Invalid value: 0: cannot be zero at the same time as {_PERCENTAGE}"
        )
    return errs
