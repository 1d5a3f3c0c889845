"""NodeAffinity through the conformance kit with added affinity (without, it is checked in
tests/test_conformance.py, through its entry point)."""

from __future__ import annotations

from typing import Any, ClassVar

from kubesched.testing.contracts import PluginConformance
from kubesched_builtin.nodeaffinity import NodeAffinity


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
