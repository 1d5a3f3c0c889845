"""Taking an explanation from the pod's real scheduling cycle.

`CycleExplainer.framework` stands in for the profile's Framework in that one cycle. It is
the Framework itself for everything but two runners, which it runs unchanged while noting
what they did: PreFilter (each plugin's verdict; PreFilter may have side effects, so it
must run once, in the cycle) and Score (each plugin's raw score, beside the weighted
scores and totals the host was selected by).

Right after PreFilter, on a clone of the cycle's CycleState, the same snapshot and the
nominated pods as they are at that moment (nothing changes them before Filter), every
Filter plugin runs on every node the cycle could filter, in the two passes of upstream
framework.go RunFilterPluginsWithNominatedPods: with the nominated pods of equal or higher
priority added (addGENominatedPods), then, where that passed, without them. Filter is
pure, so these extra calls change nothing in the cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from kubesched.api import Pod
from kubesched.framework import (
    CycleState,
    FilterExplainer,
    FilterPlugin,
    NodeInfo,
    PreFilterPlugin,
    PreFilterResult,
    ScorePlugin,
    Status,
)
from kubesched.runtime import Framework, NodePluginScores
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
    """Builds the Explanation of one scheduling cycle of `pod` while the cycle runs: pass
    `framework` to the cycle in place of `fwk`, then call `finish` with its outcome."""

    def __init__(self, fwk: Framework, pod: Pod, attempt: int, time: float) -> None:
        self._fwk = fwk
        self._pod = pod
        self._scored: list[str] | None = None
        self.explanation = Explanation(pod.key, attempt, time, weights=dict(fwk.score_weights))
        self.framework = cast(Framework, _CycleLens(fwk, self))

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

    # -- what the lens reports ----------------------------------------------------------
    def _pre_filtered(
        self,
        state: CycleState,
        nodes: Sequence[NodeInfo],
        result: PreFilterResult | None,
        status: Status,
        rejectors: set[str],
    ) -> None:
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

    def _scores(self, nodes: Sequence[NodeInfo], scores: list[NodePluginScores]) -> None:
        self._scored = [n.name for n in nodes]
        weights = self._fwk.score_weights
        by_name = {n.node: n for n in self.explanation.nodes}
        for row in scores:
            ne = by_name[row.name]
            for plugin, weighted in row.scores:
                ne.weighted_scores[plugin] = weighted
                ne.normalized_scores[plugin] = weighted // weights[plugin]
            ne.total = row.total_score

    def _raw_scores(self, plugin: str, nodes: Sequence[NodeInfo], values: Sequence[int]) -> None:
        by_name = {n.node: n for n in self.explanation.nodes}
        for info, value in zip(nodes, values, strict=True):
            by_name[info.name].raw_scores[plugin] = value


class _CycleLens:
    """The profile's Framework as the explained cycle sees it: every attribute is the
    Framework's own except the PreFilter and Score runners, which are the Framework's
    methods run on this object, so they read the observed PreFilter plugins and the
    observing `_score_one_plugin` below. Plugins keep their handle, the Framework, so
    nested runner calls (preemption dry runs, a plugin's own planning) are not noted."""

    def __init__(self, fwk: Framework, explainer: CycleExplainer) -> None:
        self._fwk = fwk
        self._explainer = explainer
        verdicts = explainer.explanation.pre_filter
        verdicts.update({p.name: NOT_RUN for p in fwk.pre_filter_plugins})
        self.pre_filter_plugins = [_ObservedPreFilter(p, verdicts) for p in fwk.pre_filter_plugins]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fwk, name)

    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        out = Framework.run_pre_filter_plugins(cast(Framework, self), state, pod, nodes)
        self._explainer._pre_filtered(state, nodes, *out)
        return out

    def run_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[NodePluginScores], Status]:
        scores, status = Framework.run_score_plugins(cast(Framework, self), state, pod, nodes)
        if status.is_success:
            self._explainer._scores(nodes, scores)
        return scores, status

    def _score_one_plugin(
        self, p: ScorePlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Sequence[int], Status | None]:
        values, status = self._fwk._score_one_plugin(p, state, pod, nodes)
        if status is None:
            self._explainer._raw_scores(p.name, nodes, values)
        return values, status


class _ObservedPreFilter:
    """A PreFilter plugin whose every answer is noted as its verdict."""

    def __init__(self, plugin: PreFilterPlugin, verdicts: dict[str, str]) -> None:
        self.name = plugin.name
        self._plugin = plugin
        self._verdicts = verdicts

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        try:
            result, status = self._plugin.pre_filter(state, pod, nodes)
        except Exception as exc:
            self._verdicts[self.name] = f"Error: {type(exc).__name__}: {exc}"
            raise  # the runner makes it the cycle's Error, as always
        skipped = status is not None and status.is_skip
        self._verdicts[self.name] = "Skip" if skipped else verdict(status)
        return result, status

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plugin, name)


def _filter_node(fwk: Framework, state: CycleState, pod: Pod, info: NodeInfo) -> NodeExplanation:
    """Every Filter plugin's verdict on the node: with the nominated pods that count, and
    where a plugin passes with them, without them (both must pass, as in the cycle)."""
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
    for p in fwk.filter_plugins:
        if p.name in state.skip_filter_plugins:
            ne.filters[p.name] = "skipped"
            continue
        ne.filters[p.name] = "ok"
        for pass_state, pass_info, suffix in passes:
            answer = _run_filter(p, pass_state, pod, pass_info)
            if answer != "ok":
                ne.filters[p.name] = answer + suffix
                lines = _details(p, pass_state, pod, pass_info)
                if lines:
                    ne.details[p.name] = lines
                break
    return ne


def _run_filter(plugin: FilterPlugin, state: CycleState, pod: Pod, info: NodeInfo) -> str:
    try:
        return verdict(plugin.filter(state, pod, info))
    except Exception as exc:
        return f"Error: {type(exc).__name__}: {exc}"


def _details(plugin: FilterPlugin, state: CycleState, pod: Pod, info: NodeInfo) -> list[str]:
    """The plugin's own account of a rejection, when it offers one."""
    if not isinstance(plugin, FilterExplainer):
        return []
    try:
        return [str(line) for line in plugin.explain_filter(state, pod, info)]
    except Exception as exc:
        return [f"explain_filter raised {type(exc).__name__}: {exc}"]
