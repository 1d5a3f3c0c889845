"""NodeResourcesBalancedAllocationArgs: the plugin's `pluginConfig` args.

Upstream: pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_NodeResourcesBalanced
AllocationArgs) and validation/validation_pluginargs.go (ValidateNodeResourcesBalanced
AllocationArgs). With no resources the plugin balances cpu and memory; a weight left out (0)
becomes 1, and any other weight is rejected: the spread of fractions has no use for weights.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from kubesched_builtin.helper.validation import aggregate, child, duplicate, index, invalid
from kubesched_builtin.noderesources.args import ResourceSpec

__all__ = ["NodeResourcesBalancedAllocationArgs", "ResourceSpec", "validation_errors"]


def _default_resources() -> list[ResourceSpec]:
    return [ResourceSpec(name="cpu", weight=1), ResourceSpec(name="memory", weight=1)]


class NodeResourcesBalancedAllocationArgs(BaseModel):
    """Args of NodeResourcesBalancedAllocation."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    resources: list[ResourceSpec] = Field(default_factory=_default_resources)
    """The resources whose allocated fractions should be close to each other."""

    @model_validator(mode="after")
    def _default_and_validate(self) -> NodeResourcesBalancedAllocationArgs:
        if not self.resources:
            self.resources = _default_resources()
        errors = validation_errors(self)
        if errors:
            raise ValueError(aggregate(errors))
        return self


def validation_errors(args: NodeResourcesBalancedAllocationArgs) -> list[str]:
    """Duplicate resource names and weights other than 1, as upstream field errors."""
    errs: list[str] = []
    seen: set[str] = set()
    for i, spec in enumerate(args.resources):
        path = index("resources", i)
        if spec.name in seen:
            errs.append(duplicate(child(path, "name"), spec.name))
        else:
            seen.add(spec.name)
        if spec.weight != 1:
            errs.append(invalid(child(path, "weight"), spec.weight, "must be 1"))
    return errs
