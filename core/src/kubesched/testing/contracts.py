"""The conformance contracts: one class per extension point, and `PluginConformance`, all
of them at once.

A plugin package subclasses them in its tests (with `pytest_plugins = ["kubesched.testing"]`
in its conftest.py):

    from kubesched.testing.contracts import PluginConformance
    from my_package import MyPlugin

    class TestMyPlugin(PluginConformance):
        plugin_cls = MyPlugin
        plugin_args = {"labelKey": "example.com/pool"}

Every check of a point the plugin does not implement is skipped with that reason. Each
class documents its checks; `kubesched conformance NAME` runs the same ones on an installed
plugin. Adapt the inputs through the hooks of `ContractBase` (`scenarios`,
`cluster_scenarios`, `cluster_objects`, `plugin_state`).
"""

from __future__ import annotations

from kubesched.testing._contract_base import (
    ConformanceWarning,
    ContractBase,
    PluginUnderTest,
    applies_to,
)
from kubesched.testing._contracts_batch import (
    ArrayFilterContract,
    ArrayScoreContract,
    BatchFilterContract,
    BatchScoreContract,
)
from kubesched.testing._contracts_cycle import (
    FilterContract,
    PermitContract,
    PostFilterContract,
    PreFilterContract,
    PreFilterExtensionsContract,
    PreScoreContract,
    ReserveContract,
    ScoreContract,
    VectorizedContract,
)
from kubesched.testing._contracts_e2e import EndToEndContract
from kubesched.testing._contracts_plugin import (
    ArgsContract,
    BindContract,
    EnqueueExtensionsContract,
    PluginContract,
    PostBindContract,
    PreBindContract,
    PreEnqueueContract,
    QueueSortContract,
)

__all__ = [
    "ArgsContract",
    "ArrayFilterContract",
    "ArrayScoreContract",
    "BatchFilterContract",
    "BatchScoreContract",
    "BindContract",
    "ConformanceWarning",
    "ContractBase",
    "EndToEndContract",
    "EnqueueExtensionsContract",
    "FilterContract",
    "PermitContract",
    "PluginConformance",
    "PluginContract",
    "PluginUnderTest",
    "PostBindContract",
    "PostFilterContract",
    "PreBindContract",
    "PreEnqueueContract",
    "PreFilterContract",
    "PreFilterExtensionsContract",
    "PreScoreContract",
    "QueueSortContract",
    "ReserveContract",
    "ScoreContract",
    "VectorizedContract",
    "applies_to",
]


class PluginConformance(
    EndToEndContract,
    PostBindContract,
    BindContract,
    PreBindContract,
    PermitContract,
    ReserveContract,
    VectorizedContract,
    ArrayScoreContract,
    BatchScoreContract,
    ScoreContract,
    PreScoreContract,
    PostFilterContract,
    PreFilterExtensionsContract,
    ArrayFilterContract,
    BatchFilterContract,
    FilterContract,
    PreFilterContract,
    EnqueueExtensionsContract,
    PreEnqueueContract,
    QueueSortContract,
    ArgsContract,
    PluginContract,
):
    """Every contract: subclass it with `plugin_cls` (and `plugin_args`) to run the kit.

    (Bases are listed last-run first: pytest collects inherited tests from the end of the
    MRO, so the whole-plugin checks run first and the end-to-end run last.)"""
