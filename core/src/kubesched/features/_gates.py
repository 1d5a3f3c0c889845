"""The gate table and its parser."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final, Literal

from kubesched._errors import KubeschedError

__all__ = ["ENV_VAR", "FEATURE_GATES", "FeatureGate", "feature_enabled", "parse_feature_gates"]

ENV_VAR: Final = "KUBESCHED_FEATURE_GATES"


@dataclass(frozen=True)
class FeatureGate:
    """One gate: its v1.34 default and maturity."""

    name: str
    default: bool
    stage: Literal["ALPHA", "BETA", "GA", "DEPRECATED"]
    summary: str


# upstream: pkg/features/kube_features.go (defaultVersionedKubernetesFeatureGates, v1.34)
FEATURE_GATES: Final[dict[str, FeatureGate]] = {
    gate.name: gate
    for gate in (
        FeatureGate(
            "SchedulerPopFromBackoffQ",
            True,
            "BETA",
            "KEP-5142: pop from the backoff queue when the active queue is empty",
        ),
        FeatureGate(
            "PodLevelResources",
            True,
            "BETA",
            "KEP-2837: pod-level spec.resources count instead of the containers' sum",
        ),
    )
}


def parse_feature_gates(raw: str) -> dict[str, bool]:
    """Parse ``Name=true,Other=false`` as kube-scheduler's flag does; an unknown gate or a
    value that is not true/false is a KubeschedError naming it."""
    values: dict[str, bool] = {}
    for item in raw.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name = name.strip()
        if name not in FEATURE_GATES:
            raise KubeschedError(f"{ENV_VAR}: unrecognized feature gate: {name}")
        text = value.strip().lower()
        if not sep or text not in ("true", "false"):
            raise KubeschedError(f"{ENV_VAR}: invalid value of {name}={value.strip()}, err: ...")
        values[name] = text == "true"
    return values


def feature_enabled(name: str) -> bool:
    """Whether gate `name` is on: the environment's value, else the v1.34 default.
    A name missing from FEATURE_GATES is a programming error (KeyError)."""
    default = FEATURE_GATES[name].default
    raw = os.environ.get(ENV_VAR, "")
    if not raw:
        return default
    return parse_feature_gates(raw).get(name, default)
