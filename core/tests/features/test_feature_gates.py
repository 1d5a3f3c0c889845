"""The feature-gate table (v1.34 defaults) and upstream's `--feature-gates` parsing.

Messages are component-base/featuregate/feature_gate.go's (Set, unsafeSetFromMap), each
prefixed with where the text came from.
"""

from __future__ import annotations

import logging

import pytest

import kubesched.features
from kubesched._errors import KubeschedError
from kubesched.features import (
    ENV_VAR,
    FEATURE_GATES,
    FeatureGateError,
    feature_enabled,
    feature_gates,
    parse_feature_gates,
    set_feature_gates,
)

FEATURES_API = {
    "ENV_VAR", "FAST_PATH_ENV", "FEATURE_GATES", "FLAG", "FeatureGate", "FeatureGateError",
    "Stage", "fast_path_enabled", "feature_enabled", "feature_gates", "parse_feature_gates",
    "set_feature_gates",
}  # fmt: skip


def test_public_names_are_pinned() -> None:
    assert set(kubesched.features.__all__) == FEATURES_API


@pytest.mark.parametrize(
    ("name", "default", "stage", "locked"),
    [
        # pkg/features/kube_features.go, the spec in force at 1.34
        ("SchedulerQueueingHints", True, "GA", True),
        ("SchedulerPopFromBackoffQ", True, "BETA", False),
        ("SchedulerAsyncPreemption", True, "BETA", False),
        ("SchedulerAsyncAPICalls", False, "BETA", False),  # off from v1.34.2 (#134401)
        ("NominatedNodeNameForExpectation", False, "ALPHA", False),
        ("ClearingNominatedNodeNameAfterBinding", False, "ALPHA", False),
        ("PodLevelResources", True, "BETA", False),
        ("SidecarContainers", True, "GA", True),
        ("InPlacePodVerticalScaling", True, "BETA", False),
        ("PodSchedulingReadiness", True, "GA", True),
        ("NodeInclusionPolicyInPodTopologySpread", True, "GA", True),
        ("MatchLabelKeysInPodTopologySpread", True, "BETA", False),
        ("MatchLabelKeysInPodTopologySpreadSelectorMerge", True, "BETA", False),
        ("MatchLabelKeysInPodAffinity", True, "GA", True),
        ("VolumeAttributesClass", True, "GA", False),  # locked from 1.36
        ("StorageCapacityScoring", False, "ALPHA", False),
        ("CSIMigrationPortworx", True, "GA", True),
        ("SELinuxChangePolicy", True, "BETA", False),
        ("SELinuxMountReadWriteOncePod", True, "BETA", False),
        ("DynamicResourceAllocation", True, "GA", False),  # locked from 1.35
        ("DRAAdminAccess", True, "BETA", False),
        ("DRAPrioritizedList", True, "BETA", False),
        ("DRAResourceClaimDeviceStatus", True, "BETA", False),
        ("DRASchedulerFilterTimeout", True, "BETA", False),
        ("DRADeviceTaints", False, "ALPHA", False),
        ("DRADeviceBindingConditions", False, "ALPHA", False),
        ("DRAPartitionableDevices", False, "ALPHA", False),
        ("DRAConsumableCapacity", False, "ALPHA", False),
        ("DRAExtendedResource", False, "ALPHA", False),
        ("AllAlpha", False, "ALPHA", False),
        ("AllBeta", False, "BETA", False),
    ],
)
def test_v1_34_defaults(name: str, default: bool, stage: str, locked: bool) -> None:
    gate = FEATURE_GATES[name]
    assert (gate.default, gate.stage, gate.locked) == (default, stage, locked)
    assert feature_enabled(name) is default


def test_the_table_holds_exactly_the_audited_gates() -> None:
    assert len(FEATURE_GATES) == 31


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("", {}),
        ("SchedulerPopFromBackoffQ=false", {"SchedulerPopFromBackoffQ": False}),
        (
            " StorageCapacityScoring = true ,,PodLevelResources=false",
            {"StorageCapacityScoring": True, "PodLevelResources": False},
        ),
        ("kube:StorageCapacityScoring=true", {"StorageCapacityScoring": True}),
        # Go's strconv.ParseBool spellings
        *[(f"StorageCapacityScoring={v}", {"StorageCapacityScoring": True}) for v in
          ("1", "t", "T", "TRUE", "true", "True")],
        *[(f"StorageCapacityScoring={v}", {"StorageCapacityScoring": False}) for v in
          ("0", "f", "F", "FALSE", "false", "False")],
        # the last value of a gate written twice wins
        ("PodLevelResources=false,PodLevelResources=true", {"PodLevelResources": True}),
        ("SchedulerQueueingHints=true", {"SchedulerQueueingHints": True}),  # locked, same value
    ],
)  # fmt: skip
def test_parse(raw: str, expected: dict[str, bool]) -> None:
    assert parse_feature_gates(raw) == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("Foo=true", "unrecognized feature gate: Foo"),
        ("kube:Foo=true", "unrecognized feature gate: Foo"),
        ("SchedulerPopFromBackoffQ", "missing bool value for SchedulerPopFromBackoffQ"),
        (
            "SchedulerPopFromBackoffQ=maybe",
            "invalid value of SchedulerPopFromBackoffQ=maybe, err: strconv.ParseBool: parsing "
            '"maybe": invalid syntax',
        ),
        (
            "SchedulerPopFromBackoffQ=yes",
            "invalid value of SchedulerPopFromBackoffQ=yes, err: strconv.ParseBool: parsing "
            '"yes": invalid syntax',
        ),
        (
            "SchedulerQueueingHints=false",
            "cannot set feature gate SchedulerQueueingHints to false, feature is locked to true",
        ),
        (
            "SidecarContainers=false,NodeInclusionPolicyInPodTopologySpread=false",
            "[cannot set feature gate SidecarContainers to false, feature is locked to true, "
            "cannot set feature gate NodeInclusionPolicyInPodTopologySpread to false, feature "
            "is locked to true]",
        ),
        (
            "SidecarContainers=false,Foo=true,Bar=true",
            "[cannot set feature gate SidecarContainers to false, feature is locked to true, "
            "unrecognized feature gate: Foo]",
        ),
    ],
)
def test_errors_are_upstreams(raw: str, message: str) -> None:
    with pytest.raises(FeatureGateError) as info:
        parse_feature_gates(raw)
    assert str(info.value) == f"{ENV_VAR}: {message}"
    assert isinstance(info.value, KubeschedError) and isinstance(info.value, ValueError)


def test_setting_a_ga_gate_logs_upstreams_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="kubesched.features"):
        parse_feature_gates("VolumeAttributesClass=false")
    assert caplog.messages == [
        "Setting GA feature gate VolumeAttributesClass=false. It will be removed in a future "
        "release."
    ]


def test_environment_sets_gates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "SchedulerPopFromBackoffQ=false")
    assert feature_enabled("SchedulerPopFromBackoffQ") is False
    monkeypatch.setenv(ENV_VAR, "Foo=true")
    with pytest.raises(FeatureGateError, match=f"^{ENV_VAR}: unrecognized feature gate: Foo$"):
        feature_enabled("SchedulerPopFromBackoffQ")


def test_flag_wins_over_environment_gate_by_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "SchedulerPopFromBackoffQ=false,StorageCapacityScoring=true")
    set_feature_gates("SchedulerPopFromBackoffQ=true")
    assert feature_enabled("SchedulerPopFromBackoffQ") is True  # the flag
    assert feature_enabled("StorageCapacityScoring") is True  # the environment
    set_feature_gates("")
    assert feature_enabled("SchedulerPopFromBackoffQ") is False


def test_set_feature_gates_checks_both_and_keeps_the_old_values_on_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    set_feature_gates("StorageCapacityScoring=true")
    with pytest.raises(FeatureGateError, match=r"^--feature-gates: unrecognized feature gate: X$"):
        set_feature_gates("X=true")
    assert feature_enabled("StorageCapacityScoring") is True
    monkeypatch.setenv(ENV_VAR, "StorageCapacityScoring=nope")
    with pytest.raises(FeatureGateError, match=f"^{ENV_VAR}: invalid value"):
        set_feature_gates("")


@pytest.mark.parametrize(
    ("raw", "on", "off"),
    [
        # upstream setUnsetAlphaGates / setUnsetBetaGates: only gates not set explicitly
        ("AllAlpha=true", {"StorageCapacityScoring", "DRAExtendedResource"}, set()),
        (
            "AllAlpha=true,StorageCapacityScoring=false",
            {"DRAExtendedResource"},
            {"StorageCapacityScoring"},
        ),
        (
            "StorageCapacityScoring=false,AllAlpha=true",
            {"DRADeviceTaints"},
            {"StorageCapacityScoring"},
        ),
        ("AllBeta=false", set(), {"SchedulerPopFromBackoffQ", "PodLevelResources"}),
        # GA gates are neither alpha nor beta
        ("AllBeta=false", {"SchedulerQueueingHints", "VolumeAttributesClass"}, set()),
    ],
)  # fmt: skip
def test_all_alpha_and_all_beta(raw: str, on: set[str], off: set[str]) -> None:
    set_feature_gates(raw)
    values = feature_gates()
    assert {name for name in on | off if values[name]} == on


def test_an_unknown_name_asked_for_is_a_programming_error() -> None:
    with pytest.raises(KeyError):
        feature_enabled("NoSuchGate")


def test_feature_gates_lists_every_gate() -> None:
    assert set(feature_gates()) == set(FEATURE_GATES)


def test_fast_path_switch_reads_the_env_var_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(kubesched.features.FAST_PATH_ENV, raising=False)
    assert kubesched.features.fast_path_enabled() is True
    monkeypatch.setenv(kubesched.features.FAST_PATH_ENV, "0")
    assert kubesched.features.fast_path_enabled() is False
    assert kubesched.features.fast_path_enabled(True) is True
    monkeypatch.setenv(kubesched.features.FAST_PATH_ENV, "1")
    assert kubesched.features.fast_path_enabled(False) is False
