"""Taking an explanation from the pod's real scheduling cycle.

`CycleExplainer` is the cycle's CycleRecorder (kubesched.runtime's recording mode): put in
the cycle's CycleState, it is told by the profile's own runners what PreFilter did (each
plugin's answer; PreFilter may have side effects, so it runs once, in the cycle) and what
Score did (each plugin's raw scores, beside the weighted scores and totals the host was
selected by).

Right after PreFilter, on a clone of the cycle's CycleState, the same snapshot and the
nominated pods as they are at that moment (nothing changes them before Filter), every
Filter plugin runs on every node the cycle could filter, in the two passes of upstream
framework.go RunFilterPluginsWithNominatedPods: with the nominated pods of equal or higher
priority added (addGENominatedPods), then, where that passed, without them. Filter is
pure, so these extra calls change nothing in the cycle.
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.api import Pod
from kubesched.framework import (
    CycleState,
    FilterExplainer,
    FilterPlugin,
    NodeInfo,
    PreFilterResult,
    Status,
)
from kubesched.runtime import CYCLE_RECORDER, Framework, ScoredNode
from kubesched.scheduler._algorithm import ScheduleResult
from kubesched.scheduler._explain import (
    NOT_RUN,
    WITHOUT_NOMINATED,
    Explanation,
    NodeExplanation,
    verdict,
)

__all__ = ["CycleExplainer"]


class CycleExplainer:
    """Builds the Explanation of one scheduling cycle of `pod` while the cycle runs: made
    with the cycle's CycleState before the cycle starts, then `finish` with its outcome."""

    def __init__(
        self, fwk: Framework, pod: Pod, attempt: int, time: float, state: CycleState
    ) -> None:
        self._fwk = fwk
        self._pod = pod
        self._state = state
        self._scored: list[str] | None = None
        self.explanation = Explanation(pod.key, attempt, time, weights=dict(fwk.score_weights))
        self.explanation.pre_filter.update({p.name: NOT_RUN for p in fwk.pre_filter_plugins})
        state.write(CYCLE_RECORDER, self)

    @property
    def state(self) -> CycleState:
        return self._state

    def finish(self, result: ScheduleResult | None, status: Status) -> Explanation:
        """The explanation, with the cycle's outcome and how its node search ended."""
        exp = self.explanation
        if result is not None and status.is_success:
            exp.outcome = f"assumed on {result.suggested_host}"
            exp.notes.extend(self._search_notes(result.suggested_host))
        else:
            exp.outcome = f"{status.code}: {status.message()}"
        return exp

    def _search_notes(self, host: str) -> list[str]:
        # upstream schedule_one.go: the nominated node is tried first, a single feasible
        # node is taken unscored, and the search stops at numFeasibleNodesToFind
        scored = self._scored
        if scored is None:
            if host == self._pod.status.nominated_node_name:
                return [
                    f"the pod's nominated node {host} was filtered first and passed: "
                    "no other node was considered"
                ]
            if not self._fwk.has_score_plugins():
                return [f"no Score plugins: the first feasible node found ({host}) was taken"]
            return [f"only {host} passed every filter: it was chosen without scoring"]
        unscored = [n.node for n in self.explanation.nodes if n.feasible and n.total is None]
        if unscored:
            return [
                f"{len(unscored)} feasible node(s) not scored: the search stopped once it had "
                f"found {len(scored)} feasible nodes (percentageOfNodesToScore)"
            ]
        return []

    # -- what the runners note (CycleRecorder) -------------------------------------------
    def pre_filter_answered(
        self, plugin: str, status: Status | None, error: BaseException | None
    ) -> None:
        verdicts = self.explanation.pre_filter
        if error is not None:
            verdicts[plugin] = f"Error: {type(error).__name__}: {error}"
        else:
            verdicts[plugin] = "Skip" if status is not None and status.is_skip else verdict(status)

    def pre_filter_finished(
        self,
        nodes: Sequence[NodeInfo],
        result: PreFilterResult | None,
        status: Status,
        rejectors: set[str],
    ) -> None:
        state = self._state
        exp = self.explanation
        if not status.is_success:
            # every node gets PreFilter's status (as the algorithm's diagnosis does)
            exp.nodes = [NodeExplanation(n.name, excluded=verdict(status)) for n in nodes]
            return
        wanted = result.node_names if result is not None else None
        # the algorithm's message for nodes a PreFilterResult left out; the pod's
        # nominated node is filtered regardless (upstream evaluateNominatedNode)
        left_out = verdict(
            Status.unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(rejectors))}]")
        )
        nominated = self._pod.status.nominated_node_name
        filter_state = state.clone()  # a misbehaving plugin cannot touch the cycle's state
        for info in nodes:
            if wanted is not None and info.name not in wanted and info.name != nominated:
                exp.nodes.append(NodeExplanation(info.name, excluded=left_out))
            else:
                exp.nodes.append(_filter_node(self._fwk, filter_state, self._pod, info))

    def scores_finished(self, nodes: Sequence[NodeInfo], scores: Sequence[ScoredNode]) -> None:
        self._scored = [n.name for n in nodes]
        weights = self._fwk.score_weights
        by_name = {n.node: n for n in self.explanation.nodes}
        for row in scores:
            ne = by_name[row.name]
            for plugin, weighted in row.scores:
                ne.weighted_scores[plugin] = weighted
                ne.normalized_scores[plugin] = weighted // weights[plugin]
            ne.total = row.total_score

    def plugin_scored(self, plugin: str, nodes: Sequence[NodeInfo], values: Sequence[int]) -> None:
        by_name = {n.node: n for n in self.explanation.nodes}
        for info, value in zip(nodes, values, strict=True):
            by_name[info.name].raw_scores[plugin] = value


def _filter_node(fwk: Framework, state: CycleState, pod: Pod, info: NodeInfo) -> NodeExplanation:
    """Every Filter plugin's verdict on the node, from the Filter runner's recording mode:
    with the nominated pods that count, then, for the plugins that pass with them, without
    them (both must pass, as in the cycle)."""
    ne = NodeExplanation(info.name)
    counted = fwk.nominated_pods_to_add(pod, info)
    added, with_state, with_info, err = fwk.add_nominated_pods(pod, state, info)
    if err is not None:
        ne.excluded = verdict(err)
        return ne
    passes = [(with_state, with_info, "")]
    if added:
        ne.nominated_pods = [pi.pod.key for pi in counted]
        passes.append((state, info, WITHOUT_NOMINATED))
    skipped = state.skip_filter_plugins
    passing = {p.name for p in fwk.filter_plugins if p.name not in skipped}
    failed: dict[str, tuple[str, list[str]]] = {}
    for pass_state, pass_info, suffix in passes:

        def note(
            p: FilterPlugin,
            status: Status | None,
            error: BaseException | None,
            pass_state: CycleState = pass_state,
            pass_info: NodeInfo = pass_info,
            suffix: str = suffix,
        ) -> None:
            answer = verdict(status) if error is None else f"Error: {type(error).__name__}: {error}"
            if answer != "ok":
                passing.discard(p.name)
                failed[p.name] = (answer + suffix, _details(p, pass_state, pod, pass_info))

        fwk.note_filter_plugins(pass_state, pod, pass_info, note, only=set(passing))
    for p in fwk.filter_plugins:
        answer, lines = failed.get(p.name, ("skipped" if p.name in skipped else "ok", []))
        ne.filters[p.name] = answer
        if lines:
            ne.details[p.name] = lines
    return ne


def _details(plugin: FilterPlugin, state: CycleState, pod: Pod, info: NodeInfo) -> list[str]:
    """The plugin's own account of a rejection, when it offers one."""
    if not isinstance(plugin, FilterExplainer):
        return []
    try:
        return [str(line) for line in plugin.explain_filter(state, pod, info)]
    except Exception as exc:
        return [f"explain_filter raised {type(exc).__name__}: {exc}"]
