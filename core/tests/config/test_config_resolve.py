"""Resolving profiles against installed plugins: defaults, MultiPoint expansion (section 3.4
worked examples), weights, left-out defaults, plugin args."""

from __future__ import annotations

from typing import Any

import pytest
from config_fakes import DEFAULT_FAKES, FitArgs, catalog, doc, profile

from kubesched.config import (
    DEFAULT_PLUGINS,
    PluginCatalog,
    ResolvedConfig,
    ResolvedProfile,
    effective_config_dict,
    load_config,
    parse_config,
    resolve,
)

PREFILTER = [
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
    "DynamicResources",
]
FILTER = ["NodeUnschedulable", "NodeName", "TaintToleration", *PREFILTER]
SCORE = [
    "TaintToleration",
    "NodeAffinity",
    "NodeResourcesFit",
    "PodTopologySpread",
    "InterPodAffinity",
    "NodeResourcesBalancedAllocation",
    "ImageLocality",
]
DEFAULT_POINTS = {
    "QueueSort": ["PrioritySort"],
    "PreEnqueue": ["SchedulingGates", "DynamicResources"],
    "PreFilter": PREFILTER,
    "Filter": FILTER,
    "PostFilter": ["DynamicResources", "DefaultPreemption"],
    "PreScore": SCORE[:-1],
    "Score": SCORE,
    "Reserve": ["VolumeBinding", "DynamicResources"],
    "Permit": [],
    "PreBind": ["VolumeBinding", "DynamicResources"],
    "Bind": ["DefaultBinder"],
    "PostBind": [],
}
DEFAULT_WEIGHTS = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "PodTopologySpread": 2,
    "InterPodAffinity": 2,
    "NodeResourcesBalancedAllocation": 1,
    "ImageLocality": 1,
}


def resolve_profiles(
    *profiles: dict[str, Any], cat: PluginCatalog | None = None, **top: Any
) -> list[ResolvedProfile]:
    config = parse_config(doc(profiles=list(profiles), **top), source="sched.yaml")
    return resolve(config, cat or catalog()).profiles


def test_filter_order_matches_upstream_default_expansion() -> None:
    assert FILTER == [
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
    ]


def test_no_config_gives_default_profile_with_every_default_plugin() -> None:
    resolved = resolve(load_config(None), catalog())
    assert resolved.source == "<defaults>"
    (only,) = resolved.profiles
    assert only.scheduler_name == "default-scheduler"
    assert only.percentage_of_nodes_to_score is None
    assert dict(only.points) == DEFAULT_POINTS
    assert dict(only.weights) == DEFAULT_WEIGHTS
    assert only.left_out == []
    assert set(only.args) == {p.name for p in DEFAULT_PLUGINS}
    assert isinstance(only.args["NodeResourcesFit"], FitArgs)
    assert only.args["NodeResourcesFit"].scoring_strategy.type == "LeastAllocated"


def test_default_plugins_not_installed_are_left_out_with_their_provider() -> None:
    installed = ["PrioritySort", "DefaultBinder", "NodeResourcesFit"]
    (only,) = resolve(load_config(None), catalog(installed)).profiles
    assert only.points["QueueSort"] == ["PrioritySort"]
    assert only.points["Filter"] == ["NodeResourcesFit"]
    assert only.points["Score"] == ["NodeResourcesFit"]
    assert only.points["Bind"] == ["DefaultBinder"]
    expected = [(p.name, p.distribution) for p in DEFAULT_PLUGINS if p.name not in installed]
    assert only.left_out == expected
    assert ("VolumeBinding", "kubesched-volumebinding") in only.left_out
    assert ("ImageLocality", "kubesched-builtin") in only.left_out
    assert set(only.args) == set(installed)


@pytest.mark.parametrize(
    ("plugins", "point", "expected", "weights"),
    [
        pytest.param(
            {"score": {"enabled": [{"name": "ImageLocality", "weight": 5}]}},
            "Score",
            ["ImageLocality", *SCORE[:-1]],
            {**DEFAULT_WEIGHTS, "ImageLocality": 5},
            id="explicit-default-moves-first-with-new-weight",
        ),
        pytest.param(
            {"score": {"enabled": [{"name": "MyPlugin", "weight": 2}]}},
            "Score",
            [*SCORE, "MyPlugin"],
            {**DEFAULT_WEIGHTS, "MyPlugin": 2},
            id="new-plugin-goes-last",
        ),
        pytest.param(
            {
                "score": {
                    "disabled": [{"name": "*"}],
                    "enabled": [{"name": "NodeResourcesFit", "weight": 1}],
                }
            },
            "Score",
            ["NodeResourcesFit"],
            {"NodeResourcesFit": 1},
            id="score-star-disabled",
        ),
        pytest.param(
            {"score": {"disabled": [{"name": "*"}]}},
            "PreScore",
            SCORE[:-1],
            {},
            id="score-star-leaves-prescore",
        ),
        pytest.param(
            {"filter": {"disabled": [{"name": "NodePorts"}]}},
            "PreFilter",
            PREFILTER,
            DEFAULT_WEIGHTS,
            id="filter-disabled-keeps-prefilter",
        ),
        pytest.param(
            {"filter": {"enabled": [{"name": "VolumeZone"}, {"name": "FilterOnly"}]}},
            "Filter",
            ["VolumeZone", *(n for n in FILTER if n != "VolumeZone"), "FilterOnly"],
            DEFAULT_WEIGHTS,
            id="override-first-multipoint-then-point-only",
        ),
        pytest.param(
            {"score": {"enabled": [{"name": "TaintToleration", "weight": 0}]}},
            "Score",
            SCORE,
            {**DEFAULT_WEIGHTS, "TaintToleration": 1},
            id="weight-zero-becomes-one",
        ),
        pytest.param(
            {"multiPoint": {"enabled": [{"name": "ImageLocality", "weight": 4}]}},
            "Score",
            SCORE,
            {**DEFAULT_WEIGHTS, "ImageLocality": 4},
            id="multipoint-weight-replaces-default-in-place",
        ),
        pytest.param(
            {
                "multiPoint": {"enabled": [{"name": "ImageLocality", "weight": 4}]},
                "score": {"enabled": [{"name": "ImageLocality", "weight": 9}]},
            },
            "Score",
            ["ImageLocality", *SCORE[:-1]],
            {**DEFAULT_WEIGHTS, "ImageLocality": 9},
            id="score-weight-beats-multipoint-weight",
        ),
        pytest.param(
            {"multiPoint": {"enabled": [{"name": "MyPlugin", "weight": 3}]}},
            "Score",
            [*SCORE, "MyPlugin"],
            {**DEFAULT_WEIGHTS, "MyPlugin": 3},
            id="multipoint-plugin-after-defaults",
        ),
    ],
)
def test_expansion(
    plugins: dict[str, Any], point: str, expected: list[str], weights: dict[str, int]
) -> None:
    (only,) = resolve_profiles(profile(plugins=plugins))
    assert only.points[point] == expected
    assert dict(only.weights) == weights


def test_multipoint_disabled_removes_plugin_everywhere() -> None:
    (only,) = resolve_profiles(
        profile(plugins={"multiPoint": {"disabled": [{"name": "NodeResourcesFit"}]}})
    )
    for point, names in only.points.items():
        assert "NodeResourcesFit" not in names, point
    assert "NodeResourcesFit" not in only.args
    assert "NodeResourcesFit" not in only.weights
    assert only.points["Filter"] == [n for n in FILTER if n != "NodeResourcesFit"]


def test_multipoint_plugin_lands_at_every_point_it_implements() -> None:
    (only,) = resolve_profiles(
        profile(
            plugins={
                "multiPoint": {
                    "enabled": [{"name": "Gang"}],
                    "disabled": [{"name": "PrioritySort"}],
                }
            }
        )
    )
    assert only.points["QueueSort"] == ["Gang"]
    assert only.points["PreFilter"] == [*PREFILTER, "Gang"]
    assert only.points["PostFilter"] == ["DynamicResources", "DefaultPreemption", "Gang"]
    assert only.points["Reserve"] == ["VolumeBinding", "DynamicResources", "Gang"]
    assert only.points["Permit"] == ["Gang"]
    assert "Gang" not in only.points["Filter"]


def test_multiple_profiles_resolve_independently() -> None:
    first, second = resolve_profiles(
        profile("default-scheduler", percentageOfNodesToScore=30),
        profile(
            "no-scoring-scheduler",
            plugins={
                "preScore": {"disabled": [{"name": "*"}]},
                "score": {"disabled": [{"name": "*"}]},
            },
        ),
    )
    assert (first.scheduler_name, second.scheduler_name) == (
        "default-scheduler",
        "no-scoring-scheduler",
    )
    assert first.percentage_of_nodes_to_score == 30
    assert second.percentage_of_nodes_to_score is None
    assert first.points["Score"] == SCORE
    assert second.points["Score"] == []
    assert second.points["PreScore"] == []
    assert second.points["Filter"] == FILTER
    assert second.weights == {}


def test_plugin_args_from_plugin_config_and_kind_accepted() -> None:
    args = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "NodeResourcesFitArgs",
        "scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 2}]},
    }
    (only,) = resolve_profiles(profile(pluginConfig=[{"name": "NodeResourcesFit", "args": args}]))
    fit = only.args["NodeResourcesFit"]
    assert isinstance(fit, FitArgs)
    assert fit.scoring_strategy.type == "MostAllocated"
    assert [(r.name, r.weight) for r in fit.scoring_strategy.resources] == [("cpu", 2)]


def test_resolve_names_the_loaded_file(tmp_path: Any) -> None:
    path = tmp_path / "sched.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    )
    assert resolve(load_config(path), catalog()).source == str(path)
    assert resolve(load_config(path), catalog(), source="other").source == "other"


@pytest.mark.parametrize(
    "document",
    [
        pytest.param(doc(), id="defaults"),
        pytest.param(
            doc(
                percentageOfNodesToScore=20,
                profiles=[
                    profile(
                        plugins={
                            "score": {"enabled": [{"name": "ImageLocality", "weight": 5}]},
                            "multiPoint": {
                                "enabled": [{"name": "Gang"}],
                                "disabled": [{"name": "PrioritySort"}],
                            },
                        },
                        pluginConfig=[
                            {
                                "name": "NodeResourcesFit",
                                "args": {"scoringStrategy": {"type": "MostAllocated"}},
                            }
                        ],
                    ),
                    profile(
                        "second",
                        percentageOfNodesToScore=50,
                        plugins={
                            "multiPoint": {
                                "enabled": [{"name": "Gang"}],
                                "disabled": [{"name": "PrioritySort"}],
                            },
                            "filter": {"disabled": [{"name": "NodePorts"}]},
                        },
                    ),
                ],
            ),
            id="customised",
        ),
    ],
)
def test_effective_config_loads_back_to_the_same_profiles(document: dict[str, Any]) -> None:
    resolved = resolve(parse_config(document, "a.yaml"), catalog())
    effective = effective_config_dict(resolved)
    assert effective["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert effective["kind"] == "KubeSchedulerConfiguration"
    again: ResolvedConfig = resolve(parse_config(effective, "effective.yaml"), catalog())
    assert again.config.percentage_of_nodes_to_score == resolved.config.percentage_of_nodes_to_score
    for before, after in zip(resolved.profiles, again.profiles, strict=True):
        assert before.scheduler_name == after.scheduler_name
        assert before.percentage_of_nodes_to_score == after.percentage_of_nodes_to_score
        assert dict(before.points) == dict(after.points)
        assert dict(before.weights) == dict(after.weights)
        assert dict(before.args) == dict(after.args)


def test_effective_config_shows_expanded_points_weights_and_args() -> None:
    effective = effective_config_dict(resolve(load_config(None), catalog(DEFAULT_FAKES)))
    (only,) = effective["profiles"]
    assert only["plugins"]["multiPoint"] == {"disabled": [{"name": "*"}]}
    assert only["plugins"]["queueSort"] == {"enabled": [{"name": "PrioritySort"}]}
    assert only["plugins"]["score"]["enabled"][0] == {"name": "TaintToleration", "weight": 3}
    assert "permit" not in only["plugins"]
    fit = next(c for c in only["pluginConfig"] if c["name"] == "NodeResourcesFit")
    assert fit["args"]["scoringStrategy"]["type"] == "LeastAllocated"
    assert all(c["name"] != "NodePorts" for c in only["pluginConfig"])
