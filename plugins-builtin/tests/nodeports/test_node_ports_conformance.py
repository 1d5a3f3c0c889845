"""NodePorts through the conformance kit (the contracts every plugin package runs)."""

from __future__ import annotations

from kubesched.testing.contracts import PluginConformance
from kubesched_builtin.nodeports import NodePorts

pytest_plugins = ["kubesched.testing.plugin"]


class TestNodePortsConformance(PluginConformance):
    plugin_cls = NodePorts
