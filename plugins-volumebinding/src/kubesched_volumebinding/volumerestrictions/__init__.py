"""VolumeRestrictions: unshareable volumes and ReadWriteOncePod claims."""

from kubesched_volumebinding.volumerestrictions.plugin import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_RWOP_CONFLICT,
    PRE_FILTER_STATE_KEY,
    VolumeRestrictions,
    is_volume_conflict,
)

__all__ = [
    "ERR_REASON_DISK_CONFLICT",
    "ERR_REASON_RWOP_CONFLICT",
    "PRE_FILTER_STATE_KEY",
    "VolumeRestrictions",
    "is_volume_conflict",
]
