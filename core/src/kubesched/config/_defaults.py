"""The v1 default plugin set, and which distribution provides each plugin kubesched publishes.

Upstream: pkg/scheduler/apis/config/v1/default_plugins.go (getDefaultPlugins), v1.34.
In v1 every default plugin is enabled through ``multiPoint`` only, in this order; the
per-point default lists are empty.

DynamicResources (default in upstream v1.34, where DRA is GA) comes from kubesched-dra;
like every default plugin, it is left out of the profile when its distribution is not
installed. The in-tree volume-limit plugins (EBSLimits, GCEPDLimits,
AzureDiskLimits) are gone since v1.31, as upstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from kubesched.config._models import PluginEntry, Plugins, PluginSet

__all__ = [
    "BUILTIN_DISTRIBUTION",
    "COSCHEDULING_DISTRIBUTION",
    "DEFAULT_PLUGINS",
    "DRA_DISTRIBUTION",
    "KNOWN_PROVIDERS",
    "VOLUMEBINDING_DISTRIBUTION",
    "DefaultPlugin",
    "default_plugins",
]

BUILTIN_DISTRIBUTION: Final = "kubesched-builtin"
VOLUMEBINDING_DISTRIBUTION: Final = "kubesched-volumebinding"
COSCHEDULING_DISTRIBUTION: Final = "kubesched-coscheduling"
DRA_DISTRIBUTION: Final = "kubesched-dra"


@dataclass(frozen=True)
class DefaultPlugin:
    """A plugin of the default set: its name, its Score weight in ``multiPoint`` (None when
    upstream sets none) and the distribution that provides it."""

    name: str
    weight: int | None
    distribution: str


def _builtin(name: str, weight: int | None = None) -> DefaultPlugin:
    return DefaultPlugin(name, weight, BUILTIN_DISTRIBUTION)


def _volume(name: str) -> DefaultPlugin:
    return DefaultPlugin(name, None, VOLUMEBINDING_DISTRIBUTION)


DEFAULT_PLUGINS: Final[tuple[DefaultPlugin, ...]] = (
    _builtin("SchedulingGates"),
    _builtin("PrioritySort"),
    _builtin("NodeUnschedulable"),
    _builtin("NodeName"),
    _builtin("TaintToleration", 3),
    _builtin("NodeAffinity", 2),
    _builtin("NodePorts"),
    _builtin("NodeResourcesFit", 1),
    _volume("VolumeRestrictions"),
    _volume("NodeVolumeLimits"),
    _volume("VolumeBinding"),
    _volume("VolumeZone"),
    _builtin("PodTopologySpread", 2),
    _builtin("InterPodAffinity", 2),
    # upstream inserts DynamicResources here while DynamicResourceAllocation is on (GA in v1.34)
    DefaultPlugin("DynamicResources", None, DRA_DISTRIBUTION),
    _builtin("DefaultPreemption"),
    _builtin("NodeResourcesBalancedAllocation", 1),
    _builtin("ImageLocality", 1),
    _builtin("DefaultBinder"),
)
"""The v1 default plugins in upstream's ``multiPoint`` order (weights sum to 12)."""

KNOWN_PROVIDERS: Final[Mapping[str, str]] = {
    **{p.name: p.distribution for p in DEFAULT_PLUGINS},
    "Coscheduling": COSCHEDULING_DISTRIBUTION,
}
"""Every plugin kubesched publishes → the distribution that provides it: what to tell a
user to install when a profile names a plugin that is not there (through
`kubesched.runtime.PluginRegistry.provider`). The one such table."""


def default_plugins() -> Plugins:
    """A fresh `Plugins` holding the default set, all under ``multiPoint``."""
    enabled = [PluginEntry(name=p.name, weight=p.weight) for p in DEFAULT_PLUGINS]
    return Plugins(multi_point=PluginSet(enabled=enabled))
