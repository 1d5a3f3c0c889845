"""`kubesched config defaults`: the effective configuration, printed as a document that
kubesched accepts back and that runs the installed default plugins in upstream order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.cli._main import main
from kubesched.config import DEFAULT_PLUGINS, load_config, resolve
from kubesched.framework import EXTENSION_POINTS, extension_points_of
from kubesched.runtime import PluginRegistry

DATA = Path(__file__).parent / "data"

# Extension point name (as in kubesched.framework.EXTENSION_POINTS) -> the v1 field name.
FIELD = {
    "QueueSort": "queueSort",
    "PreEnqueue": "preEnqueue",
    "PreFilter": "preFilter",
    "Filter": "filter",
    "PostFilter": "postFilter",
    "PreScore": "preScore",
    "Score": "score",
    "Reserve": "reserve",
    "Permit": "permit",
    "PreBind": "preBind",
    "Bind": "bind",
    "PostBind": "postBind",
}


def _defaults(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, str]:
    code = main(["config", "defaults", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out, captured.err


def _expected_points() -> dict[str, list[str]]:
    """The installed default plugins per extension point, in upstream's multiPoint order.

    upstream: pkg/scheduler/apis/config/v1/default_plugins.go and
    pkg/scheduler/framework/runtime/framework.go (expandMultiPointPlugins).
    """
    installed = PluginRegistry.discover().plugins
    points: dict[str, list[str]] = {}
    for default in DEFAULT_PLUGINS:
        plugin = installed.get(default.name)
        if plugin is None:
            continue
        for point in extension_points_of(plugin):
            points.setdefault(point, []).append(default.name)
    return points


def _names(plugin_set: dict[str, Any]) -> list[str]:
    return [entry["name"] for entry in plugin_set["enabled"]]


def test_yaml_defaults_load_back(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out, _ = _defaults(capsys)
    path = tmp_path / "effective.yaml"
    path.write_text(out, encoding="utf-8")

    config = load_config(path)
    reloaded = resolve(config, PluginRegistry.discover(), str(path))
    original = resolve(load_config(None), PluginRegistry.discover())

    assert [p.scheduler_name for p in reloaded.profiles] == ["default-scheduler"]
    assert reloaded.profiles[0].points == original.profiles[0].points
    assert reloaded.profiles[0].weights == original.profiles[0].weights
    assert reloaded.profiles[0].args == original.profiles[0].args


def test_default_profile_runs_installed_defaults_in_upstream_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, _ = _defaults(capsys)
    data = yaml.safe_load(out)

    assert data["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert data["kind"] == "KubeSchedulerConfiguration"
    (profile,) = data["profiles"]
    assert profile["schedulerName"] == "default-scheduler"
    plugins = profile["plugins"]
    # defaults are spelled out per point, so multiPoint must not add them a second time
    assert plugins["multiPoint"] == {"disabled": [{"name": "*"}]}
    expected = _expected_points()
    assert set(FIELD) == set(EXTENSION_POINTS)
    shown = {point: _names(plugins[FIELD[point]]) for point in FIELD if FIELD[point] in plugins}
    assert shown == expected
    # the builtin plugins every installation has, in upstream's relative order
    assert shown["QueueSort"] == ["PrioritySort"]
    assert shown["PreEnqueue"][0] == "SchedulingGates"
    filters = [
        n for n in shown["Filter"] if n in {"NodeUnschedulable", "NodeName", "NodeResourcesFit"}
    ]
    assert filters == ["NodeUnschedulable", "NodeName", "NodeResourcesFit"]
    assert shown["Bind"] == ["DefaultBinder"]


def test_default_score_weights_are_upstreams(capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _defaults(capsys)
    (profile,) = yaml.safe_load(out)["profiles"]
    weights = {e["name"]: e["weight"] for e in profile["plugins"]["score"]["enabled"]}

    upstream = {p.name: p.weight for p in DEFAULT_PLUGINS}
    # a Score plugin without a default weight (VolumeBinding) gets 1, as getScoreWeights does
    assert weights == {name: upstream[name] or 1 for name in weights}
    assert weights["NodeResourcesFit"] == 1


def test_default_args_are_filled_in(capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _defaults(capsys)
    (profile,) = yaml.safe_load(out)["profiles"]
    args = {entry["name"]: entry["args"] for entry in profile["pluginConfig"]}

    # upstream: pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_NodeResourcesFitArgs)
    strategy = args["NodeResourcesFit"]["scoringStrategy"]
    assert strategy["type"] == "LeastAllocated"
    assert strategy["resources"] == [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def test_left_out_defaults_are_named_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    _, err = _defaults(capsys)
    installed = PluginRegistry.discover().plugins

    for default in DEFAULT_PLUGINS:
        mentioned = f"default plugin {default.name} left out" in err
        assert mentioned == (default.name not in installed), default.name


def test_json_output_is_the_same_document(capsys: pytest.CaptureFixture[str]) -> None:
    as_yaml, _ = _defaults(capsys)
    as_json, _ = _defaults(capsys, "-o", "json")

    assert json.loads(as_json) == yaml.safe_load(as_yaml)


def test_effective_form_of_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = _defaults(capsys, "--config", str(DATA / "config-two-profiles.yaml"), "-o", "json")
    profiles = json.loads(out)["profiles"]

    assert [p["schedulerName"] for p in profiles] == ["default-scheduler", "bin-packer"]
    fit = {
        p["schedulerName"]: next(c for c in p["pluginConfig"] if c["name"] == "NodeResourcesFit")
        for p in profiles
    }
    assert fit["default-scheduler"]["args"]["scoringStrategy"]["type"] == "LeastAllocated"
    assert fit["bin-packer"]["args"]["scoringStrategy"]["type"] == "MostAllocated"


def test_bad_config_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["config", "defaults", "--config", str(DATA / "config-unknown-field.yaml")])
    captured = capsys.readouterr()

    assert code == 2
    assert captured.out == ""
    assert "config-unknown-field.yaml" in captured.err
    assert "nodeSelectionMode" in captured.err
