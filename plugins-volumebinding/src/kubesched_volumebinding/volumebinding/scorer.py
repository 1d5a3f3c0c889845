"""Score by storage utilisation per class.

Upstream: volumebinding/scorer.go and plugins/helper/shape_score.go. For each storage class
of the pod's volumes on a node, utilisation = requested * 100 / capacity (integer; 100 when
the capacity is 0 or too small), scored on the broken-linear shape; the node's score is the
rounded mean over classes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from kubesched.framework import MAX_NODE_SCORE
from kubesched_volumebinding.volumebinding.args import (
    MAX_CUSTOM_PRIORITY_SCORE,
    UtilizationShapePoint,
)

__all__ = ["StorageResource", "VolumeCapacityScorer", "broken_linear", "build_scorer"]

_MAX_UTILIZATION: Final = 100


@dataclass
class StorageResource:
    """Bytes the pod asks for in a class on a node, and the capacity that backs them."""

    requested: int = 0
    capacity: int = 0


VolumeCapacityScorer = Callable[[Mapping[str, StorageResource]], int]


def _trunc_div(a: int, b: int) -> int:
    """Integer division rounding toward zero, as Go's `/` does (decreasing shapes)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """The piecewise-linear function through (utilization, score) points; flat outside."""

    def f(p: int) -> int:
        for i, (util, score) in enumerate(shape):
            if p <= util:
                if i == 0:
                    return score
                u0, s0 = shape[i - 1]
                return s0 + _trunc_div((score - s0) * (p - u0), util - u0)
        return shape[-1][1]

    return f


def build_scorer(points: Sequence[UtilizationShapePoint]) -> VolumeCapacityScorer:
    """The node scorer for a shape of 0..10 scores (scaled to 0..100 here)."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    raw = broken_linear([(p.utilization, p.score * scale) for p in points])

    def class_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(_MAX_UTILIZATION)
        return raw(requested * _MAX_UTILIZATION // capacity)

    def scorer(classes: Mapping[str, StorageResource]) -> int:
        if not classes:
            return 0
        total = sum(class_score(r.requested, r.capacity) for r in classes.values())
        # Go math.Round: halves away from zero (scores are never negative here)
        return math.floor(total / len(classes) + 0.5)

    return scorer
