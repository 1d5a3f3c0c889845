"""PodTopologySpreadArgs: v1 defaulting and upstream's validation messages
(pkg/scheduler/apis/config/v1/defaults_test.go, validation/validation_pluginargs_test.go
TestValidatePodTopologySpreadArgs)."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import fake_handle
from pydantic import ValidationError

from kubesched.framework import NoArgs
from kubesched_builtin.podtopologyspread import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    PodTopologySpread,
    PodTopologySpreadArgs,
)


def test_defaults() -> None:
    args = PodTopologySpreadArgs()
    assert args.model_dump(by_alias=True) == {"defaultConstraints": [], "defaultingType": "System"}
    assert PodTopologySpreadArgs.model_validate({"defaultingType": ""}).defaulting_type == "System"


def test_system_defaults_are_hostname_3_and_zone_5_schedule_anyway() -> None:
    pl = PodTopologySpread(PodTopologySpreadArgs(), fake_handle())
    assert pl.system_defaulted
    assert [
        (c.topology_key, c.max_skew, c.when_unsatisfiable, c.label_selector)
        for c in pl.default_constraints
    ] == [
        ("kubernetes.io/hostname", 3, "ScheduleAnyway", None),
        ("topology.kubernetes.io/zone", 5, "ScheduleAnyway", None),
    ]
    assert pl.default_constraints == SYSTEM_DEFAULT_CONSTRAINTS


def test_list_defaulting_keeps_the_given_constraints() -> None:
    args = PodTopologySpreadArgs.model_validate(
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"}
            ],
        }
    )
    pl = PodTopologySpread(args, fake_handle())
    assert not pl.system_defaulted
    assert [(c.topology_key, c.max_skew) for c in pl.default_constraints] == [("node", 1)]


def c(**fields: Any) -> dict[str, Any]:
    return {"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": "ScheduleAnyway", **fields}


@pytest.mark.parametrize(
    ("data", "want"),
    [
        pytest.param(
            {"defaultingType": "List", "defaultConstraints": [c(maxSkew=-1)]},
            "defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)",
            id="negative maxSkew",
        ),
        pytest.param(
            {"defaultingType": "List", "defaultConstraints": [c(topologyKey="")]},
            "defaultConstraints[0].topologyKey: Required value: can not be empty",
            id="empty topology key",
        ),
        pytest.param(
            {"defaultingType": "List", "defaultConstraints": [c(whenUnsatisfiable="")]},
            "defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty",
            id="WhenUnsatisfiable is empty",
        ),
        pytest.param(
            {
                "defaultingType": "List",
                "defaultConstraints": [c(whenUnsatisfiable="unknown action")],
            },
            'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "unknown action": '
            'supported values: "DoNotSchedule", "ScheduleAnyway"',
            id="WhenUnsatisfiable contains unsupported action",
        ),
        pytest.param(
            {
                "defaultingType": "List",
                "defaultConstraints": [
                    c(topologyKey="node", whenUnsatisfiable="ScheduleAnyway"),
                    c(topologyKey="node", whenUnsatisfiable="ScheduleAnyway", maxSkew=2),
                ],
            },
            'defaultConstraints[1]: Duplicate value: "{node, ScheduleAnyway}"',
            id="duplicated constraints",
        ),
        pytest.param(
            {
                "defaultingType": "List",
                "defaultConstraints": [c(labelSelector={"matchLabels": {"a": "b"}})],
            },
            "defaultConstraints[0].labelSelector: Forbidden: constraint must not define a "
            "selector, as they deduced for each pod",
            id="label selector present",
        ),
        pytest.param(
            {"defaultingType": "Unknown"},
            'defaultingType: Unsupported value: "Unknown": supported values: "System", "List"',
            id="wrong defaulting type",
        ),
        pytest.param(
            {"defaultingType": "System", "defaultConstraints": [c()]},
            'defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
            id="system defaulting with constraints",
        ),
        pytest.param(
            {"defaultConstraints": [c()]},
            'defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
            id="constraints without defaultingType default to System and are rejected",
        ),
        pytest.param(
            {"defaultingType": "List", "defaultConstraints": [c(topologyKey="a/b/c")]},
            'defaultConstraints[0].topologyKey: Invalid value: "a/b/c": a qualified name',
            id="topology key that is not a label name",
        ),
        pytest.param(
            {
                "defaultingType": "List",
                "defaultConstraints": [c(maxSkew=0, whenUnsatisfiable="")],
            },
            "[defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf), "
            "defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty]",
            id="several errors are aggregated",
        ),
    ],
)
def test_validation_messages(data: dict[str, Any], want: str) -> None:
    with pytest.raises(ValidationError) as info:
        PodTopologySpreadArgs.model_validate(data)
    assert want in str(info.value)


@pytest.mark.parametrize(
    "data",
    [
        {"defaultingType": "List"},
        {"defaultingType": "System"},
        {
            "defaultingType": "List",
            "defaultConstraints": [
                c(topologyKey="kubernetes.io/hostname", maxSkew=3),
                c(topologyKey="topology.kubernetes.io/zone", maxSkew=5),
                c(topologyKey="kubernetes.io/hostname", whenUnsatisfiable="DoNotSchedule"),
            ],
        },
    ],
)
def test_valid_args(data: dict[str, Any]) -> None:
    PodTopologySpreadArgs.model_validate(data)


def test_unknown_fields_are_rejected() -> None:
    with pytest.raises(ValidationError):
        PodTopologySpreadArgs.model_validate({"defaultConstraint": []})
    with pytest.raises(ValidationError):
        PodTopologySpreadArgs.model_validate(
            {"defaultingType": "List", "defaultConstraints": [c(maxskew=1)]}
        )


def test_wrong_args_type() -> None:
    with pytest.raises(TypeError, match="wants args of type PodTopologySpreadArgs"):
        PodTopologySpread(NoArgs(), fake_handle())
