"""Names this distribution publishes: the plugin, the API group, the membership label."""

from __future__ import annotations

from typing import Final

__all__ = [
    "API_GROUP",
    "API_VERSION",
    "COSCHEDULING",
    "POD_GROUP_KIND",
    "POD_GROUP_LABEL",
    "POD_GROUP_PLURAL",
]

COSCHEDULING: Final = "Coscheduling"
"""The plugin's name in profiles (and its entry point's name)."""

API_GROUP: Final = "scheduling.x-k8s.io"
API_VERSION: Final = f"{API_GROUP}/v1alpha1"
POD_GROUP_KIND: Final = "PodGroup"
POD_GROUP_PLURAL: Final = "podgroups"

POD_GROUP_LABEL: Final = f"{API_GROUP}/pod-group"
"""A pod joins the PodGroup of its own namespace named by this label (scheduler-plugins'
`v1alpha1.PodGroupLabel`)."""
