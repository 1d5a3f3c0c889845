"""The names of the plugins in this distribution, as profiles and entry points spell them.

Upstream: pkg/scheduler/framework/plugins/names/names.go.
"""

from __future__ import annotations

from typing import Final

__all__ = ["NODE_VOLUME_LIMITS", "VOLUME_BINDING", "VOLUME_RESTRICTIONS", "VOLUME_ZONE"]

VOLUME_BINDING: Final = "VolumeBinding"
VOLUME_ZONE: Final = "VolumeZone"
VOLUME_RESTRICTIONS: Final = "VolumeRestrictions"
NODE_VOLUME_LIMITS: Final = "NodeVolumeLimits"
