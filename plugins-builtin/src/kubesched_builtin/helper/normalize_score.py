"""DefaultNormalizeScore: scale raw scores so the best node gets the maximum.

Upstream: pkg/scheduler/framework/plugins/helper/normalize_score.go. Used by the Score plugins
whose raw scores are counts or weight sums (TaintToleration reversed, NodeAffinity, and the
spreading plugins), so their results land in [0, MaxNodeScore] before weights are applied.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kubesched.framework import MAX_NODE_SCORE, NodeScore

__all__ = ["default_normalize_array", "default_normalize_score"]


def _go_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Go's `/` on int64 (b > 0 here)."""
    q = abs(a) // b
    return q if a >= 0 else -q


def default_normalize_score(
    scores: Sequence[NodeScore], *, reverse: bool = False, max_priority: int = MAX_NODE_SCORE
) -> None:
    """Rewrite `scores` in place: each becomes `max_priority * score / highest` (integer
    division), or `max_priority` minus that with `reverse`.

    When the highest score is 0 (or below), nothing can be scaled: with `reverse` every node
    gets `max_priority` (no node has anything the pod dislikes), otherwise scores are left
    as they are.
    """
    highest = 0
    for s in scores:
        highest = max(highest, s.score)
    if highest == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return
    for s in scores:
        scaled = _go_div(max_priority * s.score, highest)
        s.score = max_priority - scaled if reverse else scaled


def default_normalize_array(
    scores: npt.NDArray[np.int64], *, reverse: bool = False, max_priority: int = MAX_NODE_SCORE
) -> npt.NDArray[np.int64]:
    """`default_normalize_score` on an array of scores (the array NormalizeScore form):
    the same integer arithmetic, Go's truncating division included."""
    highest = max(0, int(scores.max())) if len(scores) else 0
    if highest == 0:
        return np.full(len(scores), max_priority, np.int64) if reverse else scores
    product = max_priority * scores
    scaled = np.where(product >= 0, product // highest, -((-product) // highest))
    return max_priority - scaled if reverse else scaled
