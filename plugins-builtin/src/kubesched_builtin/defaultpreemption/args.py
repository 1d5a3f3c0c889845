"""DefaultPreemptionArgs: how many candidate nodes the preemption dry run looks for.

Defaults from pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_DefaultPreemptionArgs),
validation and its messages from pkg/scheduler/apis/config/validation/validation_pluginargs.go
(ValidateDefaultPreemptionArgs), as `field.Error` strings.
"""

from __future__ import annotations

from kubesched.api.field import ErrorList, invalid
from kubesched.framework import PluginArgs

__all__ = ["DefaultPreemptionArgs"]

_PERCENTAGE = "minCandidateNodesPercentage"
_ABSOLUTE = "minCandidateNodesAbsolute"


class DefaultPreemptionArgs(PluginArgs):
    """Args of DefaultPreemption. The dry run wants
    `max(numNodes * percentage / 100, absolute)` candidates, at most every node."""

    min_candidate_nodes_percentage: int = 10
    """Share of the potential nodes (0..100) to find candidates among."""
    min_candidate_nodes_absolute: int = 100
    """Lower bound on the number of candidates (>= 0)."""

    def validation_errors(self) -> ErrorList:
        pct, absolute = self.min_candidate_nodes_percentage, self.min_candidate_nodes_absolute
        errs: ErrorList = []
        if not 0 <= pct <= 100:
            errs.append(invalid(_PERCENTAGE, pct, "not in valid range [0, 100]"))
        if absolute < 0:
            errs.append(invalid(_ABSOLUTE, absolute, "not in valid range [0, inf)"))
        if pct == 0 and absolute == 0:
            errs.append(invalid(_PERCENTAGE, 0, f"cannot be zero at the same time as {_ABSOLUTE}"))
            errs.append(invalid(_ABSOLUTE, 0, f"cannot be zero at the same time as {_PERCENTAGE}"))
        return errs
