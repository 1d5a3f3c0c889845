"""Controllers this package runs beside the embedded (memory) cluster: the PV controller
that completes bindings, and a dynamic provisioner."""

from kubesched_volumebinding.controllers.provisioner import (
    ANN_CAPACITY_SOURCE,
    ANN_DELAY,
    ANN_FAIL_NODES,
    ANN_TOPOLOGY_KEYS,
    ANN_TRACK_CAPACITY,
    Provisioner,
    ProvisionRecord,
)
from kubesched_volumebinding.controllers.pv_controller import PVController

__all__ = [
    "ANN_CAPACITY_SOURCE",
    "ANN_DELAY",
    "ANN_FAIL_NODES",
    "ANN_TOPOLOGY_KEYS",
    "ANN_TRACK_CAPACITY",
    "PVController",
    "ProvisionRecord",
    "Provisioner",
]
