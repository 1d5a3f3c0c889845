"""DynamicResources: devices for pods' ResourceClaims (upstream
pkg/scheduler/framework/plugins/dynamicresources)."""

from kubesched_dra.dynamicresources.args import DynamicResourcesArgs
from kubesched_dra.dynamicresources.plugin import (
    STATE_KEY,
    DynamicResources,
    DynamicResourcesState,
)

__all__ = ["STATE_KEY", "DynamicResources", "DynamicResourcesArgs", "DynamicResourcesState"]
