"""Reading configuration files: YAML and JSON, defaults, strict decoding, error paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from config_fakes import doc, profile

from kubesched._errors import ConfigError
from kubesched.config import (
    KubeSchedulerConfiguration,
    LeaderElection,
    load_config,
    parse_config,
    parse_duration,
)

EXAMPLE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 0
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 10
profiles:
  - schedulerName: default-scheduler
    plugins:
      score:
        enabled:
          - name: ImageLocality
            weight: 5
      filter:
        disabled:
          - name: NodePorts
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
  - schedulerName: no-scoring-scheduler
    plugins:
      preScore: {disabled: [{name: '*'}]}
      score:    {disabled: [{name: '*'}]}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def load_error(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.file == str(path)
    assert str(info.value).startswith(f"{path}: ")
    return info.value


def test_no_file_gives_upstream_defaults() -> None:
    config = load_config(None)
    assert config.parallelism == 16
    assert config.percentage_of_nodes_to_score == 0
    assert (config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds) == (1, 10)
    assert [p.scheduler_name for p in config.profiles] == ["default-scheduler"]
    assert config.profiles[0].plugins.multi_point.enabled == []
    assert config.leader_election == LeaderElection(
        leader_elect=True,
        lease_duration="15s",
        renew_deadline="10s",
        retry_period="2s",
        resource_lock="leases",
        resource_name="kube-scheduler",
        resource_namespace="kube-system",
    )
    assert config.client_connection.qps == 50
    assert config.client_connection.burst == 100
    assert config.enable_profiling and config.enable_contention_profiling
    assert config.extenders == []


def test_yaml_example_loads(tmp_path: Path) -> None:
    path = write(tmp_path, "sched.yaml", EXAMPLE)
    config = load_config(path)
    assert config.source == str(path)
    first, second = config.profiles
    assert first.scheduler_name == "default-scheduler"
    assert first.plugins.score.enabled[0].name == "ImageLocality"
    assert first.plugins.score.enabled[0].weight == 5
    assert first.plugins.filter.disabled[0].name == "NodePorts"
    assert first.plugin_config[0].args == {
        "scoringStrategy": {
            "type": "MostAllocated",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
        }
    }
    assert second.plugins.score.disabled[0].name == "*"


def test_json_file_loads(tmp_path: Path) -> None:
    document = doc(parallelism=4, profiles=[profile("json-scheduler")])
    path = write(tmp_path, "sched.json", json.dumps(document))
    config = load_config(path)
    assert config.parallelism == 4
    assert config.profiles[0].scheduler_name == "json-scheduler"


def test_null_means_default(tmp_path: Path) -> None:
    text = EXAMPLE.replace("percentageOfNodesToScore: 0", "percentageOfNodesToScore: null")
    text += "parallelism:\nleaderElection: null\n"
    config = load_config(write(tmp_path, "sched.yaml", text))
    assert config.percentage_of_nodes_to_score == 0
    assert config.parallelism == 16
    assert config.leader_election.resource_lock == "leases"


def test_a_single_unnamed_profile_gets_the_default_name() -> None:
    config = parse_config(doc(profiles=[{"percentageOfNodesToScore": 10}]))
    assert config.profiles[0].scheduler_name == "default-scheduler"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("profiles: [\n  - a\n", ["malformed YAML", "line"], id="unclosed-flow"),
        pytest.param("a: b: c\n", ["malformed YAML: line 1, column 5"], id="mapping-in-scalar"),
        pytest.param("", ["got an empty document"], id="empty"),
        pytest.param(
            "- 1\n- 2\n", ["expected a KubeSchedulerConfiguration mapping", "got list"], id="list"
        ),
        pytest.param(
            "apiVersion: a\nkind: b\napiVersion: c\n",
            ['duplicate field "apiVersion" (line 3)'],
            id="duplicate-key",
        ),
    ],
)
def test_malformed_yaml(tmp_path: Path, text: str, expected: list[str]) -> None:
    error = load_error(write(tmp_path, "bad.yaml", text))
    for part in expected:
        assert part in str(error)


def test_yaml_merge_keys_are_not_duplicates(tmp_path: Path) -> None:
    text = (
        "base: &base {parallelism: 2}\n"
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    )
    # a merge key may repeat a key it merges; the unknown `base` field is the only problem
    error = load_error(write(tmp_path, "merge.yaml", text))
    assert error.path == "base"


def test_malformed_and_duplicate_json(tmp_path: Path) -> None:
    error = load_error(write(tmp_path, "bad.json", '{"apiVersion": '))
    assert "malformed JSON: line 1, column 16" in str(error)
    error = load_error(write(tmp_path, "dup.json", '{"kind": "a", "kind": "b"}'))
    assert 'duplicate field "kind"' in str(error)


def test_missing_file(tmp_path: Path) -> None:
    error = load_error(tmp_path / "absent.yaml")
    assert "cannot read the configuration" in str(error)


@pytest.mark.parametrize(
    ("document", "path", "expected"),
    [
        pytest.param(
            {"kind": "KubeSchedulerConfiguration"},
            "apiVersion",
            'Required value: expected "kubescheduler.config.k8s.io/v1"',
            id="no-api-version",
        ),
        pytest.param(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1beta3",
                "kind": "KubeSchedulerConfiguration",
            },
            "apiVersion",
            'Unsupported value: "kubescheduler.config.k8s.io/v1beta3": supported values: '
            '"kubescheduler.config.k8s.io/v1"',
            id="old-api-version",
        ),
        pytest.param(
            {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "Policy"},
            "kind",
            'Unsupported value: "Policy": supported values: "KubeSchedulerConfiguration"',
            id="wrong-kind",
        ),
        pytest.param(
            doc(extraThing=1),
            "extraThing",
            "unknown field; expected one of: apiVersion, kind, parallelism",
            id="unknown-top-level-field",
        ),
        pytest.param(
            doc(pod_max_backoff_seconds=3),
            "pod_max_backoff_seconds",
            "unknown field",
            id="snake-case-is-unknown",
        ),
        pytest.param(
            doc(profiles=[profile(plugins={"scoring": {}})]),
            "profiles[0].plugins.scoring",
            "unknown field; expected one of: multiPoint, preEnqueue, queueSort",
            id="unknown-point",
        ),
        pytest.param(
            doc(parallelism="16"),
            "parallelism",
            'Invalid value: "16": Input should be a valid integer',
            id="string-for-int",
        ),
        pytest.param(
            doc(parallelism=2**31),
            "parallelism",
            "Invalid value: 2147483648: Input should be less than or equal to 2147483647",
            id="int32-overflow",
        ),
        pytest.param(
            doc(enableProfiling="maybe"),
            "enableProfiling",
            'Invalid value: "maybe": Input should be a valid boolean',
            id="string-for-bool",
        ),
        pytest.param(
            doc(profiles={"a": 1}),
            "profiles",
            "Input should be a valid list",
            id="mapping-for-list",
        ),
        pytest.param(
            doc(
                profiles=[
                    profile(plugins={"score": {"enabled": [{"name": "A", "weight": "high"}]}})
                ]
            ),
            "profiles[0].plugins.score.enabled[0].weight",
            'Invalid value: "high": Input should be a valid integer',
            id="string-weight",
        ),
        pytest.param(
            doc(profiles=[profile(plugins={"filter": {"disabled": [{"weight": 1}]}})]),
            "profiles[0].plugins.filter.disabled[0].name",
            "Required value",
            id="plugin-without-name",
        ),
        pytest.param(
            doc(profiles=[profile(pluginConfig=[{"name": "A", "args": [1]}])]),
            "profiles[0].pluginConfig[0].args",
            "Input should be a valid dictionary",
            id="args-not-a-mapping",
        ),
        pytest.param(
            doc(leaderElection={"leaseDuration": "15 seconds"}),
            "leaderElection.leaseDuration",
            'invalid duration "15 seconds": expected a Go duration',
            id="bad-duration",
        ),
    ],
)
def test_decoding_errors(document: dict[str, Any], path: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(document, source="in.yaml")
    error = info.value
    assert (error.file, error.path) == ("in.yaml", path)
    assert str(error).startswith(f"in.yaml: {path}: ")
    assert expected in str(error)


def test_all_decoding_errors_are_listed(tmp_path: Path) -> None:
    text = (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "parallelism: many\nprofiles:\n- schedulerName: 7\n  bogus: 1\n"
    )
    path = write(tmp_path, "multi.yaml", text)
    lines = str(load_error(path)).splitlines()
    assert lines == [
        f'{path}: parallelism: Invalid value: "many": Input should be a valid integer',
        f"{path}: profiles[0].schedulerName: Invalid value: 7: Input should be a valid string",
        f"{path}: profiles[0].bogus: unknown field; expected one of: schedulerName, "
        "percentageOfNodesToScore, plugins, pluginConfig",
    ]


def test_python_code_may_use_field_names() -> None:
    config = KubeSchedulerConfiguration(parallelism=3, pod_max_backoff_seconds=20)
    assert config.parallelism == 3
    assert config.pod_max_backoff_seconds == 20
    assert config.profiles[0].scheduler_name == "default-scheduler"
    assert config.source is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("15s", 15.0),
        ("1m30s", 90.0),
        ("100ms", 0.1),
        ("1h", 3600.0),
        ("0", 0.0),
        ("-2s", -2.0),
        ("1.5s", 1.5),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "15", "s", "1d", "1s2", "one second"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="expected a Go duration"):
        parse_duration(text)
