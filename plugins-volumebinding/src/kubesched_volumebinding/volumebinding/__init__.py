"""VolumeBinding: PV/PVC binding and dynamic provisioning as part of scheduling."""

from kubesched_volumebinding.storage import Listers
from kubesched_volumebinding.volumebinding.args import (
    DEFAULT_BIND_TIMEOUT_SECONDS,
    UtilizationShapePoint,
    VolumeBindingArgs,
    default_shape,
)
from kubesched_volumebinding.volumebinding.assume_cache import (
    AssumeCache,
    AssumeCacheError,
    NotFoundInCacheError,
    PVAssumeCache,
    PVCAssumeCache,
)
from kubesched_volumebinding.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    BinderOptions,
    BindingInfo,
    DynamicProvision,
    PodVolumeClaims,
    PodVolumes,
    VolumeBinder,
    VolumeBindingError,
    bind_volume_to_claim,
)
from kubesched_volumebinding.volumebinding.matching import find_matching_volume
from kubesched_volumebinding.volumebinding.plugin import (
    STATE_KEY,
    UNBOUND_IMMEDIATE,
    VolumeBinding,
    VolumeBindingState,
)
from kubesched_volumebinding.volumebinding.prebind import VolumeBindingWaiter
from kubesched_volumebinding.volumebinding.scorer import StorageResource, build_scorer
from kubesched_volumebinding.volumebinding.volume_index import ClassVolumes

__all__ = [
    "DEFAULT_BIND_TIMEOUT_SECONDS",
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "STATE_KEY",
    "UNBOUND_IMMEDIATE",
    "AssumeCache",
    "AssumeCacheError",
    "BinderOptions",
    "BindingInfo",
    "ClassVolumes",
    "DynamicProvision",
    "Listers",
    "NotFoundInCacheError",
    "PVAssumeCache",
    "PVCAssumeCache",
    "PodVolumeClaims",
    "PodVolumes",
    "StorageResource",
    "UtilizationShapePoint",
    "VolumeBinder",
    "VolumeBinding",
    "VolumeBindingArgs",
    "VolumeBindingError",
    "VolumeBindingState",
    "VolumeBindingWaiter",
    "bind_volume_to_claim",
    "build_scorer",
    "default_shape",
    "find_matching_volume",
]
