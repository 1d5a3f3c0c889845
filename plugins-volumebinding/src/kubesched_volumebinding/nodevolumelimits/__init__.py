"""NodeVolumeLimits: per-driver limits on the volumes a node attaches.

`plugin` holds the plugin (PreFilter, Filter, explanations), `counting` what it counts and
the memos that spare recounting, `hints` the cluster events it registers and their
queueing hints.
"""

from kubesched_volumebinding.nodevolumelimits.counting import volume_limits
from kubesched_volumebinding.nodevolumelimits.hints import (
    VOLUME_ATTACHMENT,
    is_schedulable_after_csi_node_updated,
    is_schedulable_after_pod_deleted,
    is_schedulable_after_pvc_added,
    is_schedulable_after_volume_attachment_deleted,
    node_volume_limits_events,
)
from kubesched_volumebinding.nodevolumelimits.plugin import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    NodeVolumeLimits,
)

__all__ = [
    "ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED",
    "VOLUME_ATTACHMENT",
    "NodeVolumeLimits",
    "is_schedulable_after_csi_node_updated",
    "is_schedulable_after_pod_deleted",
    "is_schedulable_after_pvc_added",
    "is_schedulable_after_volume_attachment_deleted",
    "node_volume_limits_events",
    "volume_limits",
]
