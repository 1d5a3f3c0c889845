"""Feature gates this package honours, as kube-scheduler's `--feature-gates` would set them.

kubesched has no feature-gate flag of its own, so the gates are read from the environment
variable ``KUBESCHED_FEATURE_GATES`` in upstream's syntax (``StorageCapacityScoring=true,
VolumeAttributesClass=false``) each time they are asked for. Defaults are upstream v1.34's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final

__all__ = ["ENV_VAR", "Features", "current_features"]

ENV_VAR: Final = "KUBESCHED_FEATURE_GATES"


@dataclass(frozen=True)
class Features:
    """The gates VolumeBinding reads."""

    storage_capacity_scoring: bool = False
    """StorageCapacityScoring (alpha in v1.33/v1.34): Score by storage utilisation."""
    volume_attributes_class: bool = True
    """VolumeAttributesClass (GA in v1.34): static matching compares the VAC names."""


_GATES: Final = {
    "StorageCapacityScoring": "storage_capacity_scoring",
    "VolumeAttributesClass": "volume_attributes_class",
}


def current_features() -> Features:
    """The gates as the environment sets them; unknown gates are ignored, a value that is
    not true/false is a ValueError naming it."""
    raw = os.environ.get(ENV_VAR, "")
    values: dict[str, bool] = {}
    for item in raw.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        field = _GATES.get(name.strip())
        if field is None:
            continue
        text = value.strip().lower()
        if not sep or text not in ("true", "false"):
            raise ValueError(f"{ENV_VAR}: invalid value of {name.strip()}: {value!r}")
        values[field] = text == "true"
    return Features(**values)
