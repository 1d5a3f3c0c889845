"""Explanations: why a pod went where it went, plugin by plugin and node by node.

For a pod being explained, the scheduler runs, before the real attempt and on the same
snapshot, every Filter plugin on every node (not stopping at the first failure, so each
plugin's verdict is visible) and, for the nodes every plugin accepts, every Score plugin's
raw score, its normalized score and the weighted total. Nothing is reserved; the real
attempt then runs as usual.

Where a Filter plugin that implements `FilterExplainer` rejects a node, its
`explain_filter` lines (which object failed and why, beyond upstream's reason) are kept
as that node's `details` for the plugin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubesched.api import Pod
from kubesched.framework import (
    CycleState,
    FilterExplainer,
    FilterPlugin,
    NodeInfo,
    NodeScore,
    Snapshot,
    Status,
)
from kubesched.runtime import Framework

__all__ = ["Explanation", "NodeExplanation", "explain_attempt"]


def _verdict(status: Status | None) -> str:
    if status is None or status.is_success:
        return "ok"
    return f"{status.code}: {status.message()}"


@dataclass
class NodeExplanation:
    node: str
    filters: dict[str, str] = field(default_factory=dict)
    """Filter plugin → "ok" or "<Code>: <reason>"."""
    details: dict[str, list[str]] = field(default_factory=dict)
    """Filter plugin → its `explain_filter` lines, for the plugins that rejected the node
    and can say more."""
    raw_scores: dict[str, int] = field(default_factory=dict)
    normalized_scores: dict[str, int] = field(default_factory=dict)
    weighted_scores: dict[str, int] = field(default_factory=dict)
    total: int | None = None

    @property
    def feasible(self) -> bool:
        return all(v in ("ok", "skipped") for v in self.filters.values())

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "feasible": self.feasible,
            "filters": self.filters,
            "details": self.details,
            "rawScores": self.raw_scores,
            "normalizedScores": self.normalized_scores,
            "weightedScores": self.weighted_scores,
            "total": self.total,
        }


@dataclass
class Explanation:
    pod: str
    attempt: int
    time: float
    pre_filter: dict[str, str] = field(default_factory=dict)
    nodes: list[NodeExplanation] = field(default_factory=list)
    weights: dict[str, int] = field(default_factory=dict)
    outcome: str = ""

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "attempt": self.attempt,
            "virtualTime": self.time,
            "preFilter": self.pre_filter,
            "weights": self.weights,
            "nodes": [n.to_json_dict() for n in self.nodes],
            "outcome": self.outcome,
        }


def explain_attempt(
    fwk: Framework, snapshot: Snapshot, pod: Pod, attempt: int, time: float
) -> Explanation:
    """Every plugin's verdict for `pod` on every node of `snapshot`."""
    exp = Explanation(pod.key, attempt, time, weights=dict(fwk.score_weights))
    state = CycleState()
    nodes = snapshot.node_info_list
    for p in fwk.pre_filter_plugins:
        try:
            _, s = p.pre_filter(state, pod, nodes)
        except Exception as exc:
            s = Status.as_error(f"{type(exc).__name__}: {exc}")
        if s is not None and s.is_skip:
            state.skip_filter_plugins.add(p.name)
            exp.pre_filter[p.name] = "Skip"
        else:
            exp.pre_filter[p.name] = _verdict(s)
    for info in nodes:
        ne = NodeExplanation(info.name)
        for f in fwk.filter_plugins:
            if f.name in state.skip_filter_plugins:
                ne.filters[f.name] = "skipped"
                continue
            try:
                ne.filters[f.name] = _verdict(f.filter(state, pod, info))
            except Exception as exc:
                ne.filters[f.name] = f"Error: {type(exc).__name__}: {exc}"
            if ne.filters[f.name] != "ok":
                lines = _details(f, state, pod, info)
                if lines:
                    ne.details[f.name] = lines
        exp.nodes.append(ne)
    feasible = [info for info, ne in zip(nodes, exp.nodes, strict=True) if ne.feasible]
    if feasible:
        _explain_scores(fwk, state, pod, feasible, exp)
    return exp


def _details(plugin: FilterPlugin, state: CycleState, pod: Pod, info: NodeInfo) -> list[str]:
    """The plugin's own account of a rejection, when it offers one."""
    if not isinstance(plugin, FilterExplainer):
        return []
    try:
        return [str(line) for line in plugin.explain_filter(state, pod, info)]
    except Exception as exc:
        return [f"explain_filter raised {type(exc).__name__}: {exc}"]


def _explain_scores(
    fwk: Framework, state: CycleState, pod: Pod, feasible: list[NodeInfo], exp: Explanation
) -> None:
    by_name = {n.node: n for n in exp.nodes}
    for pre in fwk.pre_score_plugins:
        try:
            s = pre.pre_score(state, pod, feasible)
        except Exception as exc:
            s = Status.as_error(f"{type(exc).__name__}: {exc}")
        if s is not None and s.is_skip:
            state.skip_score_plugins.add(pre.name)
    for p in fwk.score_plugins:
        if p.name in state.skip_score_plugins:
            continue
        scores: list[NodeScore] = []
        for info in feasible:
            try:
                value, _ = p.score(state, pod, info)
            except Exception:
                value = 0  # the real attempt reports the error
            scores.append(NodeScore(info.name, value))
            by_name[info.name].raw_scores[p.name] = value
        try:  # the base normalize_score does nothing, so calling it always is harmless
            p.normalize_score(state, pod, scores)
        except Exception as exc:
            exp.outcome = f"NormalizeScore of {p.name} raised {type(exc).__name__}: {exc}"
        weight = fwk.score_weights.get(p.name, 1)
        for ns in scores:
            ne = by_name[ns.name]
            ne.normalized_scores[p.name] = ns.score
            ne.weighted_scores[p.name] = ns.score * weight
    for info in feasible:
        ne = by_name[info.name]
        ne.total = sum(ne.weighted_scores.values())
