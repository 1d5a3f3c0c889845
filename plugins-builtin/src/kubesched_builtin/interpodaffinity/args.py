"""InterPodAffinityArgs: the plugin's `pluginConfig` args (kubescheduler.config.k8s.io/v1).

Defaulting follows pkg/scheduler/apis/config/v1/defaults.go
(SetDefaults_InterPodAffinityArgs: hardPodAffinityWeight 1) and validation
pkg/scheduler/apis/config/validation/validation_pluginargs.go (ValidateInterPodAffinityArgs).
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import field_validator

from kubesched.api.field import ErrorList, invalid
from kubesched.framework import PluginArgs

__all__ = [
    "DEFAULT_HARD_POD_AFFINITY_WEIGHT",
    "MAX_HARD_POD_AFFINITY_WEIGHT",
    "MIN_HARD_POD_AFFINITY_WEIGHT",
    "InterPodAffinityArgs",
]

DEFAULT_HARD_POD_AFFINITY_WEIGHT: Final = 1
MIN_HARD_POD_AFFINITY_WEIGHT: Final = 0
MAX_HARD_POD_AFFINITY_WEIGHT: Final = 100


class InterPodAffinityArgs(PluginArgs):
    """Args of InterPodAffinity."""

    hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT
    """Score weight of an existing pod's required affinity term that matches the incoming
    pod (the "symmetric" weight); 0 turns that part of scoring off."""
    ignore_preferred_terms_of_existing_pods: bool = False
    """Skip existing pods' preferred terms when the incoming pod has no preferred terms of
    its own (faster scoring for clusters that do not rely on them)."""

    @field_validator("hard_pod_affinity_weight", mode="before")
    @classmethod
    def _default_weight(cls, value: Any) -> Any:
        # a null in the YAML is an unset pointer upstream, which defaulting makes 1
        return DEFAULT_HARD_POD_AFFINITY_WEIGHT if value is None else value

    def validation_errors(self) -> ErrorList:
        w = self.hard_pod_affinity_weight
        if MIN_HARD_POD_AFFINITY_WEIGHT <= w <= MAX_HARD_POD_AFFINITY_WEIGHT:
            return []
        limits = f"[{MIN_HARD_POD_AFFINITY_WEIGHT}, {MAX_HARD_POD_AFFINITY_WEIGHT}]"
        return [invalid("hardPodAffinityWeight", w, f"not in valid range {limits}")]
