"""NodeResourcesBalancedAllocation through the conformance kit, default and with an extended
resource."""

from __future__ import annotations

from typing import Any, ClassVar

from kubesched.testing.contracts import PluginConformance
from kubesched_builtin.balancedallocation import NodeResourcesBalancedAllocation

pytest_plugins = ["kubesched.testing.plugin"]


class TestNodeResourcesBalancedAllocationConformance(PluginConformance):
    plugin_cls = NodeResourcesBalancedAllocation


class TestNodeResourcesBalancedAllocationGpuConformance(PluginConformance):
    plugin_cls = NodeResourcesBalancedAllocation
    plugin_args: ClassVar[dict[str, Any]] = {
        "resources": [{"name": "cpu"}, {"name": "memory"}, {"name": "example.com/gpu"}]
    }
