"""The conformance kit, run for every plugin this distribution ships (dogfooding: the same
contracts a third-party plugin package runs)."""

from __future__ import annotations

from kubesched.testing.contracts import PluginConformance
from kubesched_volumebinding import NodeVolumeLimits, VolumeBinding, VolumeRestrictions, VolumeZone


class TestVolumeBinding(PluginConformance):
    plugin_cls = VolumeBinding


class TestVolumeZone(PluginConformance):
    plugin_cls = VolumeZone


class TestVolumeRestrictions(PluginConformance):
    plugin_cls = VolumeRestrictions


class TestNodeVolumeLimits(PluginConformance):
    plugin_cls = NodeVolumeLimits
