"""The conformance kit on Coscheduling (pods without a PodGroup label pass through it)."""

from __future__ import annotations

from kubesched.testing.contracts import PluginConformance
from kubesched_coscheduling import Coscheduling


class TestCoschedulingConformance(PluginConformance):
    plugin_cls = Coscheduling
