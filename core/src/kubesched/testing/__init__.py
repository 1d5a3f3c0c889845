"""Testing helpers shipped for plugin authors: builders, strategies and the conformance kit.

- `make_pod("p").req(cpu="1")`, `make_node("n").alloc(cpu="4")`: builders for tests.
- `Scenario`, `ClusterScenario`, `PluginHarness`: a plugin built by its factory with a real
  Handle, driven through a cycle the way the framework drives it.
- `batch_score_mismatch(plugin, state, pod, nodes)`: whether a batch Score (`score_nodes`)
  answers what Score answers node by node; `batch_filter_mismatch`, the same for a batch
  Filter (`filter_nodes`).
- `plugin_api_violations(src)`: the imports of kubesched modules outside the plugin API
  (`PLUGIN_API_MODULES`) in a plugin package's source.
- `kubesched.testing.strategies`: hypothesis strategies for pods, nodes and clusters.
- `kubesched.testing.contracts`: the conformance contracts (`PluginConformance` and one class
  per extension point), and `kubesched.testing.plugin`, their pytest plugin.

Opt in to the kit with `pytest_plugins = ["kubesched.testing"]` in a conftest.py: pytest then
loads `kubesched.testing.plugin` as well (named below). Importing this package needs neither
pytest nor hypothesis; the contracts (which need both, the `testing` extra) are imported on
first use of their names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubesched.testing._array import array_filter_mismatch, array_score_mismatch
from kubesched.testing._batch import batch_filter_mismatch, batch_score_mismatch
from kubesched.testing._builders import NodeBuilder, PodBuilder, make_node, make_pod
from kubesched.testing._end_to_end import EndToEndReport, run_end_to_end
from kubesched.testing._harness import FilterPhase, PluginHarness, ScorePhase
from kubesched.testing._imports import PLUGIN_API_MODULES, plugin_api_violations
from kubesched.testing._scenario import ClusterScenario, Scenario

if TYPE_CHECKING:
    from kubesched.testing.contracts import (
        ArgsContract,
        ArrayFilterContract,
        ArrayScoreContract,
        BatchFilterContract,
        BatchScoreContract,
        BindContract,
        ConformanceWarning,
        ContractBase,
        EndToEndContract,
        EnqueueExtensionsContract,
        FilterContract,
        PermitContract,
        PluginConformance,
        PluginContract,
        PostBindContract,
        PostFilterContract,
        PreBindContract,
        PreEnqueueContract,
        PreFilterContract,
        PreFilterExtensionsContract,
        PreScoreContract,
        QueueSortContract,
        ReserveContract,
        ScoreContract,
        VectorizedContract,
    )

pytest_plugins: list[str] = ["kubesched.testing.plugin"]
"""What pytest loads next when this package is named as a plugin."""

_CONTRACTS = frozenset(
    {
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
    }
)

__all__ = [
    "PLUGIN_API_MODULES",
    "ArgsContract",
    "ArrayFilterContract",
    "ArrayScoreContract",
    "BatchFilterContract",
    "BatchScoreContract",
    "BindContract",
    "ClusterScenario",
    "ConformanceWarning",
    "ContractBase",
    "EndToEndContract",
    "EndToEndReport",
    "EnqueueExtensionsContract",
    "FilterContract",
    "FilterPhase",
    "NodeBuilder",
    "PermitContract",
    "PluginConformance",
    "PluginContract",
    "PluginHarness",
    "PodBuilder",
    "PostBindContract",
    "PostFilterContract",
    "PreBindContract",
    "PreEnqueueContract",
    "PreFilterContract",
    "PreFilterExtensionsContract",
    "PreScoreContract",
    "QueueSortContract",
    "ReserveContract",
    "Scenario",
    "ScoreContract",
    "ScorePhase",
    "VectorizedContract",
    "array_filter_mismatch",
    "array_score_mismatch",
    "batch_filter_mismatch",
    "batch_score_mismatch",
    "make_node",
    "make_pod",
    "plugin_api_violations",
    "run_end_to_end",
]


def __getattr__(name: str) -> Any:
    if name in _CONTRACTS:
        from kubesched.testing import contracts

        return getattr(contracts, name)
    raise AttributeError(f"module 'kubesched.testing' has no attribute {name!r}")
