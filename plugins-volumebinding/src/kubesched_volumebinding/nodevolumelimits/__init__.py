"""NodeVolumeLimits: per-driver limits on the volumes a node attaches."""

from kubesched_volumebinding.nodevolumelimits.plugin import (
    ATTACHABLE_VOLUMES_PREFIX,
    CSI_ATTACH_LIMIT_PREFIX,
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    NodeVolumeLimits,
    csi_attach_limit_key,
)

__all__ = [
    "ATTACHABLE_VOLUMES_PREFIX",
    "CSI_ATTACH_LIMIT_PREFIX",
    "ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED",
    "NodeVolumeLimits",
    "csi_attach_limit_key",
]
