"""Per-node summaries of pods, so PreFilter and PreScore match each distinct pod once.

Upstream walks every existing pod in every cycle (filtering.go getExistingAntiAffinityCounts
and getIncomingAffinityAntiAffinityCounts, scoring.go processExistingPod). Whether a term
matches a pod depends only on the pod's namespace and labels; what an existing pod's own
terms contribute depends only on those terms. So a node's pods are grouped by
(namespace, labels) and its pods with terms by their parsed terms, each group knowing how
many pods it stands for, and a cycle matches each distinct group once (a memo by group id)
and adds `count` times what one pod would have added. The counts and scores are the same
numbers upstream's per-pod walk gives, with the same keys present.

A node's summary is rebuilt only when its NodeInfo's generation changes (every change to a
NodeInfo takes a new generation; a clone keeps it, and then holds the same pods).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from kubesched.api import Pod
from kubesched.framework import NodeInfo, PodInfo
from kubesched_builtin.interpodaffinity.filtering import AFFINITY, ANTI_AFFINITY, TopologyCounts
from kubesched_builtin.interpodaffinity.scoring import TopologyScores
from kubesched_builtin.interpodaffinity.terms import (
    AffinityTerm,
    PodTerms,
    TermCache,
    WeightedAffinityTerm,
    pod_matches_all_terms,
    pod_namespace,
)

__all__ = [
    "Hit",
    "LabelGroup",
    "NodeHits",
    "NodePods",
    "PodIndex",
    "TermGroup",
    "existing_anti_affinity_counts",
    "existing_anti_affinity_hits",
    "incoming_affinity_counts",
    "incoming_affinity_hits",
    "score_hits",
    "topology_scores",
]


@dataclass(frozen=True, slots=True)
class LabelGroup:
    """Pods of a node with the same namespace and labels; `pod` is one of them."""

    id: int
    pod: Pod
    count: int


@dataclass(frozen=True, slots=True)
class TermGroup:
    """Pods of a node whose parsed terms are equal."""

    id: int
    terms: PodTerms
    count: int


@dataclass(frozen=True, slots=True)
class NodePods:
    """One node's pods, grouped; valid for the NodeInfo generation it was built from."""

    generation: int
    by_labels: tuple[LabelGroup, ...]
    """All pods, by (namespace, labels)."""
    with_affinity: tuple[TermGroup, ...]
    """Pods with (anti-)affinity terms, by terms."""
    with_required_anti_affinity: tuple[TermGroup, ...]
    """Pods with required anti-affinity terms, by terms."""


class PodIndex:
    """Node summaries by node name, and the ids that name distinct label sets and terms.

    The id tables are emptied (with the summaries that use their ids) once either grows
    past `limit`, so pods that come and go with unique labels cannot grow them forever.
    """

    __slots__ = ("_label_ids", "_limit", "_nodes", "_term_ids", "terms")

    def __init__(self, terms: TermCache, limit: int = 65536) -> None:
        self.terms = terms
        self._limit = limit
        self._label_ids: dict[tuple[str, frozenset[tuple[str, str]]], int] = {}
        self._term_ids: dict[PodTerms, int] = {}
        self._nodes: dict[str, NodePods] = {}

    def node(self, info: NodeInfo) -> NodePods:
        """The summary of `info`'s pods, rebuilt when the node info changed."""
        summary = self._nodes.get(info.name)
        if summary is not None and summary.generation == info.generation:
            return summary
        if len(self._label_ids) > self._limit or len(self._term_ids) > self._limit:
            self._label_ids.clear()
            self._term_ids.clear()
            self._nodes.clear()
        summary = NodePods(
            info.generation,
            self._by_labels(info.pods),
            self._by_terms(info.pods_with_affinity),
            self._by_terms(info.pods_with_required_anti_affinity),
        )
        self._nodes[info.name] = summary
        return summary

    def _by_labels(self, pods: Iterable[PodInfo]) -> tuple[LabelGroup, ...]:
        ids = self._label_ids
        counts: dict[int, int] = {}
        first: dict[int, Pod] = {}
        for info in pods:
            pod = info.pod
            key = (pod_namespace(pod), frozenset(pod.metadata.labels.items()))
            gid = ids.setdefault(key, len(ids))
            counts[gid] = counts.get(gid, 0) + 1
            first.setdefault(gid, pod)
        return tuple(LabelGroup(gid, first[gid], n) for gid, n in counts.items())

    def _by_terms(self, pods: Iterable[PodInfo]) -> tuple[TermGroup, ...]:
        ids = self._term_ids
        counts: dict[int, int] = {}
        first: dict[int, PodTerms] = {}
        for info in pods:
            terms = self.terms.terms(info.pod)
            gid = ids.setdefault(terms, len(ids))
            counts[gid] = counts.get(gid, 0) + 1
            first.setdefault(gid, terms)
        return tuple(TermGroup(gid, first[gid], n) for gid, n in counts.items())

    def nodes(self, infos: Iterable[NodeInfo]) -> Iterator[tuple[Mapping[str, str], NodePods]]:
        """(node labels, summary) of each node info that has its node."""
        known = self._nodes
        for info in infos:
            node = info.node
            if node is None:
                continue
            summary = known.get(info.name)
            if summary is None or summary.generation != info.generation:
                summary = self.node(info)
            yield node.metadata.labels, summary

    def __len__(self) -> int:
        return len(self._nodes)


_NO_KEYS: Final[tuple[str, ...]] = ()

Hit = tuple[int, str, int]
"""(which count, topology key, amount) one group of a node's pods adds: the count is
PreFilter's affinity (0) or anti-affinity (1) count, or 0 where there is one count; the
amount goes to the node's value of the key, when the node has the key."""

NodeHits = Callable[[NodePods], list[Hit]]
"""What one node's pods add, given its summary; each function matches a distinct group
once per cycle (a memo by group id) and is called for every node of the walk."""


def existing_anti_affinity_hits(pod: Pod, namespace_labels: Mapping[str, str]) -> NodeHits:
    """filtering.existing_anti_affinity_counts per node: for each group of pods with
    required anti-affinity, the topology keys of its terms matching `pod`."""
    memo: dict[int, tuple[str, ...]] = {}

    def hits(summary: NodePods) -> list[Hit]:
        out: list[Hit] = []
        for group in summary.with_required_anti_affinity:
            keys = memo.get(group.id)
            if keys is None:
                keys = tuple(
                    t.topology_key
                    for t in group.terms.required_anti_affinity
                    if t.matches(pod, namespace_labels)
                )
                memo[group.id] = keys
            out.extend((0, key, group.count) for key in keys)
        return out

    return hits


def incoming_affinity_hits(
    required_affinity: Sequence[AffinityTerm], required_anti_affinity: Sequence[AffinityTerm]
) -> NodeHits:
    """filtering.incoming_affinity_counts per node: each group of pods matching all the
    required affinity terms adds its size under every term's key (count AFFINITY), and
    under the key of each required anti-affinity term it matches (count ANTI_AFFINITY)."""
    affinity_keys = tuple(t.topology_key for t in required_affinity)
    memo: dict[int, tuple[Hit, ...]] = {}

    def hits(summary: NodePods) -> list[Hit]:
        out: list[Hit] = []
        for group in summary.by_labels:
            found = memo.get(group.id)
            if found is None:
                keys = (
                    affinity_keys
                    if pod_matches_all_terms(required_affinity, group.pod)
                    else _NO_KEYS
                )
                anti = tuple(
                    t.topology_key for t in required_anti_affinity if t.matches(group.pod, None)
                )
                found = (*((AFFINITY, k, 1) for k in keys), *((ANTI_AFFINITY, k, 1) for k in anti))
                memo[group.id] = found
            out.extend((which, key, n * group.count) for which, key, n in found)
        return out

    return hits


def _matching(
    terms: Sequence[WeightedAffinityTerm],
    sign: int,
    pod: Pod,
    namespace_labels: Mapping[str, str] | None,
) -> list[Hit]:
    return [
        (0, t.term.topology_key, t.weight * sign)
        for t in terms
        if t.term.matches(pod, namespace_labels)
    ]


def score_hits(
    incoming: Pod,
    preferred_affinity: Sequence[WeightedAffinityTerm],
    preferred_anti_affinity: Sequence[WeightedAffinityTerm],
    namespace_labels: Mapping[str, str],
    hard_pod_affinity_weight: int,
    all_pods: bool,
) -> NodeHits:
    """scoring.PreScoreState.process_existing_pod per node: one hit per matching term (its
    signed weight times the group's size). `all_pods` says whether the incoming pod's
    preferred terms are matched against every pod (it has such terms); otherwise only
    pods with terms of their own are looked at."""
    label_memo: dict[int, tuple[Hit, ...]] = {}
    term_memo: dict[int, tuple[Hit, ...]] = {}
    incoming_terms = all_pods and bool(preferred_affinity or preferred_anti_affinity)

    def hits(summary: NodePods) -> list[Hit]:
        out: list[Hit] = []
        if incoming_terms:
            for lgroup in summary.by_labels:
                found = label_memo.get(lgroup.id)
                if found is None:
                    found = tuple(
                        _matching(preferred_affinity, 1, lgroup.pod, None)
                        + _matching(preferred_anti_affinity, -1, lgroup.pod, None)
                    )
                    label_memo[lgroup.id] = found
                out.extend((0, key, weight * lgroup.count) for _, key, weight in found)
        for tgroup in summary.with_affinity:
            found = term_memo.get(tgroup.id)
            if found is None:
                terms = tgroup.terms
                hard: list[Hit] = []
                if hard_pod_affinity_weight > 0:
                    hard = [
                        (0, t.topology_key, hard_pod_affinity_weight)
                        for t in terms.required_affinity
                        if t.matches(incoming, namespace_labels)
                    ]
                found = tuple(
                    hard
                    + _matching(terms.preferred_affinity, 1, incoming, namespace_labels)
                    + _matching(terms.preferred_anti_affinity, -1, incoming, namespace_labels)
                )
                term_memo[tgroup.id] = found
            out.extend((0, key, weight * tgroup.count) for _, key, weight in found)
        return out

    return hits


def _add(counts: TopologyCounts, labels: Mapping[str, str], key: str, n: int) -> None:
    value = labels.get(key)
    if value is not None:
        pair = (key, value)
        counts[pair] = counts.get(pair, 0) + n


def existing_anti_affinity_counts(
    index: PodIndex, pod: Pod, namespace_labels: Mapping[str, str], nodes: Iterable[NodeInfo]
) -> TopologyCounts:
    """filtering.existing_anti_affinity_counts over the grouped pods of `nodes`."""
    counts: TopologyCounts = {}
    hits = existing_anti_affinity_hits(pod, namespace_labels)
    for labels, summary in index.nodes(nodes):
        for _, key, n in hits(summary):
            _add(counts, labels, key, n)
    return counts


def incoming_affinity_counts(
    index: PodIndex,
    required_affinity: Sequence[AffinityTerm],
    required_anti_affinity: Sequence[AffinityTerm],
    nodes: Iterable[NodeInfo],
) -> tuple[TopologyCounts, TopologyCounts]:
    """filtering.incoming_affinity_counts over the grouped pods of `nodes`."""
    counts: tuple[TopologyCounts, TopologyCounts] = ({}, {})
    if not required_affinity and not required_anti_affinity:
        return counts
    hits = incoming_affinity_hits(required_affinity, required_anti_affinity)
    for labels, summary in index.nodes(nodes):
        for which, key, n in hits(summary):
            _add(counts[which], labels, key, n)
    return counts


def topology_scores(
    index: PodIndex,
    incoming: Pod,
    preferred_affinity: Sequence[WeightedAffinityTerm],
    preferred_anti_affinity: Sequence[WeightedAffinityTerm],
    namespace_labels: Mapping[str, str],
    hard_pod_affinity_weight: int,
    nodes: Iterable[NodeInfo],
    all_pods: bool,
) -> TopologyScores:
    """PreScore's topology scores (scoring.PreScoreState.process_existing_pod summed over
    the existing pods of `nodes`) over the grouped pods (see `score_hits`)."""
    scores: TopologyScores = {}
    hits = score_hits(
        incoming,
        preferred_affinity,
        preferred_anti_affinity,
        namespace_labels,
        hard_pod_affinity_weight,
        all_pods,
    )
    for labels, summary in index.nodes(nodes):
        if not labels:
            continue
        for _, key, weight in hits(summary):
            value = labels.get(key)
            if value is not None:
                by_value = scores.get(key)
                if by_value is None:
                    by_value = scores[key] = {}
                by_value[value] = by_value.get(value, 0) + weight
    return scores
