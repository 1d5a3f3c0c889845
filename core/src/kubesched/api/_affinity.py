"""Node and pod affinity structures, and node selector matching.

Upstream: k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go. Terms of a
NodeSelector are ORed, requirements within a term ANDed; a term with no requirements matches
nothing; `matchFields` supports only `metadata.name`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field

from kubesched.api._base import K8sModel
from kubesched.api._labels import LabelSelector

__all__ = [
    "Affinity",
    "NodeAffinity",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PreferredSchedulingTerm",
    "WeightedPodAffinityTerm",
]


class NodeSelectorRequirement(K8sModel):
    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
    values: list[str] = Field(default_factory=list)

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        present = self.key in labels
        if op == "In":
            return present and labels[self.key] in self.values
        if op == "NotIn":
            return not present or labels[self.key] not in self.values
        if op == "Exists":
            return present
        if op == "DoesNotExist":
            return not present
        # Gt / Lt: both sides must parse as integers, otherwise no match
        if not present or len(self.values) != 1:
            return False
        try:
            have, want = int(labels[self.key]), int(self.values[0])
        except ValueError:
            return False
        return have > want if op == "Gt" else have < want


class NodeSelectorTerm(K8sModel):
    match_expressions: list[NodeSelectorRequirement] = Field(default_factory=list)
    match_fields: list[NodeSelectorRequirement] = Field(default_factory=list)

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        if not self.match_expressions and not self.match_fields:
            return False
        if not all(r.matches(labels) for r in self.match_expressions):
            return False
        fields = {"metadata.name": node_name}
        return all(r.key in fields and r.matches(fields) for r in self.match_fields)


class NodeSelector(K8sModel):
    node_selector_terms: list[NodeSelectorTerm] = Field(default_factory=list)

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        """Whether any term matches the node."""
        return any(t.matches(node_name, labels) for t in self.node_selector_terms)


class PreferredSchedulingTerm(K8sModel):
    weight: int
    preference: NodeSelectorTerm


class NodeAffinity(K8sModel):
    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] = Field(
        default_factory=list
    )


class PodAffinityTerm(K8sModel):
    label_selector: LabelSelector | None = None
    namespaces: list[str] = Field(default_factory=list)
    topology_key: str = ""
    namespace_selector: LabelSelector | None = None
    match_label_keys: list[str] = Field(default_factory=list)
    mismatch_label_keys: list[str] = Field(default_factory=list)


class WeightedPodAffinityTerm(K8sModel):
    weight: int
    pod_affinity_term: PodAffinityTerm


class PodAffinity(K8sModel):
    required_during_scheduling_ignored_during_execution: list[PodAffinityTerm] = Field(
        default_factory=list
    )
    preferred_during_scheduling_ignored_during_execution: list[WeightedPodAffinityTerm] = Field(
        default_factory=list
    )


class PodAntiAffinity(PodAffinity):
    pass


class Affinity(K8sModel):
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAntiAffinity | None = None
