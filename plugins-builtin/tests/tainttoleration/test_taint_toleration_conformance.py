"""TaintToleration through the conformance kit (the contracts every plugin package runs)."""

from __future__ import annotations

from kubesched.testing.contracts import PluginConformance
from kubesched_builtin.tainttoleration import TaintToleration

pytest_plugins = ["kubesched.testing.plugin"]


class TestTaintTolerationConformance(PluginConformance):
    plugin_cls = TaintToleration
