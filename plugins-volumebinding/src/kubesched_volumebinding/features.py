"""Feature gates this package honours, read through kubesched's gate table.

`kubesched simulate|run --feature-gates` or the environment variable
``KUBESCHED_FEATURE_GATES`` sets them, in upstream's syntax (``StorageCapacityScoring=true,
VolumeAttributesClass=false``) and with upstream's checks (kubesched.features); defaults are
upstream v1.34's. They are read each time they are asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubesched.features import ENV_VAR, feature_enabled

__all__ = ["ENV_VAR", "Features", "current_features"]


@dataclass(frozen=True)
class Features:
    """The gates VolumeBinding reads (upstream plfeature.Features, the storage fields)."""

    storage_capacity_scoring: bool = False
    """StorageCapacityScoring (alpha in v1.33/v1.34): Score by storage utilisation."""
    volume_attributes_class: bool = True
    """VolumeAttributesClass (GA in v1.34): static matching compares the VAC names."""


def current_features() -> Features:
    """The gates in force; a bad gate list is a kubesched.features.FeatureGateError (a
    ValueError) naming where it was written and what is wrong."""
    return Features(
        storage_capacity_scoring=feature_enabled("StorageCapacityScoring"),
        volume_attributes_class=feature_enabled("VolumeAttributesClass"),
    )
