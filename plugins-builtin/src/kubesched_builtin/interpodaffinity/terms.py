"""Pod (anti-)affinity terms, parsed once per pod and matched against pods.

Upstream: pkg/scheduler/framework/types.go (AffinityTerm, WeightedAffinityTerm, NewPodInfo,
getNamespacesFromPodAffinityTerm, AffinityTerm.Matches). A term selects the pods in its
namespaces (the `namespaces` list, plus those whose labels `namespaceSelector` matches;
neither given means the pod's own namespace) whose labels its `labelSelector` matches.

`matchLabelKeys` / `mismatchLabelKeys` are merged into the label selector here, as the API
server does when it admits a pod (pkg/registry/core/pod/strategy.go,
applyMatchLabelKeysAndMismatchLabelKeys): kubesched loads pods without that step, and the
merge is idempotent for pods that already went through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from kubesched.api import Namespace, Pod, PodAffinityTerm, WeightedPodAffinityTerm
from kubesched_builtin.interpodaffinity.selectors import (
    CompiledSelector,
    SelectorError,
    compile_selector,
)

__all__ = [
    "NO_TERMS",
    "AffinityTerm",
    "PodTerms",
    "TermCache",
    "WeightedAffinityTerm",
    "merge_namespaces",
    "parse_pod_terms",
    "pod_matches_all_terms",
    "pod_namespace",
]

_NO_LABELS: Final[Mapping[str, str]] = {}


def pod_namespace(pod: Pod) -> str:
    """The pod's namespace, `default` when the manifest leaves it out (as `Pod.key` does)."""
    return pod.metadata.namespace or "default"


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """A parsed PodAffinityTerm. `selector` / `namespace_selector` None select nothing."""

    namespaces: frozenset[str]
    selector: CompiledSelector | None
    topology_key: str
    namespace_selector: CompiledSelector | None

    def matches(self, pod: Pod, namespace_labels: Mapping[str, str] | None) -> bool:
        """Whether `pod` is in the term's namespaces and has matching labels.

        `namespace_labels` are the labels of `pod`'s namespace, for the namespace selector;
        None when the selector was already resolved into `namespaces` (incoming pod's terms).
        """
        ns_selector = self.namespace_selector
        if pod_namespace(pod) in self.namespaces or (
            ns_selector is not None and ns_selector.matches(namespace_labels or _NO_LABELS)
        ):
            return self.selector is not None and self.selector.matches(pod.metadata.labels)
        return False


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


@dataclass(frozen=True, slots=True)
class PodTerms:
    """A pod's four term lists. A list that does not parse is empty and `error` says why
    (upstream keeps the other lists of such a pod, and PreFilter rejects the pod itself)."""

    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[WeightedAffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[WeightedAffinityTerm, ...] = ()
    error: str | None = None


NO_TERMS: Final = PodTerms()


def _parse_term(pod: Pod, term: PodAffinityTerm) -> AffinityTerm:
    selector = compile_selector(term.label_selector)
    if selector is not None:
        labels = pod.metadata.labels
        for key in term.match_label_keys:
            if key in labels:
                selector = selector.with_requirement(key, "In", labels[key])
        for key in term.mismatch_label_keys:
            if key in labels:
                selector = selector.with_requirement(key, "NotIn", labels[key])
    if not term.namespaces and term.namespace_selector is None:
        namespaces = frozenset((pod_namespace(pod),))
    else:
        namespaces = frozenset(term.namespaces)
    return AffinityTerm(
        namespaces, selector, term.topology_key, compile_selector(term.namespace_selector)
    )


def _parse_terms(
    pod: Pod, terms: Sequence[PodAffinityTerm], what: str, errors: list[str]
) -> tuple[AffinityTerm, ...]:
    try:
        return tuple(_parse_term(pod, t) for t in terms)
    except SelectorError as exc:
        errors.append(f"{what}: {exc}")
        return ()


def _parse_weighted(
    pod: Pod, terms: Sequence[WeightedPodAffinityTerm], what: str, errors: list[str]
) -> tuple[WeightedAffinityTerm, ...]:
    try:
        return tuple(
            WeightedAffinityTerm(_parse_term(pod, t.pod_affinity_term), t.weight) for t in terms
        )
    except SelectorError as exc:
        errors.append(f"{what}: {exc}")
        return ()


def parse_pod_terms(pod: Pod) -> PodTerms:
    """The pod's parsed terms (upstream NewPodInfo), parse errors aggregated in `error`."""
    affinity = pod.spec.affinity
    if affinity is None or (affinity.pod_affinity is None and affinity.pod_anti_affinity is None):
        return NO_TERMS
    pa, paa = affinity.pod_affinity, affinity.pod_anti_affinity
    errors: list[str] = []
    terms = PodTerms(
        required_affinity=_parse_terms(
            pod,
            pa.required_during_scheduling_ignored_during_execution if pa else [],
            "requiredAffinityTerms",
            errors,
        ),
        required_anti_affinity=_parse_terms(
            pod,
            paa.required_during_scheduling_ignored_during_execution if paa else [],
            "requiredAntiAffinityTerms",
            errors,
        ),
        preferred_affinity=_parse_weighted(
            pod,
            pa.preferred_during_scheduling_ignored_during_execution if pa else [],
            "preferredAffinityTerms",
            errors,
        ),
        preferred_anti_affinity=_parse_weighted(
            pod,
            paa.preferred_during_scheduling_ignored_during_execution if paa else [],
            "preferredAntiAffinityTerms",
            errors,
        ),
    )
    if errors:
        # utilerrors.NewAggregate: one error alone, several as "[a, b]"
        message = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
        terms = replace(terms, error=message)
    return terms


class TermCache:
    """Parsed terms by pod, reused across cycles while the pod object is the same one or
    a copy with equal affinity and labels (what the terms are parsed from).

    Entries of gone pods are dropped wholesale once the cache grows past `limit`.
    """

    __slots__ = ("_entries", "_limit")

    def __init__(self, limit: int = 65536) -> None:
        self._entries: dict[tuple[str, str | None, str], tuple[Pod, PodTerms]] = {}
        self._limit = limit

    def terms(self, pod: Pod) -> PodTerms:
        affinity = pod.spec.affinity
        if affinity is None or (
            affinity.pod_affinity is None and affinity.pod_anti_affinity is None
        ):
            return NO_TERMS
        meta = pod.metadata
        key = (meta.uid, meta.namespace, meta.name)
        hit = self._entries.get(key)
        if hit is not None:
            cached, terms = hit
            if cached is pod:
                return terms
            # A copy of the same pod (the scheduler's assumed copy, an update that left the
            # terms alone): the terms depend only on its affinity, labels (matchLabelKeys)
            # and namespace (in the key).
            if cached.spec.affinity == affinity and cached.metadata.labels == meta.labels:
                self._entries[key] = (pod, terms)
                return terms
        terms = parse_pod_terms(pod)
        if len(self._entries) >= self._limit:
            self._entries.clear()
        self._entries[key] = (pod, terms)
        return terms

    def __len__(self) -> int:
        return len(self._entries)


def merge_namespaces(
    term: AffinityTerm, namespaces: Callable[[], Iterable[Namespace]]
) -> AffinityTerm:
    """The incoming pod's term with its namespace selector resolved into `namespaces`.

    Upstream mergeAffinityTermNamespacesIfNotEmpty (plugin.go): an empty selector (all
    namespaces) and a missing one (none) are kept as they are; otherwise the names of the
    namespaces it matches are added and the selector then selects nothing.
    """
    selector = term.namespace_selector
    if selector is None or selector.is_empty:
        return term
    names = {ns.metadata.name for ns in namespaces() if selector.matches(ns.metadata.labels)}
    return replace(term, namespaces=term.namespaces | names, namespace_selector=None)


def pod_matches_all_terms(terms: Sequence[AffinityTerm], pod: Pod) -> bool:
    """True when there are terms and `pod` matches every one (upstream
    podMatchesAllAffinityTerms; the terms' namespace selectors are matched against no
    labels, which is exact for the incoming pod's resolved terms)."""
    if not terms:
        return False
    return all(t.matches(pod, None) for t in terms)
