"""The two cluster-scoped kinds core knows besides Node: Namespace and PriorityClass."""

from __future__ import annotations

from typing import Literal

from kubesched.api._base import K8sModel
from kubesched.api._meta import ObjectMeta

__all__ = ["Namespace", "PriorityClass"]


class Namespace(K8sModel):
    api_version: str = "v1"
    kind: Literal["Namespace"] = "Namespace"
    metadata: ObjectMeta


class PriorityClass(K8sModel):
    api_version: str = "scheduling.k8s.io/v1"
    kind: Literal["PriorityClass"] = "PriorityClass"
    metadata: ObjectMeta
    value: int
    global_default: bool = False
    preemption_policy: Literal["PreemptLowerPriority", "Never"] | None = None
    description: str = ""
