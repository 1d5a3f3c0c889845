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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from kubesched.api import Pod
from kubesched.framework import NodeInfo, PodInfo
from kubesched_builtin.interpodaffinity.filtering import TopologyCounts
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
    "LabelGroup",
    "NodePods",
    "PodIndex",
    "TermGroup",
    "existing_anti_affinity_counts",
    "incoming_affinity_counts",
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


def _add(counts: TopologyCounts, labels: Mapping[str, str], key: str, n: int) -> None:
    value = labels.get(key)
    if value is not None:
        pair = (key, value)
        counts[pair] = counts.get(pair, 0) + n


def existing_anti_affinity_counts(
    index: PodIndex, pod: Pod, namespace_labels: Mapping[str, str], nodes: Iterable[NodeInfo]
) -> TopologyCounts:
    """filtering.existing_anti_affinity_counts over the grouped pods: for each group of
    pods with required anti-affinity, the topology keys of its terms matching `pod`."""
    counts: TopologyCounts = {}
    memo: dict[int, tuple[str, ...]] = {}
    for labels, summary in index.nodes(nodes):
        for group in summary.with_required_anti_affinity:
            keys = memo.get(group.id)
            if keys is None:
                keys = tuple(
                    t.topology_key
                    for t in group.terms.required_anti_affinity
                    if t.matches(pod, namespace_labels)
                )
                memo[group.id] = keys
            for key in keys:
                _add(counts, labels, key, group.count)
    return counts


def incoming_affinity_counts(
    index: PodIndex,
    required_affinity: Sequence[AffinityTerm],
    required_anti_affinity: Sequence[AffinityTerm],
    nodes: Iterable[NodeInfo],
) -> tuple[TopologyCounts, TopologyCounts]:
    """filtering.incoming_affinity_counts over the grouped pods."""
    affinity: TopologyCounts = {}
    anti_affinity: TopologyCounts = {}
    if not required_affinity and not required_anti_affinity:
        return affinity, anti_affinity
    affinity_keys = tuple(t.topology_key for t in required_affinity)
    memo: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for labels, summary in index.nodes(nodes):
        for group in summary.by_labels:
            hit = memo.get(group.id)
            if hit is None:
                hit = (
                    affinity_keys
                    if pod_matches_all_terms(required_affinity, group.pod)
                    else _NO_KEYS,
                    tuple(
                        t.topology_key for t in required_anti_affinity if t.matches(group.pod, None)
                    ),
                )
                memo[group.id] = hit
            for key in hit[0]:
                value = labels.get(key)
                if value is not None:
                    pair = (key, value)
                    affinity[pair] = affinity.get(pair, 0) + group.count
            for key in hit[1]:
                _add(anti_affinity, labels, key, group.count)
    return affinity, anti_affinity


Contributions = tuple[tuple[str, int], ...]
"""(topology key, signed weight) of each term that matched."""


def _matching(
    terms: Sequence[WeightedAffinityTerm],
    sign: int,
    pod: Pod,
    namespace_labels: Mapping[str, str] | None,
) -> list[tuple[str, int]]:
    return [
        (t.term.topology_key, t.weight * sign)
        for t in terms
        if t.term.matches(pod, namespace_labels)
    ]


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
    the existing pods of `nodes`) over the grouped pods. `all_pods` says whether the
    incoming pod's preferred terms are matched against every pod (it has such terms);
    otherwise only pods with terms of their own are looked at."""
    scores: TopologyScores = {}
    label_memo: dict[int, Contributions] = {}
    term_memo: dict[int, Contributions] = {}
    incoming_terms = bool(preferred_affinity or preferred_anti_affinity)
    for labels, summary in index.nodes(nodes):
        if not labels:
            continue
        if all_pods and incoming_terms:
            for lgroup in summary.by_labels:
                hit = label_memo.get(lgroup.id)
                if hit is None:
                    hit = tuple(
                        _matching(preferred_affinity, 1, lgroup.pod, None)
                        + _matching(preferred_anti_affinity, -1, lgroup.pod, None)
                    )
                    label_memo[lgroup.id] = hit
                _score(scores, labels, hit, lgroup.count)
        for tgroup in summary.with_affinity:
            hit = term_memo.get(tgroup.id)
            if hit is None:
                terms = tgroup.terms
                found: list[tuple[str, int]] = []
                if hard_pod_affinity_weight > 0:
                    found.extend(
                        (t.topology_key, hard_pod_affinity_weight)
                        for t in terms.required_affinity
                        if t.matches(incoming, namespace_labels)
                    )
                found += _matching(terms.preferred_affinity, 1, incoming, namespace_labels)
                found += _matching(terms.preferred_anti_affinity, -1, incoming, namespace_labels)
                hit = tuple(found)
                term_memo[tgroup.id] = hit
            for key, weight in hit:
                value = labels.get(key)
                if value is not None:
                    by_value = scores.get(key)
                    if by_value is None:
                        by_value = scores[key] = {}
                    by_value[value] = by_value.get(value, 0) + weight * tgroup.count
    return scores


def _score(
    scores: TopologyScores, labels: Mapping[str, str], hit: Contributions, count: int
) -> None:
    for key, weight in hit:
        value = labels.get(key)
        if value is not None:
            by_value = scores.setdefault(key, {})
            by_value[value] = by_value.get(value, 0) + weight * count
