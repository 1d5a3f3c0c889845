"""Label selectors (`metav1.LabelSelector`) and their matching rules.

Upstream: k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector) and
pkg/labels/selector.go. A nil selector matches nothing; an empty one matches everything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field

from kubesched.api._base import K8sModel

__all__ = ["LabelSelector", "LabelSelectorRequirement", "selector_matches"]


class LabelSelectorRequirement(K8sModel):
    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist"]
    values: list[str] = Field(default_factory=list)

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op == "In":
            return self.key in labels and labels[self.key] in self.values
        if op == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if op == "Exists":
            return self.key in labels
        return self.key not in labels


class LabelSelector(K8sModel):
    match_labels: dict[str, str] = Field(default_factory=dict)
    match_expressions: list[LabelSelectorRequirement] = Field(default_factory=list)

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether `labels` satisfy every term; an empty selector matches everything."""
        for key, value in self.match_labels.items():
            if labels.get(key) != value:
                return False
        return all(req.matches(labels) for req in self.match_expressions)

    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions


def selector_matches(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """Match with upstream's nil rule: a missing selector selects nothing."""
    return selector is not None and selector.matches(labels)
