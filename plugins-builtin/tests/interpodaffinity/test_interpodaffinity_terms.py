"""InterPodAffinityArgs defaults and validation (upstream validation_pluginargs_test.go,
TestValidateInterPodAffinityArgs), and how terms are parsed: namespaces, selectors,
matchLabelKeys, parse errors (upstream framework/types_test.go)."""

from __future__ import annotations

import pytest
from interpodaffinity_helpers import NamespaceCluster, affinity, make_pod, term, weighted
from pydantic import ValidationError

from kubesched_builtin.interpodaffinity import InterPodAffinityArgs, parse_pod_terms
from kubesched_builtin.interpodaffinity.terms import TermCache, merge_namespaces


def test_args_defaults() -> None:
    args = InterPodAffinityArgs.model_validate({})
    assert args.hard_pod_affinity_weight == 1
    assert args.ignore_preferred_terms_of_existing_pods is False
    assert (
        InterPodAffinityArgs.model_validate(
            {"hardPodAffinityWeight": None}
        ).hard_pod_affinity_weight
        == 1
    )


@pytest.mark.parametrize("weight", [0, 1, 100])
def test_args_valid_weights(weight: int) -> None:
    assert (
        InterPodAffinityArgs.model_validate(
            {"hardPodAffinityWeight": weight}
        ).hard_pod_affinity_weight
        == weight
    )


@pytest.mark.parametrize("weight", [-1, 110])
def test_args_weight_out_of_range(weight: int) -> None:
    with pytest.raises(ValidationError) as info:
        InterPodAffinityArgs.model_validate({"hardPodAffinityWeight": weight})
    assert f"hardPodAffinityWeight: Invalid value: {weight}: not in valid range [0, 100]" in str(
        info.value
    )


def test_args_reject_unknown_fields() -> None:
    with pytest.raises(ValidationError):
        InterPodAffinityArgs.model_validate({"hardPodAffinityWieght": 2})


def test_term_namespaces() -> None:
    pod = make_pod(
        namespace="ns1",
        labels={"app": "a"},
        aff=affinity(
            required=[
                term("app", "In", ["a"], "zone"),
                term("app", "In", ["a"], "zone", namespaces=["x", "y"]),
                term("app", "In", ["a"], "zone", namespaceSelector={}),
            ]
        ),
    )
    own, listed, selected = parse_pod_terms(pod).required_affinity
    assert own.namespaces == {"ns1"} and own.namespace_selector is None
    assert listed.namespaces == {"x", "y"}
    assert selected.namespaces == set() and selected.namespace_selector is not None
    other_ns = make_pod(namespace="elsewhere", labels={"app": "a"})
    assert not own.matches(other_ns, None)
    assert selected.matches(other_ns, None)  # an empty namespace selector selects every namespace
    assert own.matches(make_pod(namespace="ns1", labels={"app": "a"}), None)


def test_merge_namespaces_resolves_the_selector() -> None:
    cluster = NamespaceCluster([("a1", {"team": "a"}), ("a2", {"team": "a"}), ("b", {"team": "b"})])
    t = parse_pod_terms(
        make_pod(
            aff=affinity(
                required=[
                    term(
                        "x",
                        "Exists",
                        [],
                        "zone",
                        namespaces=["b"],
                        namespaceSelector={"matchLabels": {"team": "a"}},
                    )
                ]
            )
        )
    ).required_affinity[0]
    merged = merge_namespaces(t, lambda: cluster.list("Namespace"))
    assert merged.namespaces == {"a1", "a2", "b"}
    assert merged.namespace_selector is None
    # an existing pod's term keeps its selector and is matched against namespace labels
    assert t.matches(make_pod(namespace="zz", labels={"x": ""}), {"team": "a"})
    assert not t.matches(make_pod(namespace="zz", labels={"x": ""}), {"team": "c"})


def test_missing_label_selector_selects_nothing_and_empty_selects_everything() -> None:
    nothing = {"topologyKey": "zone"}
    everything = {"labelSelector": {}, "topologyKey": "zone"}
    terms = parse_pod_terms(
        make_pod(aff=affinity(required=[nothing, everything]))
    ).required_affinity
    target = make_pod(labels={"any": "thing"})
    assert [t.matches(target, None) for t in terms] == [False, True]


def test_match_label_keys_need_the_label_and_a_selector() -> None:
    pod = make_pod(
        labels={"rev": "2"},
        aff=affinity(
            required=[
                term("app", "Exists", [], "zone", matchLabelKeys=["rev", "absent"]),
                {"topologyKey": "zone", "matchLabelKeys": ["rev"]},  # no labelSelector: unchanged
            ]
        ),
    )
    with_keys, without_selector = parse_pod_terms(pod).required_affinity
    assert with_keys.matches(make_pod(labels={"app": "", "rev": "2"}), None)
    assert not with_keys.matches(make_pod(labels={"app": "", "rev": "1"}), None)
    assert without_selector.selector is None


@pytest.mark.parametrize(
    ("requirement", "message"),
    [
        (
            {"key": "k", "operator": "In", "values": []},
            "values: Invalid value: []string(nil): "
            "for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            {"key": "k", "operator": "Exists", "values": ["v"]},
            'values: Invalid value: []string{"v"}: '
            "values set must be empty for exists and does not exist",
        ),
        (
            {"key": "bad key", "operator": "Exists"},
            'key: Invalid value: "bad key": name part must consist of alphanumeric characters',
        ),
        (
            {"key": "k", "operator": "In", "values": ["x" * 64]},
            'values[0][k]: Invalid value: "' + "x" * 64 + '": must be no more than 63 characters',
        ),
    ],
)
def test_invalid_selectors_are_parse_errors(requirement: dict[str, object], message: str) -> None:
    t = {"labelSelector": {"matchExpressions": [requirement]}, "topologyKey": "zone"}
    terms = parse_pod_terms(make_pod(aff=affinity(anti=[t])))
    assert terms.error is not None
    assert terms.error.startswith("requiredAntiAffinityTerms: " + message)
    assert terms.required_anti_affinity == ()


def test_several_parse_errors_are_aggregated_and_valid_lists_kept() -> None:
    bad = term("k", "In", ["{{bad}}"], "zone")
    pod = make_pod(
        aff=affinity(
            required=[term("k", "Exists", [], "zone")],
            preferred=[weighted(1, bad)],
            preferred_anti=[weighted(1, bad)],
        )
    )
    terms = parse_pod_terms(pod)
    assert terms.error is not None
    assert terms.error.startswith("[preferredAffinityTerms: values[0][k]")
    assert ", preferredAntiAffinityTerms: values[0][k]" in terms.error
    assert len(terms.required_affinity) == 1
    assert terms.preferred_affinity == () and terms.preferred_anti_affinity == ()


def test_term_cache_reuses_terms_while_the_pod_and_its_terms_are_the_same() -> None:
    cache = TermCache(limit=2)
    pod = make_pod(aff=affinity(required=[term("k", "Exists", [], "zone")]))
    first = cache.terms(pod)
    assert cache.terms(pod) is first
    copy = pod.model_copy(deep=True)  # the scheduler's assumed copy: the same terms
    assert cache.terms(copy) is first
    assert cache.terms(pod) is first
    # labels a term reads through matchLabelKeys: parsed again, with the new value
    keyed = make_pod(
        labels={"app": "a"},
        aff=affinity(required=[term("k", "Exists", [], "zone", matchLabelKeys=["app"])]),
    )
    before = cache.terms(keyed)
    relabelled = keyed.model_copy(deep=True)
    relabelled.metadata.labels["app"] = "b"
    after = cache.terms(relabelled)
    assert after is not before and after != before
    assert after == parse_pod_terms(relabelled)
    # other terms: parsed again
    reworded = keyed.model_copy(deep=True)
    assert reworded.spec.affinity is not None and reworded.spec.affinity.pod_affinity is not None
    reworded.spec.affinity.pod_affinity.required_during_scheduling_ignored_during_execution[
        0
    ].topology_key = "host"
    assert cache.terms(reworded) == parse_pod_terms(reworded) != after
    assert cache.terms(make_pod()) is cache.terms(make_pod())  # no affinity: not cached
    for _ in range(3):
        cache.terms(make_pod(aff=affinity(anti=[term("k", "Exists", [], "zone")])))
    assert len(cache) <= 2
