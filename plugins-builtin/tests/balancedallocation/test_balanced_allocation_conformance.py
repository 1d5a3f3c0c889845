"""NodeResourcesBalancedAllocation through the conformance kit with an extended resource
(with default args it is checked in tests/test_conformance.py, through its entry point)."""

from __future__ import annotations

from typing import Any, ClassVar

from kubesched.testing.contracts import PluginConformance
from kubesched_builtin.balancedallocation import NodeResourcesBalancedAllocation


class TestNodeResourcesBalancedAllocationGpuConformance(PluginConformance):
    plugin_cls = NodeResourcesBalancedAllocation
    plugin_args: ClassVar[dict[str, Any]] = {
        "resources": [{"name": "cpu"}, {"name": "memory"}, {"name": "example.com/gpu"}]
    }
