"""VolumeZone: a pod's bound volumes must be in the node's zone and region."""

from kubesched_volumebinding.volumezone.plugin import (
    ERR_REASON_CONFLICT,
    PRE_FILTER_STATE_KEY,
    TOPOLOGY_LABELS,
    PVTopology,
    VolumeZone,
    pv_topologies,
)

__all__ = [
    "ERR_REASON_CONFLICT",
    "PRE_FILTER_STATE_KEY",
    "TOPOLOGY_LABELS",
    "PVTopology",
    "VolumeZone",
    "pv_topologies",
]
