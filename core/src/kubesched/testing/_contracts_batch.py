"""The contract of the optional batch Score (`BatchScorePlugin.score_nodes`): one call for all
nodes answers exactly what Score answers node by node."""

from __future__ import annotations

from kubesched.framework import CycleState, PreScorePlugin, ScorePlugin
from kubesched.testing._batch import batch_score_mismatch
from kubesched.testing._contract_base import ContractBase, contract
from kubesched.testing._harness import status_of
from kubesched.testing._scenario import Scenario

__all__ = ["BatchScoreContract"]


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
