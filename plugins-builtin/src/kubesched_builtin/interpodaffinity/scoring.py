"""InterPodAffinity's preferences: PreScore's topology scores and their normalization.

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/scoring.go. For each existing pod
E on a node N, every term that matches adds its weight (anti-affinity: subtracts it) to the
score of N's value of the term's topology key:

- the incoming pod's preferred affinity (+) and anti-affinity (-) terms matching E,
- E's required affinity terms matching the incoming pod (+hardPodAffinityWeight, if > 0),
- E's preferred affinity (+) and anti-affinity (-) terms matching the incoming pod.

A node's raw score is the sum, over the topology keys, of the score of its own value; it
may be negative. NormalizeScore maps [min, max] onto [0, 100].
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kubesched.api import Node, Pod
from kubesched.framework import MAX_NODE_SCORE, NodeScore, StateData
from kubesched_builtin.interpodaffinity.domains import Domains
from kubesched_builtin.interpodaffinity.terms import AffinityTerm, PodTerms, WeightedAffinityTerm

__all__ = ["PreScoreState", "TopologyScores", "node_score", "normalize"]

TopologyScores = dict[str, dict[str, int]]
"""topology key → topology value → summed weights."""


@dataclass(eq=False)
class PreScoreState:
    """The incoming pod's preferred terms (namespaces resolved) and the topology scores."""

    preferred_affinity: tuple[WeightedAffinityTerm, ...]
    preferred_anti_affinity: tuple[WeightedAffinityTerm, ...]
    namespace_labels: Mapping[str, str]
    hard_pod_affinity_weight: int
    topology_scores: TopologyScores = field(default_factory=dict)
    domains: Domains | None = None
    """The topology scores per domain of the snapshot's columns (which 0), for Score's
    array; None when PreScore walked a node list."""

    def clone(self) -> StateData:
        return self  # never changed after PreScore

    def _add(
        self,
        term: AffinityTerm,
        weight: int,
        pod: Pod,
        namespace_labels: Mapping[str, str] | None,
        node: Node,
    ) -> None:
        if term.matches(pod, namespace_labels):
            value = node.metadata.labels.get(term.topology_key)
            if value is not None:
                by_value = self.topology_scores.setdefault(term.topology_key, {})
                by_value[value] = by_value.get(value, 0) + weight

    def _add_all(
        self,
        terms: Sequence[WeightedAffinityTerm],
        sign: int,
        pod: Pod,
        namespace_labels: Mapping[str, str] | None,
        node: Node,
    ) -> None:
        for t in terms:
            self._add(t.term, t.weight * sign, pod, namespace_labels, node)

    def process_existing_pod(
        self, existing: Pod, existing_terms: PodTerms, node: Node, incoming: Pod
    ) -> None:
        """Add what `existing` (on `node`) contributes (upstream processExistingPod)."""
        if not node.metadata.labels:
            return
        # the incoming pod's terms are resolved: the existing pod's namespace labels are
        # not needed
        self._add_all(self.preferred_affinity, 1, existing, None, node)
        self._add_all(self.preferred_anti_affinity, -1, existing, None, node)
        if self.hard_pod_affinity_weight > 0:
            for term in existing_terms.required_affinity:
                self._add(
                    term, self.hard_pod_affinity_weight, incoming, self.namespace_labels, node
                )
        self._add_all(existing_terms.preferred_affinity, 1, incoming, self.namespace_labels, node)
        self._add_all(
            existing_terms.preferred_anti_affinity, -1, incoming, self.namespace_labels, node
        )


def node_score(scores: TopologyScores, node: Node) -> int:
    """The sum of the topology scores of the node's values (upstream Score)."""
    labels = node.metadata.labels
    total = 0
    for key, by_value in scores.items():
        value = labels.get(key)
        if value is not None:
            total += by_value.get(value, 0)
    return total


def normalize(scores: list[NodeScore]) -> None:
    """Map raw scores onto [0, 100]: `int(100 * (s - min) / (max - min))`, all 0 when every
    score is the same (upstream NormalizeScore, float arithmetic truncated)."""
    if not scores:
        return
    low = min(s.score for s in scores)
    spread = max(s.score for s in scores) - low
    for s in scores:
        value = 0.0
        if spread > 0:
            value = float(MAX_NODE_SCORE) * (float(s.score - low) / float(spread))
        s.score = int(value)
