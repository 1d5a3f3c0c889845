"""Explanations: why a pod went where it went, plugin by plugin and node by node.

An explanation is taken from the pod's real scheduling cycle (see `_explain_cycle`):
PreFilter verdicts as the cycle's PreFilter runner got them; every Filter plugin's
verdict on every node, computed on the cycle's CycleState right after PreFilter, the same
snapshot and the nominated pods the cycle counted (not stopping at the first failure, so
each plugin's verdict is visible); and the Score runner's scores of the nodes the cycle
scored. So a node the explanation scores best is one the cycle could have chosen.

Where a Filter plugin that implements `FilterExplainer` rejects a node, its
`explain_filter` lines (which object failed and why, beyond upstream's reason) are kept
as that node's `details` for the plugin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kubesched.framework import Status

__all__ = ["NOT_RUN", "Explanation", "NodeExplanation", "verdict"]

NOT_RUN = "not run"
"""The PreFilter verdict of a plugin the cycle never called (an earlier PreFilter plugin
was UnschedulableAndUnresolvable or failed)."""

WITHOUT_NOMINATED = " (without the nominated pods)"
"""Suffix of a Filter verdict from the second pass, which leaves the nominated pods out."""


def verdict(status: Status | None) -> str:
    """`ok`, or `<Code>: <reason>`."""
    if status is None or status.is_success:
        return "ok"
    return f"{status.code}: {status.message()}"


@dataclass
class NodeExplanation:
    node: str
    filters: dict[str, str] = field(default_factory=dict)
    """Filter plugin → "ok", "skipped" or "<Code>: <reason>"; a rejection found only
    when the nominated pods are left out ends in WITHOUT_NOMINATED."""
    details: dict[str, list[str]] = field(default_factory=dict)
    """Filter plugin → its `explain_filter` lines, for the plugins that rejected the node
    and can say more."""
    nominated_pods: list[str] = field(default_factory=list)
    """Pods nominated to the node (equal or higher priority) that Filter counted as if
    they were running there (upstream RunFilterPluginsWithNominatedPods)."""
    excluded: str = ""
    """Why the cycle did not filter the node at all ("<Code>: <reason>"): PreFilter
    rejected the pod, a PreFilterResult left the node out, or adding its nominated pods
    failed. Empty when the node was filtered."""
    raw_scores: dict[str, int] = field(default_factory=dict)
    normalized_scores: dict[str, int] = field(default_factory=dict)
    weighted_scores: dict[str, int] = field(default_factory=dict)
    total: int | None = None
    """The weighted sum the cycle selected the host by; None when the cycle did not score
    the node."""

    @property
    def feasible(self) -> bool:
        return not self.excluded and all(v in ("ok", "skipped") for v in self.filters.values())

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "feasible": self.feasible,
            "excluded": self.excluded,
            "nominatedPods": self.nominated_pods,
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
    """PreFilter plugin → "ok", "Skip", "<Code>: <reason>" or NOT_RUN."""
    nodes: list[NodeExplanation] = field(default_factory=list)
    weights: dict[str, int] = field(default_factory=dict)
    outcome: str = ""
    notes: list[str] = field(default_factory=list)
    """How the cycle's node search shaped the outcome beyond the verdicts and scores
    (the nominated node tried first, a single feasible node, a search that stopped)."""

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "attempt": self.attempt,
            "virtualTime": self.time,
            "preFilter": self.pre_filter,
            "weights": self.weights,
            "nodes": [n.to_json_dict() for n in self.nodes],
            "outcome": self.outcome,
            "notes": self.notes,
        }
