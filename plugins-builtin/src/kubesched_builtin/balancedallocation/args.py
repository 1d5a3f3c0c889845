"""NodeResourcesBalancedAllocationArgs: the plugin's `pluginConfig` args.

Upstream: pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_NodeResourcesBalanced
AllocationArgs) and validation/validation_pluginargs.go (ValidateNodeResourcesBalanced
AllocationArgs). With no resources the plugin balances cpu and memory; a weight left out (0)
becomes 1, and any other weight is rejected: the spread of fractions has no use for weights.
"""

from __future__ import annotations

from pydantic import Field

from kubesched.api.field import ErrorList, duplicate, invalid, new_path
from kubesched.framework import PluginArgs
from kubesched_builtin.noderesources.args import ResourceSpec

__all__ = ["NodeResourcesBalancedAllocationArgs", "ResourceSpec"]


def _default_resources() -> list[ResourceSpec]:
    return [ResourceSpec(name="cpu", weight=1), ResourceSpec(name="memory", weight=1)]


class NodeResourcesBalancedAllocationArgs(PluginArgs):
    """Args of NodeResourcesBalancedAllocation."""

    resources: list[ResourceSpec] = Field(default_factory=_default_resources)
    """The resources whose allocated fractions should be close to each other."""

    def set_defaults(self) -> None:
        if not self.resources:
            self.resources = _default_resources()

    def validation_errors(self) -> ErrorList:
        """Duplicate resource names and weights other than 1."""
        errs: ErrorList = []
        seen: set[str] = set()
        for i, spec in enumerate(self.resources):
            path = new_path("resources").index(i)
            if spec.name in seen:
                errs.append(duplicate(path.child("name"), spec.name))
            else:
                seen.add(spec.name)
            if spec.weight != 1:
                errs.append(invalid(path.child("weight"), spec.weight, "must be 1"))
        return errs
