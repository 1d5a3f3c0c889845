"""Errors found when a configuration is resolved against the installed plugins (upstream's
framework-build errors, section 3.4, plus kubesched's plugin-args checks). Each must name the
file, the field path and what was expected."""

from __future__ import annotations

from typing import Any

import pytest
from config_fakes import catalog, doc, profile

from kubesched._errors import ConfigError
from kubesched.config import PluginCatalog, parse_config, resolve

FILE = "cluster/sched.yaml"


def resolve_error(document: dict[str, Any], cat: PluginCatalog | None = None) -> ConfigError:
    config = parse_config(document, source=FILE)
    with pytest.raises(ConfigError) as info:
        resolve(config, cat or catalog())
    error = info.value
    assert error.file == FILE
    return error


def enable(point: str, *names: str, disabled: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        point: {
            "enabled": [{"name": n} for n in names],
            "disabled": [{"name": n} for n in disabled],
        }
    }


ONLY_FIT = ["PrioritySort", "DefaultBinder", "NodeResourcesFit"]

CASES = [
    pytest.param(
        doc(profiles=[profile(plugins=enable("score", "Coscheduling"))]),
        catalog(ONLY_FIT),  # the registry knows which distribution provides Coscheduling
        "profiles[0].plugins.score.enabled[0]",
        [
            'ScorePlugin "Coscheduling" does not exist',
            'plugin "Coscheduling" is not installed: it is provided by kubesched-coscheduling'
            " (pip install kubesched-coscheduling; from a kubesched checkout: pip install"
            " ./plugins-coscheduling)",
            "installed plugins: DefaultBinder, NodeResourcesFit, PrioritySort",
        ],
        id="unknown-plugin-with-known-provider",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=enable("score", "ImageLocality"))]),
        catalog(ONLY_FIT),
        "profiles[0].plugins.score.enabled[0]",
        ["pip install kubesched-builtin"],
        id="explicit-default-plugin-not-installed",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=enable("multiPoint", "Nope"))]),
        None,
        "profiles[0].plugins.multiPoint.enabled[0]",
        [
            'PreFilterPlugin "Nope" does not exist: plugin "Nope" is not installed;'
            " installed plugins:"
        ],
        id="unknown-multipoint-plugin-named-as-prefilter",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=enable("filter", "MyPlugin"))]),
        None,
        "profiles[0].plugins.filter.enabled[0]",
        ['plugin "MyPlugin" does not extend FilterPlugin plugin'],
        id="wrong-point",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=enable("filter", "Broken"))]),
        catalog(broken={"Broken": "ImportError: No module named 'numpy'"}),
        "profiles[0].plugins.filter.enabled[0]",
        ["plugin \"Broken\" is installed but failed to load: ImportError: No module named 'numpy'"],
        id="broken-plugin-named",
    ),
    pytest.param(
        doc(),
        catalog(ONLY_FIT, broken={"NodePorts": "SyntaxError: bad"}),
        "profiles[0].plugins.multiPoint",
        ['plugin "NodePorts" (a default plugin) is installed but failed to load: SyntaxError: bad'],
        id="broken-default-plugin",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=enable("filter", "FilterOnly", "FilterOnly"))]),
        None,
        "profiles[0].plugins.filter.enabled[1]",
        ['plugin "FilterOnly" already registered as "FilterPlugin"'],
        id="duplicate-at-point",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=enable("multiPoint", "MyPlugin", "MyPlugin"))]),
        None,
        "profiles[0].plugins.multiPoint.enabled[1]",
        ['plugin "MyPlugin" already registered as "ScorePlugin"'],
        id="duplicate-in-multipoint",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=enable("queueSort", "OtherSort"))]),
        None,
        "profiles[0].plugins.queueSort",
        [
            "only one queue sort plugin required for profile with scheduler name"
            ' "default-scheduler", but got 2'
        ],
        id="two-queue-sorts-after-expansion",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=enable("multiPoint", disabled=("PrioritySort",)))]),
        None,
        "profiles[0].plugins.queueSort",
        ["only one queue sort plugin required", "but got 0"],
        id="no-queue-sort",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=enable("bind", disabled=("*",)))]),
        None,
        "profiles[0].plugins.bind",
        ['at least one bind plugin is needed for profile with scheduler name "default-scheduler"'],
        id="no-bind",
    ),
    pytest.param(
        doc(),
        catalog(["PrioritySort", "NodeResourcesFit"]),
        "profiles[0].plugins.bind",
        [
            "at least one bind plugin is needed",
            "default plugins not installed:",
            "DefaultBinder",
            "(pip install kubesched-builtin kubesched-dra kubesched-volumebinding; from a"
            " kubesched checkout: pip install ./plugins-builtin ./plugins-dra"
            " ./plugins-volumebinding)",
        ],
        id="no-bind-because-not-installed",
    ),
    pytest.param(
        doc(
            profiles=[
                profile("a"),
                profile(
                    "b",
                    plugins={
                        "multiPoint": {
                            "enabled": [{"name": "OtherSort"}],
                            "disabled": [{"name": "PrioritySort"}],
                        }
                    },
                ),
            ]
        ),
        None,
        "profiles[1].plugins.queueSort",
        ['Invalid value: ["OtherSort"]: must be the same for all profiles', '["PrioritySort"]'],
        id="queue-sort-differs-after-expansion",
    ),
    pytest.param(
        doc(
            profiles=[
                profile("a"),
                profile("b", pluginConfig=[{"name": "PrioritySort", "args": {"reverse": True}}]),
            ]
        ),
        None,
        "profiles[1].pluginConfig",
        ['Invalid value: "PrioritySort": queueSort must be the same for all profiles'],
        id="queue-sort-args-differ",
    ),
    pytest.param(
        doc(
            profiles=[
                profile(
                    pluginConfig=[
                        {
                            "name": "NodeResourcesFit",
                            "args": {"scoringStrategy": {"type": "Fancy"}},
                        }
                    ]
                )
            ]
        ),
        None,
        "profiles[0].pluginConfig[0].args.scoringStrategy.type",
        ['Invalid value: "Fancy": Input should be', "'LeastAllocated'"],
        id="args-bad-value",
    ),
    pytest.param(
        doc(profiles=[profile(pluginConfig=[{"name": "DefaultPreemption", "args": {"foo": 1}}])]),
        None,
        "profiles[0].pluginConfig[0].args.foo",
        ["unknown field; expected one of: minCandidateNodesPercentage, minCandidateNodesAbsolute"],
        id="args-unknown-field",
    ),
    pytest.param(
        doc(
            profiles=[
                profile(pluginConfig=[{"name": "NodeResourcesFit", "args": {"kind": "FooArgs"}}])
            ]
        ),
        None,
        "profiles[0].pluginConfig[0].args.kind",
        ['Invalid value: "FooArgs": has to match plugin args "NodeResourcesFitArgs"'],
        id="args-wrong-kind",
    ),
    pytest.param(
        doc(profiles=[profile(pluginConfig=[{"name": "MyPlugin", "args": {}}])]),
        None,
        "profiles[0].pluginConfig[0]",
        ['Invalid value: "MyPlugin": args for a plugin not enabled in profile "default-scheduler"'],
        id="args-for-plugin-not-enabled",
    ),
    pytest.param(
        doc(profiles=[profile(pluginConfig=[{"name": "Ghost", "args": {}}])]),
        None,
        "profiles[0].pluginConfig[0]",
        ["args for a plugin not enabled", 'plugin "Ghost" is not installed'],
        id="args-for-plugin-not-installed",
    ),
    pytest.param(
        doc(
            profiles=[
                profile(
                    plugins={"multiPoint": {"disabled": [{"name": "NodeResourcesFit"}]}},
                    pluginConfig=[{"name": "NodeResourcesFit", "args": {}}],
                )
            ]
        ),
        None,
        "profiles[0].pluginConfig[0]",
        ["args for a plugin not enabled"],
        id="args-for-disabled-default",
    ),
    pytest.param(
        doc(profiles=[profile(pluginConfig=[{"name": "VolumeBinding", "args": {}}])]),
        catalog(["PrioritySort", "DefaultBinder"]),
        "profiles[0].pluginConfig[0]",
        [
            '(plugin "VolumeBinding" is not installed; pip install kubesched-volumebinding;'
            " from a kubesched checkout: pip install ./plugins-volumebinding)"
        ],
        id="args-for-default-not-installed",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=enable("preFilter", "Remote"))]),
        None,
        "profiles[0].pluginConfig.endpoint",
        ['plugin "Remote" has no pluginConfig entry and needs one: Required value'],
        id="args-required-without-entry",
    ),
]


@pytest.mark.parametrize(("document", "cat", "path", "expected"), CASES)
def test_resolve_error(
    document: dict[str, Any], cat: PluginCatalog | None, path: str, expected: list[str]
) -> None:
    error = resolve_error(document, cat)
    assert error.path == path
    message = str(error)
    assert message.startswith(f"{FILE}: {path}: ")
    for text in expected:
        assert text in message


def test_every_problem_is_listed_once_per_line() -> None:
    document = doc(
        profiles=[
            profile("a", plugins=enable("score", "Nope1")),
            profile("b", plugins=enable("filter", "Nope2"), pluginConfig=[{"name": "X"}]),
        ]
    )
    lines = str(resolve_error(document)).splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"{FILE}: profiles[0].plugins.score.enabled[0]: ")
    assert lines[1].startswith(f"{FILE}: profiles[1].plugins.filter.enabled[0]: ")
    assert lines[2].startswith(f"{FILE}: profiles[1].pluginConfig[0]: ")


def test_resolve_runs_config_validation_for_configs_built_in_code() -> None:
    config = parse_config(doc(), source=FILE)
    config.parallelism = 0
    error = resolve_error_from(config)
    assert error.path == "parallelism"
    assert "should be an integer value greater than zero" in str(error)


def resolve_error_from(config: Any) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        resolve(config, catalog())
    assert info.value.file == FILE
    return info.value
