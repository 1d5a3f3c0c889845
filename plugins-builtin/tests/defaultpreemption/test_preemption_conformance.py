"""The conformance kit for DefaultPreemption (the same contracts a third-party plugin runs)."""

from __future__ import annotations

from typing import Any, ClassVar

from kubesched.testing.contracts import PluginConformance
from kubesched_builtin.defaultpreemption import DefaultPreemption

pytest_plugins = ["kubesched.testing.plugin"]


class TestDefaultPreemption(PluginConformance):
    plugin_cls = DefaultPreemption


class TestDefaultPreemptionFewCandidates(PluginConformance):
    plugin_cls = DefaultPreemption
    plugin_args: ClassVar[dict[str, Any]] = {
        "minCandidateNodesPercentage": 0,
        "minCandidateNodesAbsolute": 1,
    }
