"""InterPodAffinity's required rules: the counts PreFilter computes and Filter checks.

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/filtering.go. PreFilter counts,
per topology pair (a node label key and value),

- existing pods whose required anti-affinity terms match the incoming pod,
- existing pods matching all of the incoming pod's required affinity terms (once per term),
- existing pods matching each of the incoming pod's required anti-affinity terms,

so Filter answers for a node by looking up its labels. AddPod / RemovePod move the counts
as if a pod were placed on or taken off a node (nominated pods, preemption dry runs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from kubesched.api import Node, Pod
from kubesched.framework import NodeInfo, StateData, Status
from kubesched_builtin.interpodaffinity.domains import Domains
from kubesched_builtin.interpodaffinity.terms import (
    AffinityTerm,
    PodTerms,
    TermCache,
    pod_matches_all_terms,
)

__all__ = [
    "AFFINITY",
    "ANTI_AFFINITY",
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "EXISTING_ANTI_AFFINITY",
    "PreFilterState",
    "TopologyCounts",
    "existing_anti_affinity_counts",
    "filter_node",
    "filter_nodes",
    "incoming_affinity_counts",
    "satisfies_existing_pods_anti_affinity",
    "satisfies_pod_affinity",
    "satisfies_pod_anti_affinity",
]

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: Final = (
    "node(s) didn't satisfy existing pods anti-affinity rules"
)
ERR_REASON_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: Final = "node(s) didn't match pod anti-affinity rules"

AFFINITY: Final = 0
ANTI_AFFINITY: Final = 1
EXISTING_ANTI_AFFINITY: Final = 2
"""PreFilter's three counts, by index (in `PreFilterState` and its `Domains`)."""

TopologyCounts = dict[tuple[str, str], int]
"""(topology key, value) → number of matching (pod, term) pairs; zero entries are removed."""


def _update(counts: TopologyCounts, node: Node, topology_key: str, value: int) -> None:
    topology_value = node.metadata.labels.get(topology_key)
    if topology_value is None:
        return
    pair = (topology_key, topology_value)
    total = counts.get(pair, 0) + value
    if total:
        counts[pair] = total
    else:
        counts.pop(pair, None)


def _update_with_affinity_terms(
    counts: TopologyCounts, terms: Sequence[AffinityTerm], pod: Pod, node: Node, value: int
) -> None:
    """Count every term's pair when `pod` matches all the terms."""
    if pod_matches_all_terms(terms, pod):
        for t in terms:
            _update(counts, node, t.topology_key, value)


def _update_with_anti_affinity_terms(
    counts: TopologyCounts,
    terms: Sequence[AffinityTerm],
    pod: Pod,
    namespace_labels: Mapping[str, str] | None,
    node: Node,
    value: int,
) -> None:
    """Count the pair of each term `pod` matches."""
    for t in terms:
        if t.matches(pod, namespace_labels):
            _update(counts, node, t.topology_key, value)


class PreFilterState:
    """What PreFilter computed for the incoming pod; AddPod/RemovePod change the counts.

    Counted on the snapshot's columns, the three counts are kept per domain (`domains`)
    and made into dicts only when read (Filter node by node, AddPod/RemovePod, a clone):
    Filter's mask and batch form read the domains.
    """

    __slots__ = (
        "_counts",
        "domains",
        "namespace_labels",
        "pod",
        "required_affinity",
        "required_anti_affinity",
    )

    def __init__(
        self,
        pod: Pod,
        required_affinity: tuple[AffinityTerm, ...],
        required_anti_affinity: tuple[AffinityTerm, ...],
        namespace_labels: Mapping[str, str],
        existing_anti_affinity_counts: TopologyCounts | None = None,
        affinity_counts: TopologyCounts | None = None,
        anti_affinity_counts: TopologyCounts | None = None,
        domains: Domains | None = None,
    ) -> None:
        self.pod = pod
        self.required_affinity = required_affinity
        """The incoming pod's required affinity terms, namespace selectors resolved."""
        self.required_anti_affinity = required_anti_affinity
        self.namespace_labels = namespace_labels
        """Labels of the incoming pod's namespace (for existing pods' namespace selectors)."""
        self.domains = domains
        """The three counts per domain of the snapshot's columns (`AFFINITY`,
        `ANTI_AFFINITY`, `EXISTING_ANTI_AFFINITY`); None once the counts changed
        (AddPod/RemovePod, a clone) or when PreFilter walked a node list."""
        # by count: a dict, or None while it is still only in `domains`
        self._counts: list[TopologyCounts | None] = [
            affinity_counts,
            anti_affinity_counts,
            existing_anti_affinity_counts,
        ]
        if domains is None:
            self._counts = [c if c is not None else {} for c in self._counts]

    def _dict(self, which: int) -> TopologyCounts:
        counts = self._counts[which]
        if counts is None:
            assert self.domains is not None  # a count is left out only with its domains
            counts = self._counts[which] = self.domains.counts(which)
        return counts

    def _own_dicts(self) -> None:
        """Make every dict and drop the domains: the dicts are about to change."""
        for which in range(len(self._counts)):
            self._dict(which)
        self.domains = None

    def _set(self, which: int, counts: TopologyCounts) -> None:
        self._own_dicts()
        self._counts[which] = counts

    @property
    def affinity_counts(self) -> TopologyCounts:
        """Existing pods matching all of the incoming pod's required affinity terms, once
        per term, by (topology key, value)."""
        return self._dict(AFFINITY)

    @affinity_counts.setter
    def affinity_counts(self, counts: TopologyCounts) -> None:
        self._set(AFFINITY, counts)

    @property
    def anti_affinity_counts(self) -> TopologyCounts:
        """Existing pods matching each of the incoming pod's required anti-affinity terms."""
        return self._dict(ANTI_AFFINITY)

    @anti_affinity_counts.setter
    def anti_affinity_counts(self, counts: TopologyCounts) -> None:
        self._set(ANTI_AFFINITY, counts)

    @property
    def existing_anti_affinity_counts(self) -> TopologyCounts:
        """Existing pods whose required anti-affinity terms match the incoming pod."""
        return self._dict(EXISTING_ANTI_AFFINITY)

    @existing_anti_affinity_counts.setter
    def existing_anti_affinity_counts(self, counts: TopologyCounts) -> None:
        self._set(EXISTING_ANTI_AFFINITY, counts)

    def has_counts(self, which: int) -> bool:
        """Whether count `which` has a pair (without making its dict)."""
        counts = self._counts[which]
        if counts is not None:
            return bool(counts)
        return self.domains is not None and bool(self.domains.keys(which))

    def clone(self) -> StateData:
        return PreFilterState(
            self.pod,
            self.required_affinity,
            self.required_anti_affinity,
            self.namespace_labels,
            dict(self.existing_anti_affinity_counts),
            dict(self.affinity_counts),
            dict(self.anti_affinity_counts),
        )

    def update_with_pod(self, other: PodTerms, other_pod: Pod, node: Node, multiplier: int) -> None:
        """Account for `other_pod` (with terms `other`) appearing on (+1) or leaving (-1)
        `node` (upstream preFilterState.updateWithPod)."""
        self._own_dicts()
        _update_with_anti_affinity_terms(
            self.existing_anti_affinity_counts,
            other.required_anti_affinity,
            self.pod,
            self.namespace_labels,
            node,
            multiplier,
        )
        _update_with_affinity_terms(
            self.affinity_counts, self.required_affinity, other_pod, node, multiplier
        )
        # the incoming pod's terms have their namespace selectors resolved: no labels needed
        _update_with_anti_affinity_terms(
            self.anti_affinity_counts,
            self.required_anti_affinity,
            other_pod,
            None,
            node,
            multiplier,
        )


def existing_anti_affinity_counts(
    pod: Pod,
    namespace_labels: Mapping[str, str],
    nodes: Iterable[NodeInfo],
    cache: TermCache,
) -> TopologyCounts:
    """Pairs where an existing pod's required anti-affinity term matches `pod`; `nodes`
    are those holding pods with required anti-affinity (upstream
    getExistingAntiAffinityCounts)."""
    counts: TopologyCounts = {}
    for info in nodes:
        node = info.node
        if node is None:
            continue
        for existing in info.pods_with_required_anti_affinity:
            terms = cache.terms(existing.pod).required_anti_affinity
            _update_with_anti_affinity_terms(counts, terms, pod, namespace_labels, node, 1)
    return counts


def incoming_affinity_counts(
    required_affinity: Sequence[AffinityTerm],
    required_anti_affinity: Sequence[AffinityTerm],
    nodes: Iterable[NodeInfo],
) -> tuple[TopologyCounts, TopologyCounts]:
    """(affinity counts, anti-affinity counts) of existing pods against the incoming pod's
    required terms (upstream getIncomingAffinityAntiAffinityCounts)."""
    affinity: TopologyCounts = {}
    anti_affinity: TopologyCounts = {}
    if not required_affinity and not required_anti_affinity:
        return affinity, anti_affinity
    for info in nodes:
        node = info.node
        if node is None:
            continue
        for existing in info.pods:
            _update_with_affinity_terms(affinity, required_affinity, existing.pod, node, 1)
            _update_with_anti_affinity_terms(
                anti_affinity, required_anti_affinity, existing.pod, None, node, 1
            )
    return affinity, anti_affinity


def satisfies_existing_pods_anti_affinity(state: PreFilterState, node: Node) -> bool:
    """No existing pod's required anti-affinity term rejects the incoming pod here."""
    if not state.has_counts(EXISTING_ANTI_AFFINITY):
        return True
    counts = state.existing_anti_affinity_counts
    labels = node.metadata.labels
    if len(labels) <= len(counts):
        return not any(counts.get(pair, 0) > 0 for pair in labels.items())
    return not any(n > 0 and labels.get(key) == value for (key, value), n in counts.items())


def satisfies_pod_anti_affinity(state: PreFilterState, node: Node) -> bool:
    """No pod in the node's domain matches one of the incoming pod's anti-affinity terms."""
    if not state.has_counts(ANTI_AFFINITY):
        return True
    counts = state.anti_affinity_counts
    labels = node.metadata.labels
    for term in state.required_anti_affinity:
        value = labels.get(term.topology_key)
        if value is not None and counts.get((term.topology_key, value), 0) > 0:
            return False
    return True


def satisfies_pod_affinity(state: PreFilterState, node: Node) -> bool:
    """Every required affinity term has a matching pod in the node's domain, or the pod is
    the first of a group with affinity to itself."""
    pods_exist = True
    labels = node.metadata.labels
    for term in state.required_affinity:
        value = labels.get(term.topology_key)
        if value is None:
            return False  # the node must have every topology key
        if state.affinity_counts.get((term.topology_key, value), 0) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    # The first pod of a group whose terms select the group itself would wait forever:
    # when no pod anywhere matches and the pod matches its own terms, let it pass.
    return not state.affinity_counts and pod_matches_all_terms(state.required_affinity, state.pod)


def filter_node(state: PreFilterState, node_info: NodeInfo) -> Status | None:
    """Filter's answer for one node: the three rules in upstream's order (an Error for a
    node info without its node). Each rule returns at once when PreFilter's state leaves
    it nothing to reject with."""
    node = node_info.node
    if node is None:
        return Status.as_error("node not found")
    if not satisfies_pod_affinity(state, node):
        return Status.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
    if not satisfies_pod_anti_affinity(state, node):
        return Status.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
    if not satisfies_existing_pods_anti_affinity(state, node):
        return Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
    return None


def filter_nodes(state: PreFilterState, nodes: Sequence[NodeInfo]) -> list[Status | None]:
    """`filter_node` of each node, PreFilter's state read once by the caller."""
    return [filter_node(state, info) for info in nodes]
