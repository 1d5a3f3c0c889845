"""kubesched-volumebinding: PV/PVC binding and dynamic provisioning.

The plugins of upstream's volume family, each in its own folder: `VolumeBinding`
(binds claims to PVs or has them provisioned), `VolumeZone`, `VolumeRestrictions` and
`NodeVolumeLimits`. `storage` holds the storage kinds this package registers (PVs, PVCs,
StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities); `controllers` the PV
controller and provisioner that the embedded cluster runs; `hooks` registers both.
"""

from kubesched_volumebinding.nodevolumelimits import NodeVolumeLimits
from kubesched_volumebinding.volumebinding import VolumeBinding, VolumeBindingArgs
from kubesched_volumebinding.volumerestrictions import VolumeRestrictions
from kubesched_volumebinding.volumezone import VolumeZone

__version__ = "0.0.1"

__all__ = [
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeBindingArgs",
    "VolumeRestrictions",
    "VolumeZone",
    "__version__",
]
