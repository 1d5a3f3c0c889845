"""kube-scheduler's config validation (section 3.7), table-driven like upstream's
TestValidateKubeSchedulerConfigurationV1 (pkg/scheduler/apis/config/validation)."""

from __future__ import annotations

from typing import Any

import pytest
from config_fakes import doc, profile

from kubesched._errors import ConfigError
from kubesched.config import parse_config

REMOVED = (
    'was invalid in version "kubescheduler.config.k8s.io/v1" '
    '(KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")'
)


def sorts(*names: str) -> dict[str, Any]:
    return {"queueSort": {"enabled": [{"name": n} for n in names]}}


CASES = [
    pytest.param(
        doc(parallelism=0),
        "parallelism",
        "Invalid value: 0: should be an integer value greater than zero",
        id="parallelism",
    ),
    pytest.param(
        doc(profiles=[profile("a"), {"percentageOfNodesToScore": 5}]),
        "profiles[1].schedulerName",
        "Required value",
        id="scheduler-name-required-with-two-profiles",
    ),
    pytest.param(
        doc(profiles=[profile("a"), profile("a")]),
        "profiles[1].schedulerName",
        'Duplicate value: "a": already used by profiles[0].schedulerName',
        id="duplicate-scheduler-name",
    ),
    pytest.param(
        doc(profiles=[profile(plugins=sorts("PrioritySort", "OtherSort"))]),
        "profiles[0].plugins.queueSort.Enabled",
        "Invalid value: 2: only one queue sort plugin can be enabled",
        id="two-queue-sorts-in-profile-0",
    ),
    pytest.param(
        doc(
            profiles=[
                profile("a", plugins=sorts("PrioritySort")),
                profile("b", plugins=sorts("OtherSort")),
            ]
        ),
        "profiles[1].plugins.queueSort",
        'Invalid value: ["OtherSort"]: must be the same for all profiles',
        id="queue-sort-differs",
    ),
    pytest.param(
        doc(
            profiles=[
                profile("a", plugins=sorts("PrioritySort")),
                profile(
                    "b",
                    plugins=sorts("PrioritySort"),
                    pluginConfig=[{"name": "PrioritySort", "args": {"reverse": True}}],
                ),
            ]
        ),
        "profiles[1].pluginConfig[0].args",
        'Invalid value: {"reverse": true}: queueSort must be the same for all profiles',
        id="queue-sort-args-differ",
    ),
    pytest.param(
        doc(percentageOfNodesToScore=101),
        "percentageOfNodesToScore",
        "Invalid value: 101: not in valid range [0-100]",
        id="global-percentage",
    ),
    pytest.param(
        doc(profiles=[profile(percentageOfNodesToScore=-1)]),
        "profiles[0].percentageOfNodesToScore",
        "Invalid value: -1: not in valid range [0-100]",
        id="profile-percentage",
    ),
    pytest.param(
        doc(podInitialBackoffSeconds=0),
        "podInitialBackoffSeconds",
        "Invalid value: 0: must be greater than 0",
        id="initial-backoff",
    ),
    pytest.param(
        doc(podInitialBackoffSeconds=5, podMaxBackoffSeconds=4),
        "podMaxBackoffSeconds",
        "Invalid value: 4: must be greater than or equal to PodInitialBackoffSeconds",
        id="max-backoff",
    ),
    pytest.param(
        doc(
            profiles=[
                profile(
                    plugins={"filter": {"enabled": [{"name": "NodePorts"}, {"name": "EBSLimits"}]}}
                )
            ]
        ),
        "profiles[0].plugins.filter.enabled[1]",
        f'Invalid value: "EBSLimits": {REMOVED}',
        id="removed-plugin-at-point",
    ),
    pytest.param(
        doc(profiles=[profile(plugins={"multiPoint": {"enabled": [{"name": "GCEPDLimits"}]}})]),
        "profiles[0].plugins.multiPoint.enabled[0]",
        f'Invalid value: "GCEPDLimits": {REMOVED}',
        id="removed-plugin-in-multipoint",
    ),
    pytest.param(
        doc(profiles=[profile(pluginConfig=[{"name": "AzureDiskLimits", "args": {}}])]),
        "profiles[0].pluginConfig[0]",
        f'Invalid value: "AzureDiskLimits": {REMOVED}',
        id="removed-plugin-config",
    ),
    pytest.param(
        doc(
            profiles=[
                profile(pluginConfig=[{"name": "NodeResourcesFit"}, {"name": "NodeResourcesFit"}])
            ]
        ),
        "profiles[0].pluginConfig[1]",
        'Duplicate value: "NodeResourcesFit"',
        id="duplicate-plugin-config",
    ),
    pytest.param(
        doc(leaderElection={"resourceLock": "configmaps"}),
        "leaderElection.resourceLock",
        'Invalid value: "configmaps": resourceLock value must be "leases"',
        id="resource-lock",
    ),
    pytest.param(
        doc(leaderElection={"leaseDuration": "5s", "renewDeadline": "10s"}),
        "leaderElection.leaseDuration",
        'Invalid value: "10s": LeaseDuration must be greater than RenewDeadline',
        id="lease-shorter-than-renew",
    ),
    pytest.param(
        doc(leaderElection={"retryPeriod": "0s"}),
        "leaderElection.retryPeriod",
        'Invalid value: "0s": must be greater than zero',
        id="retry-period",
    ),
    pytest.param(
        doc(clientConnection={"burst": -1}),
        "clientConnection.burst",
        "Invalid value: -1: must be non-negative",
        id="burst",
    ),
    pytest.param(
        doc(extenders=[{"urlPrefix": "http://ext:8888", "filterVerb": "filter"}]),
        "extenders[0]",
        'Unsupported value: "http://ext:8888": scheduler extenders are not supported by kubesched',
        id="extender",
    ),
]


@pytest.mark.parametrize(("document", "path", "expected"), CASES)
def test_validation_error(document: dict[str, Any], path: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(document, source="sched.yaml")
    error = info.value
    assert error.file == "sched.yaml"
    assert error.path == path
    assert f"sched.yaml: {path}: {expected}" in str(error)


@pytest.mark.parametrize(
    "document",
    [
        pytest.param(
            doc(leaderElection={"leaderElect": False, "resourceLock": "endpoints"}),
            id="no-election-no-lock-check",
        ),
        pytest.param(
            doc(percentageOfNodesToScore=100, profiles=[profile(percentageOfNodesToScore=0)]),
            id="percentage-bounds",
        ),
        pytest.param(doc(podInitialBackoffSeconds=3, podMaxBackoffSeconds=3), id="equal-backoffs"),
        pytest.param(
            doc(profiles=[profile(plugins={"score": {"enabled": [{"name": "X", "weight": -5}]}})]),
            id="negative-weight-not-validated",
        ),
        pytest.param(
            doc(
                profiles=[
                    profile("a", plugins=sorts("OtherSort")),
                    profile("b", plugins=sorts("OtherSort")),
                ]
            ),
            id="same-queue-sort",
        ),
    ],
)
def test_valid_configurations(document: dict[str, Any]) -> None:
    parse_config(document, source="sched.yaml")


def test_every_validation_error_is_reported() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(
            doc(parallelism=-1, podInitialBackoffSeconds=0, percentageOfNodesToScore=200), "s.yaml"
        )
    lines = str(info.value).splitlines()
    assert [line.split(": ")[1] for line in lines] == [
        "parallelism",
        "percentageOfNodesToScore",
        "podInitialBackoffSeconds",
    ]
    assert all(line.startswith("s.yaml: ") for line in lines)
