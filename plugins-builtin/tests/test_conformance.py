"""The conformance kit, run for every plugin this distribution ships (dogfooding: the same
contracts a third-party plugin package runs), through its `kubesched.plugins` entry points.

One test class per entry point, generated below, so a plugin added to pyproject.toml is
checked without touching this file; plus classes for non-default args.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any, ClassVar

from kubesched.testing.contracts import PluginConformance
from kubesched_builtin.noderesources import NodeResourcesFit

ENTRY_POINTS = sorted(
    ep.name
    for ep in importlib.metadata.distribution("kubesched-builtin").entry_points
    if ep.group == "kubesched.plugins"
)

for _name in ENTRY_POINTS:
    globals()[f"Test{_name}"] = type(
        f"Test{_name}",
        (PluginConformance,),
        {"plugin_name": _name, "__module__": __name__, "__doc__": f"The kit on {_name}."},
    )


def test_every_default_plugin_of_this_distribution_is_checked() -> None:
    assert {"PrioritySort", "SchedulingGates", "NodeUnschedulable", "NodeName",
            "NodeResourcesFit", "DefaultBinder"} <= set(ENTRY_POINTS)  # fmt: skip
    for name in ENTRY_POINTS:
        assert issubclass(globals()[f"Test{name}"], PluginConformance)


class TestNodeResourcesFitMostAllocated(PluginConformance):
    plugin_cls = NodeResourcesFit
    plugin_args: ClassVar[dict[str, Any]] = {
        "scoringStrategy": {
            "type": "MostAllocated",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "example.com/gpu", "weight": 3}],
        }
    }


class TestNodeResourcesFitRequestedToCapacityRatio(PluginConformance):
    plugin_cls = NodeResourcesFit
    plugin_args: ClassVar[dict[str, Any]] = {
        "scoringStrategy": {
            "type": "RequestedToCapacityRatio",
            "requestedToCapacityRatio": {
                "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
            },
        }
    }
