"""ImageLocality through the conformance kit (the contracts every plugin package runs)."""

from __future__ import annotations

from kubesched.testing.contracts import PluginConformance
from kubesched_builtin.imagelocality import ImageLocality

pytest_plugins = ["kubesched.testing.plugin"]


class TestImageLocalityConformance(PluginConformance):
    plugin_cls = ImageLocality
