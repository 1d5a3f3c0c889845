"""The conformance kit for DefaultPreemption with non-default args (with its defaults it is
checked in tests/test_conformance.py, through its entry point)."""

from __future__ import annotations

from typing import Any, ClassVar

from kubesched.testing.contracts import PluginConformance
from kubesched_builtin.defaultpreemption import DefaultPreemption


class TestDefaultPreemptionFewCandidates(PluginConformance):
    plugin_cls = DefaultPreemption
    plugin_args: ClassVar[dict[str, Any]] = {
        "minCandidateNodesPercentage": 0,
        "minCandidateNodesAbsolute": 1,
    }
