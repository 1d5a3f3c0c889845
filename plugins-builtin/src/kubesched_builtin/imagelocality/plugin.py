"""ImageLocality favours nodes that already hold the pod's container images.

Upstream: pkg/scheduler/framework/plugins/imagelocality/image_locality.go (v1.34). For each
container (init and app) whose image the node has, the image's size counts, scaled by the
share of the cluster's nodes that have it, so a popular image does not pull every pod onto
the few nodes that happen to hold it ("node heating"). The sum is clamped to
[23 MiB, 1000 MiB x containers] and mapped linearly onto 0..100. No NormalizeScore.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

import numpy as np

from kubesched.api import Pod, normalized_image_name
from kubesched.framework import (
    MAX_NODE_SCORE,
    CycleState,
    ImageStateSummary,
    NodeColumns,
    NodeInfo,
    Rows,
    RowScores,
    ScorePlugin,
    Status,
)
from kubesched_builtin.helper.arrays import per_distinct_at
from kubesched_builtin.names import IMAGE_LOCALITY

__all__ = [
    "MAX_CONTAINER_THRESHOLD",
    "MIN_THRESHOLD",
    "ImageLocality",
    "calculate_priority",
    "sum_image_scores",
]

_MB: Final = 1024 * 1024
MIN_THRESHOLD: Final = 23 * _MB
"""Image bytes below which a node gets no credit (most images compress to more)."""
MAX_CONTAINER_THRESHOLD: Final = 1000 * _MB
"""Image bytes per container above which more bytes earn nothing more."""


def _scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    # float arithmetic truncated to an integer, as upstream's int64(float64(size) * spread)
    spread = state.num_nodes / total_num_nodes
    return int(state.size * spread)


def sum_image_scores(node_info: NodeInfo, pod: Pod, total_num_nodes: int) -> int:
    """The spread-scaled sizes of the pod's images (init containers, then app containers)
    that the node holds; an image used twice counts twice."""
    total = 0
    for container in (*pod.spec.init_containers, *pod.spec.containers):
        state = node_info.image_states.get(normalized_image_name(container.image))
        if state is not None:
            total += _scaled_image_score(state, total_num_nodes)
    return total


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """The node score for summed image bytes: clamp, then scale linearly to 0..100."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    # with no containers the threshold is 0 and the numerator 0: the score is 0
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


class ImageLocality(ScorePlugin):
    """Score: prefer nodes that already have the pod's images (weighted by how rare they
    are in the cluster)."""

    name: ClassVar[str] = IMAGE_LOCALITY

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        # every node of the cycle's snapshot counts, not just the feasible ones
        total_num_nodes = len(self.handle.snapshot)
        if total_num_nodes == 0:
            return 0, Status.as_error("no nodes in the snapshot")
        image_scores = sum_image_scores(node_info, pod, total_num_nodes)
        num_containers = len(pod.spec.init_containers) + len(pod.spec.containers)
        return calculate_priority(image_scores, num_containers), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """Score of every node in one call (BatchScorePlugin): the pod's image names are
        normalized once; a node holding no image scores as an empty sum at once."""
        if not nodes:
            return [], None
        total_num_nodes = len(self.handle.snapshot)
        if total_num_nodes == 0:
            return [], Status.as_error("no nodes in the snapshot")
        containers = (*pod.spec.init_containers, *pod.spec.containers)
        images = [normalized_image_name(c.image) for c in containers]
        nothing = calculate_priority(0, len(containers))
        scores: list[int] = []
        for info in nodes:
            states = info.image_states
            if not states:
                scores.append(nothing)
                continue
            total = 0
            for image in images:
                found = states.get(image)
                if found is not None:
                    total += _scaled_image_score(found, total_num_nodes)
            scores.append(calculate_priority(total, len(containers)))
        return scores, None

    def score_array(
        self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> tuple[RowScores, Status | None]:
        """Score on the snapshot's columns (ArrayScorePlugin): a row whose image set holds
        none of the pod's images scores as an empty sum; the others (the sizes are not in
        the columns) as `score_nodes` scores them."""
        if not len(rows):
            return np.zeros(0, np.int64), None
        if len(self.handle.snapshot) == 0:
            return np.zeros(0, np.int64), Status.as_error("no nodes in the snapshot")
        containers = (*pod.spec.init_containers, *pod.spec.containers)
        images = frozenset(normalized_image_name(c.image) for c in containers)
        sets = columns.image_sets
        holds = per_distinct_at(
            columns.image_set, rows, len(sets), lambda i: bool(sets[i] & images), np.bool_
        )
        scores = np.full(len(rows), calculate_priority(0, len(containers)), np.int64)
        if holds.any():
            at = np.flatnonzero(holds)
            infos = self.handle.snapshot.node_info_list
            found, status = self.score_nodes(state, pod, [infos[r] for r in rows[at].tolist()])
            if status is not None:
                return np.zeros(0, np.int64), status
            scores[at] = found
        return scores, None
