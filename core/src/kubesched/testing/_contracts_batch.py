"""The contracts of the optional batch Score (`BatchScorePlugin.score_nodes`) and batch
Filter (`BatchFilterPlugin.filter_nodes`), and of the array forms (`filter_mask`,
`score_array`, `normalize_score_array`): one call for many nodes answers exactly what
Score or Filter answers node by node."""

from __future__ import annotations

from kubesched.framework import (
    CycleState,
    FilterPlugin,
    NodeInfo,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from kubesched.testing._array import array_filter_mismatch, array_score_mismatch
from kubesched.testing._batch import batch_filter_mismatch, batch_score_mismatch
from kubesched.testing._contract_base import ContractBase, contract
from kubesched.testing._harness import PluginHarness, status_of
from kubesched.testing._scenario import Scenario

__all__ = [
    "ArrayFilterContract",
    "ArrayScoreContract",
    "BatchFilterContract",
    "BatchScoreContract",
]


def filter_orders(h: PluginHarness, state: CycleState) -> list[list[NodeInfo]]:
    """After PreFilter on `state`: the nodes it leaves in the snapshot's order, reversed,
    and every other one (nothing when PreFilter skips or rejects: Filter does not run)."""
    assert isinstance(h.plugin, FilterPlugin)
    pre_filter = h.plugin.pre_filter if isinstance(h.plugin, PreFilterPlugin) else None
    result = None
    if pre_filter is not None:
        result, status = pre_filter(state, h.pod, h.nodes)
        if not status_of(status).is_success:
            return []
    nodes = h.nodes_for(result)
    return [nodes, nodes[::-1], nodes[1::2]]


def score_orders(h: PluginHarness, state: CycleState) -> list[list[NodeInfo]]:
    """After Filter and PreScore on `state`: the feasible nodes in the snapshot's order
    and reversed (nothing when PreScore skips or fails: Score does not run)."""
    assert isinstance(h.plugin, ScorePlugin)
    nodes = h.feasible(h.filter_phase(state))
    if not nodes:
        return []
    pre_score = h.plugin.pre_score if isinstance(h.plugin, PreScorePlugin) else None
    if pre_score is not None and not status_of(pre_score(state, h.pod, nodes)).is_success:
        return []
    return [nodes, nodes[::-1]]


@contract("BatchScore")
class BatchScoreContract(ContractBase):
    """Where a Score plugin offers `score_nodes` (BatchScorePlugin), it equals `score` node
    by node: the same ints in the same order, or the same failure."""

    def test_score_nodes_matches_score(self) -> None:
        """score_nodes equals Score node by node after PreScore (feasible nodes, in the
        snapshot's order and reversed)"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            state = CycleState()
            for order in score_orders(h, state):
                assert isinstance(h.plugin, ScorePlugin)
                mismatch = batch_score_mismatch(h.plugin, state, h.pod, order)
                assert mismatch is None, mismatch

        self.for_all(self.scenarios(), check)


@contract("BatchFilter")
class BatchFilterContract(ContractBase):
    """Where a Filter plugin offers `filter_nodes` (BatchFilterPlugin), it equals `filter`
    node by node: the same statuses in the same order, on any nodes the framework may pass
    (those earlier plugins let through), or an exception where Filter raises."""

    def test_filter_nodes_matches_filter(self) -> None:
        """filter_nodes equals Filter node by node after PreFilter (the nodes PreFilter
        leaves, in the snapshot's order, reversed, and every other one)"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            state = CycleState()
            for order in filter_orders(h, state):
                assert isinstance(h.plugin, FilterPlugin)
                mismatch = batch_filter_mismatch(h.plugin, state, h.pod, order)
                assert mismatch is None, mismatch

        self.for_all(self.scenarios(), check)


@contract("ArrayFilter")
class ArrayFilterContract(ContractBase):
    """Where a Filter plugin offers `filter_mask` (ArrayFilterPlugin, plugin API 0.4), the
    fast path answers what `filter` answers node by node: the mask passes only nodes
    `filter` lets through (the framework asks `filter` for the rest); with
    `filter_mask_exact`, it rejects only nodes `filter` rejects (Unschedulable or
    UnschedulableAndUnresolvable), whose statuses the framework then builds only when read."""

    def test_filter_mask_matches_filter(self) -> None:
        """filter_mask passes only what Filter passes after PreFilter, and with
        filter_mask_exact rejects only what it rejects (the rows of the nodes PreFilter
        leaves, in the snapshot's order, reversed, and every other one)"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            state = CycleState()
            for order in filter_orders(h, state):
                assert isinstance(h.plugin, FilterPlugin)
                mismatch = array_filter_mismatch(h.plugin, state, h.pod, h.snapshot, order)
                assert mismatch is None, mismatch

        self.for_all(self.scenarios(), check)


@contract("ArrayScore")
class ArrayScoreContract(ContractBase):
    """Where a Score plugin offers `score_array` (ArrayScorePlugin, plugin API 0.4), it
    equals `score` node by node, and `normalize_score_array` (when offered) equals
    `normalize_score`."""

    def test_score_array_matches_score(self) -> None:
        """score_array equals Score node by node after PreScore, and normalize_score_array
        NormalizeScore (feasible nodes, in the snapshot's order and reversed)"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            state = CycleState()
            for order in score_orders(h, state):
                assert isinstance(h.plugin, ScorePlugin)
                mismatch = array_score_mismatch(h.plugin, state, h.pod, h.snapshot, order)
                assert mismatch is None, mismatch

        self.for_all(self.scenarios(), check)
