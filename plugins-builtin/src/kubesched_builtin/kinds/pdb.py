"""PodDisruptionBudget (`policy/v1`), the kind preemption reads to spare protected pods.

Upstream: staging/src/k8s.io/api/policy/v1/types.go for the fields and
pkg/apis/policy/validation/validation.go (ValidatePodDisruptionBudgetSpec) for what a
manifest may say: `minAvailable` and `maxUnavailable` are each a non-negative integer or a
percentage no greater than 100%, and at most one of them is set.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Final, Literal

from pydantic import Field, field_validator, model_validator

from kubesched.api import K8sModel, KindInfo, LabelSelector, ObjectMeta

__all__ = [
    "PDB_KIND",
    "IntOrString",
    "PodDisruptionBudget",
    "PodDisruptionBudgetSpec",
    "PodDisruptionBudgetStatus",
    "scaled_value",
]

IntOrString = int | str
"""`intstr.IntOrString`: a count (`2`) or a percentage (`"50%"`)."""

_PERCENT: Final = re.compile(r"^[0-9]+%$")
_PERCENT_MSG: Final = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


def _check_int_or_percent(value: IntOrString | None) -> IntOrString | None:
    # upstream ValidatePositiveIntOrPercent and IsNotMoreThan100Percent
    if value is None:
        return None
    if isinstance(value, int):
        if value < 0:
            raise ValueError("must be greater than or equal to 0")
        return value
    if not _PERCENT.match(value):
        raise ValueError(_PERCENT_MSG)
    if int(value[:-1]) > 100:
        raise ValueError("must not be greater than 100%")
    return value


def scaled_value(value: IntOrString, total: int, round_up: bool) -> int:
    """An int as is, or a percentage of `total` (upstream intstr.GetScaledValueFromIntOrPercent)."""
    if isinstance(value, int):
        return value
    fraction = int(value[:-1]) * total / 100
    return math.ceil(fraction) if round_up else math.floor(fraction)


class PodDisruptionBudgetSpec(K8sModel):
    min_available: IntOrString | None = None
    """At least this many (or this share) of the selected pods must stay available."""
    selector: LabelSelector | None = None
    """The pods the budget protects; a missing selector selects none."""
    max_unavailable: IntOrString | None = None
    """At most this many (or this share) of the selected pods may be unavailable."""
    unhealthy_pod_eviction_policy: Literal["IfHealthyBudget", "AlwaysAllow"] | None = None

    _validate_counts = field_validator("min_available", "max_unavailable")(_check_int_or_percent)

    @model_validator(mode="after")
    def _one_of(self) -> PodDisruptionBudgetSpec:
        if self.min_available is not None and self.max_unavailable is not None:
            raise ValueError("minAvailable and maxUnavailable cannot be both set")
        return self


class PodDisruptionBudgetStatus(K8sModel):
    """What the disruption controller last observed (see `kinds.disruption`)."""

    observed_generation: int = 0
    disrupted_pods: dict[str, datetime] = Field(default_factory=dict)
    """Pods (by name) whose eviction the API server admitted but that are not gone yet;
    preemption does not count them against the budget again."""
    disruptions_allowed: int = 0
    """How many more selected pods may be disrupted now."""
    current_healthy: int = 0
    desired_healthy: int = 0
    expected_pods: int = 0


class PodDisruptionBudget(K8sModel):
    api_version: str = "policy/v1"
    kind: Literal["PodDisruptionBudget"] = "PodDisruptionBudget"
    metadata: ObjectMeta
    spec: PodDisruptionBudgetSpec = Field(default_factory=PodDisruptionBudgetSpec)
    status: PodDisruptionBudgetStatus = Field(default_factory=PodDisruptionBudgetStatus)


PDB_KIND: Final = KindInfo(
    "policy/v1",
    "PodDisruptionBudget",
    "poddisruptionbudgets",
    namespaced=True,
    model=PodDisruptionBudget,
)
"""The kind as the manifest loader and the cluster stores know it."""
