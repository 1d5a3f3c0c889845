"""The contracts of the optional batch Score (`BatchScorePlugin.score_nodes`) and batch
Filter (`BatchFilterPlugin.filter_nodes`): one call for many nodes answers exactly what
Score or Filter answers node by node."""

from __future__ import annotations

from kubesched.framework import (
    CycleState,
    FilterPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
)
from kubesched.testing._batch import batch_filter_mismatch, batch_score_mismatch
from kubesched.testing._contract_base import ContractBase, contract
from kubesched.testing._harness import status_of
from kubesched.testing._scenario import Scenario

__all__ = ["BatchFilterContract", "BatchScoreContract"]


@contract("BatchScore")
class BatchScoreContract(ContractBase):
    """Where a Score plugin offers `score_nodes` (BatchScorePlugin), it equals `score` node
    by node: the same ints in the same order, or the same failure."""

    def test_score_nodes_matches_score(self) -> None:
        """score_nodes equals Score node by node after PreScore (feasible nodes, in the
        snapshot's order and reversed)"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            assert isinstance(h.plugin, ScorePlugin)
            state = CycleState()
            nodes = h.feasible(h.filter_phase(state))
            if not nodes:
                return
            pre_score = h.plugin.pre_score if isinstance(h.plugin, PreScorePlugin) else None
            if pre_score is not None and not status_of(pre_score(state, h.pod, nodes)).is_success:
                return  # Score does not run after a PreScore Skip or failure
            for order in (nodes, nodes[::-1]):
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
            assert isinstance(h.plugin, FilterPlugin)
            state = CycleState()
            pre_filter = h.plugin.pre_filter if isinstance(h.plugin, PreFilterPlugin) else None
            result = None
            if pre_filter is not None:
                result, status = pre_filter(state, h.pod, h.nodes)
                if not status_of(status).is_success:
                    return  # Filter does not run after a PreFilter Skip or rejection
            nodes = h.nodes_for(result)
            for order in (nodes, nodes[::-1], nodes[1::2]):
                mismatch = batch_filter_mismatch(h.plugin, state, h.pod, order)
                assert mismatch is None, mismatch

        self.for_all(self.scenarios(), check)
