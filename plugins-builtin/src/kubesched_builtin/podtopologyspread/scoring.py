"""PreScore state, Score and NormalizeScore for ScheduleAnyway constraints.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/scoring.go. A node's raw score
is `round(sum_i count_i * w_i + (maxSkew_i - 1))` with `w_i = ln(domains_i + 2)`; fewer
matching pods is better, so normalization reverses it: `100 * (max + min - s) / max`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from kubesched.api import Pod
from kubesched.framework import MAX_NODE_SCORE, NodeInfo, NodeScore
from kubesched_builtin.nodeaffinity import required_node_affinity
from kubesched_builtin.podtopologyspread.common import (
    LABEL_HOSTNAME,
    SpreadConstraint,
    count_pods_matching,
    node_labels_match_constraints,
)

__all__ = [
    "PreScoreState",
    "compute_pre_score_state",
    "normalize_scores",
    "score_node",
    "topology_normalizing_weight",
]


class PreScoreState:
    """What PreScore computed for one pod: its ScheduleAnyway constraints, the feasible
    nodes that lack a required topology key (scored 0), per constraint the matching-pod
    count of each domain of the feasible nodes (hostname counts are taken at Score time),
    and the per-constraint weights. `scored_ignored` is the array Score's note, for the
    array NormalizeScore, of which rows it scored were ignored ones."""

    __slots__ = (
        "constraints",
        "ignored_nodes",
        "scored_ignored",
        "topology_normalizing_weight",
        "topology_value_to_pod_counts",
    )

    def __init__(
        self,
        constraints: Sequence[SpreadConstraint] = (),
        ignored_nodes: set[str] | None = None,
        topology_value_to_pod_counts: list[dict[str, int]] | None = None,
        topology_normalizing_weight: list[float] | None = None,
    ) -> None:
        self.constraints = tuple(constraints)
        self.ignored_nodes = ignored_nodes if ignored_nodes is not None else set()
        self.topology_value_to_pod_counts = topology_value_to_pod_counts or []
        self.topology_normalizing_weight = topology_normalizing_weight or []
        self.scored_ignored: npt.NDArray[np.bool_] | None = None

    def clone(self) -> PreScoreState:
        return self  # never changed after PreScore


def topology_normalizing_weight(size: int) -> float:
    """ln(size + 2): more domains weigh more, so small topologies are not watered down."""
    return math.log(size + 2)


def compute_pre_score_state(
    pod: Pod,
    constraints: Sequence[SpreadConstraint],
    filtered_nodes: Sequence[NodeInfo],
    all_nodes: Sequence[NodeInfo],
    require_all_topologies: bool,
) -> PreScoreState:
    """Domains come from the feasible nodes; their counts from every node of the cluster
    that passes the constraint's node inclusion policies (upstream initPreScoreState and
    PreScore). Without `require_all_topologies` (System defaults) a node missing the zone
    label is still scored for hostname spreading, its zone counted as the value ""."""
    state = PreScoreState(constraints)
    if not constraints:
        return state
    counts: list[dict[str, int]] = [{} for _ in constraints]
    for info in filtered_nodes:
        labels = _labels(info)
        if require_all_topologies and not node_labels_match_constraints(labels, constraints):
            state.ignored_nodes.add(info.name)
            continue
        for i, c in enumerate(constraints):
            if c.topology_key != LABEL_HOSTNAME:  # per-node counts are taken in Score
                counts[i].setdefault(labels.get(c.topology_key, ""), 0)
    weights = []
    for i, c in enumerate(constraints):
        size = len(counts[i])
        if c.topology_key == LABEL_HOSTNAME:
            size = len(filtered_nodes) - len(state.ignored_nodes)
        weights.append(topology_normalizing_weight(size))

    namespace = pod.metadata.namespace or "default"
    required = required_node_affinity(pod)
    for info in all_nodes:
        node = info.node
        if node is None:
            continue
        labels = node.metadata.labels
        if require_all_topologies and not node_labels_match_constraints(labels, constraints):
            continue
        for i, c in enumerate(constraints):
            if not c.match_node_inclusion_policies(pod, node, required):
                continue
            value = labels.get(c.topology_key, "")
            # only domains of feasible nodes are counted; hostname ones are absent here
            if value not in counts[i]:
                continue
            counts[i][value] += count_pods_matching(info.pods, c.selector, namespace)
    state.topology_value_to_pod_counts = counts
    state.topology_normalizing_weight = weights
    return state


def _labels(info: NodeInfo) -> dict[str, str]:
    return info.node.metadata.labels if info.node is not None else {}


def score_node(state: PreScoreState, pod: Pod, info: NodeInfo) -> int:
    """The node's raw score: more matching pods in its domains, higher (worse)."""
    if info.name in state.ignored_nodes:
        return 0
    labels = _labels(info)
    namespace = pod.metadata.namespace or "default"
    total = 0.0
    for i, c in enumerate(state.constraints):
        value = labels.get(c.topology_key)
        if value is None:
            continue
        if c.topology_key == LABEL_HOSTNAME:
            count = count_pods_matching(info.pods, c.selector, namespace)
        else:
            count = state.topology_value_to_pod_counts[i].get(value, 0)
        total += count * state.topology_normalizing_weight[i] + (c.max_skew - 1)
    # Go's math.Round rounds halves away from zero; scores are never negative
    return math.floor(total + 0.5)


def normalize_scores(state: PreScoreState, scores: list[NodeScore]) -> None:
    """Reverse and scale to 0..100 over the scored nodes; ignored nodes end with 0."""
    low = None
    high = 0
    for ns in scores:
        if ns.name in state.ignored_nodes:
            continue
        low = ns.score if low is None else min(low, ns.score)
        high = max(high, ns.score)
    for ns in scores:
        if ns.name in state.ignored_nodes:
            ns.score = 0
        elif high == 0:
            ns.score = MAX_NODE_SCORE
        else:
            ns.score = MAX_NODE_SCORE * (high + (low or 0) - ns.score) // high
