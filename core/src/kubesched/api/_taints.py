"""Taints and tolerations.

Upstream: k8s.io/api/core/v1/toleration.go (ToleratesTaint) and
k8s.io/component-helpers/scheduling/corev1/helpers.go (FindMatchingUntoleratedTaint).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Literal

from kubesched.api._base import K8sModel

__all__ = ["Taint", "TaintEffect", "Toleration", "find_untolerated_taint", "tolerates_any"]

TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class Taint(K8sModel):
    key: str
    value: str = ""
    effect: TaintEffect
    time_added: datetime | None = None

    def __str__(self) -> str:
        # upstream Taint.ToString: "key=value:effect", value part omitted when empty
        if self.value:
            return f"{self.key}={self.value}:{self.effect}"
        return f"{self.key}:{self.effect}"


class Toleration(K8sModel):
    key: str = ""
    operator: Literal["Exists", "Equal"] = "Equal"
    value: str = ""
    effect: Literal["", "NoSchedule", "PreferNoSchedule", "NoExecute"] = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """Whether this toleration tolerates `taint` (empty effect matches every effect,
        empty key with Exists matches every key)."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        return self.value == taint.value


def tolerates_any(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    return any(t.tolerates(taint) for t in tolerations)


def find_untolerated_taint(
    taints: Sequence[Taint],
    tolerations: Sequence[Toleration],
    include: Callable[[Taint], bool] | None = None,
) -> Taint | None:
    """The first taint (among those `include` accepts) no toleration tolerates, or None."""
    for taint in taints:
        if include is not None and not include(taint):
            continue
        if not tolerates_any(tolerations, taint):
            return taint
    return None
