"""The runners' recording mode: a scheduling cycle whose CycleState holds a CycleRecorder
under CYCLE_RECORDER has each plugin's answer noted by the runner that called it.

`kubesched simulate --explain` records the pod's real cycle this way
(kubesched.scheduler._explain_cycle): PreFilter answers, the PreFilter outcome, each Score
plugin's raw scores and the weighted scores, all as the one runner got them, so its
exception rules are the only ones. A runner notes only for the very CycleState the
recorder was made for (`recorder.state`): dry runs on clones (preemption, nominated pods)
and a plugin's own runner calls on a fresh state are not noted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

from kubesched.framework import CycleState, NodeInfo, PreFilterResult, Status

__all__ = ["CYCLE_RECORDER", "CycleRecorder", "ScoredNode", "recorder_of"]

CYCLE_RECORDER: Final = "kubesched/cycle-recorder"
"""CycleState key of the cycle's CycleRecorder."""


class ScoredNode(Protocol):
    """A node's row of the Score runner (NodePluginScores)."""

    @property
    def name(self) -> str: ...

    @property
    def scores(self) -> list[tuple[str, int]]:
        """(plugin, weighted score) in the profile's order."""
        ...

    @property
    def total_score(self) -> int: ...


class CycleRecorder(Protocol):
    """What the runners note while a recorded cycle runs."""

    @property
    def state(self) -> CycleState:
        """The cycle's own CycleState: the only one noted."""
        ...

    def pre_filter_answered(
        self, plugin: str, status: Status | None, error: BaseException | None
    ) -> None:
        """A PreFilter plugin answered `status`, or raised `error`."""

    def pre_filter_finished(
        self,
        nodes: Sequence[NodeInfo],
        result: PreFilterResult | None,
        status: Status,
        rejectors: set[str],
    ) -> None:
        """The PreFilter runner's outcome."""

    def plugin_scored(self, plugin: str, nodes: Sequence[NodeInfo], values: Sequence[int]) -> None:
        """A Score plugin's raw scores of `nodes` (before NormalizeScore)."""

    def scores_finished(self, nodes: Sequence[NodeInfo], scores: Sequence[ScoredNode]) -> None:
        """The Score runner succeeded with these weighted scores."""


def recorder_of(state: CycleState) -> CycleRecorder | None:
    """The recorder noting `state`'s runner calls, if any."""
    recorder: CycleRecorder | None = state.get(CYCLE_RECORDER)
    if recorder is None or recorder.state is not state:
        return None
    return recorder
