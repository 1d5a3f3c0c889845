"""NodeAffinity through the conformance kit, with and without added affinity."""

from __future__ import annotations

from typing import Any, ClassVar

from kubesched.testing.contracts import PluginConformance
from kubesched_builtin.nodeaffinity import NodeAffinity

pytest_plugins = ["kubesched.testing.plugin"]


class TestNodeAffinityConformance(PluginConformance):
    plugin_cls = NodeAffinity


class TestNodeAffinityAddedAffinityConformance(PluginConformance):
    plugin_cls = NodeAffinity
    plugin_args: ClassVar[dict[str, Any]] = {
        "addedAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "kubernetes.io/os", "operator": "NotIn", "values": ["windows"]}
                        ]
                    }
                ]
            },
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 5,
                    "preference": {
                        "matchExpressions": [
                            {"key": "topology.kubernetes.io/zone", "operator": "Exists"}
                        ]
                    },
                }
            ],
        }
    }
