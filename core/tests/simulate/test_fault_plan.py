"""Fault plan files (`kubesched.simulate._faults`): what a fault may say, and the one-line
error naming the file and the field when it says something wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched._errors import ManifestError
from kubesched.simulate._faults import FaultPlan, load_fault_plan, parse_fault_plan


def write(tmp_path: Path, faults: Any, **top: Any) -> Path:
    doc = {
        "apiVersion": "simulation.kubesched.io/v1alpha1",
        "kind": "FaultPlan",
        "metadata": {"name": "test"},
        "faults": faults,
        **top,
    }
    path = tmp_path / "faults.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def load(tmp_path: Path, faults: Any, **top: Any) -> FaultPlan:
    return load_fault_plan(write(tmp_path, faults, **top))


def test_every_action_parses_with_its_defaults(tmp_path: Path) -> None:
    plan = load(
        tmp_path,
        [
            {"pluginError": {"plugin": "P", "extensionPoint": "Reserve"}, "probability": 0.5},
            {"bindError": None, "times": 2},
            {"bindError": {"reason": "Conflict"}, "pods": ["web-1", "ns/db"]},
            {"preBindTimeout": {"plugin": "VolumeBinding"}, "after": "1m"},
            {"deleteBeforeBind": {"kind": "PersistentVolume", "name": "pv-1"}},
            {"watch": {"kind": "Pod", "action": "Delay", "delay": "5s"}},
            {"watch": {"kind": "Node", "action": "Drop", "eventType": "DELETED"}},
            {"relist": None},
        ],
        seed=7,
    )
    assert plan.name == "test" and plan.seed == 7
    described = [f.describe() for f in plan.faults]
    assert described == [
        "pluginError P/Reserve",
        "bindError InternalError",
        "bindError Conflict",
        "preBindTimeout VolumeBinding after 600s",
        "deleteBeforeBind PersistentVolume pv-1",
        "watch Delay Pod 5s",
        "watch Drop Node DELETED",
        "relist Pod,Node at Reserve",
    ]
    assert plan.faults[0].probability == 0.5 and plan.faults[0].times is None
    assert plan.faults[1].times == 2
    assert plan.faults[2].pods == frozenset({"default/web-1", "ns/db"})
    assert plan.faults[3].after == 60.0


@pytest.mark.parametrize(
    ("faults", "where"),
    [
        ([{"crash": {}}], "faults[0].crash: unknown field; expected one of pluginError"),
        ([{"bindError": {}, "watch": {}}], "faults[0]: a fault has exactly one action"),
        ([{"pluginError": {"plugin": "P"}}], "faults[0].pluginError.extensionPoint: Required"),
        (
            [{"pluginError": {"plugin": "P", "extensionPoint": "Unreserve"}}],
            'faults[0].pluginError.extensionPoint: Unsupported value: "Unreserve"',
        ),
        ([{"pluginError": {"extensionPoint": "Bind"}}], "faults[0].pluginError.plugin: Required"),
        (
            [{"bindError": {"reason": "Gone"}}],
            'faults[0].bindError.reason: Unsupported value: "Gone"',
        ),
        ([{"bindError": {"code": 500}}], "faults[0].bindError.code: unknown field"),
        ([{"bindError": {}, "probability": 2}], "faults[0].probability: Invalid value: 2"),
        ([{"bindError": {}, "probability": True}], "faults[0].probability: Invalid value"),
        ([{"bindError": {}, "times": 0}], "faults[0].times: Invalid value: 0"),
        ([{"bindError": {}, "after": "soon"}], "faults[0].after: Invalid value"),
        ([{"bindError": {}, "after": -1}], "faults[0].after: Invalid value: must not be negative"),
        ([{"bindError": {}, "pods": "web"}], "faults[0].pods: Invalid value: a list of pod names"),
        ([{"watch": {"kind": "Pod", "action": "Drop"}, "pods": ["a"]}], "faults[0].pods: a watch"),
        ([{"watch": {"kind": "Pod", "action": "Delay"}}], "faults[0].watch.delay: Required value"),
        (
            [{"watch": {"kind": "Pod", "action": "Drop", "delay": 1}}],
            "faults[0].watch.delay: Invalid value: only a Delay",
        ),
        ([{"watch": {"action": "Drop"}}], "faults[0].watch.kind: Required value"),
        (
            [{"watch": {"kind": "Pod", "action": "Drop", "eventType": "BOOKMARK"}}],
            'faults[0].watch.eventType: Unsupported value: "BOOKMARK"',
        ),
        (
            [{"deleteBeforeBind": {"kind": "Node", "name": "n1"}}],
            "faults[0].deleteBeforeBind.name: Invalid value: a PersistentVolume's name",
        ),
        (
            [{"deleteBeforeBind": {"kind": "Secret"}}],
            'faults[0].deleteBeforeBind.kind: Unsupported value: "Secret"',
        ),
        ([{"relist": {"kinds": []}}], "faults[0].relist.kinds: Invalid value"),
        (
            [{"relist": {"extensionPoint": "Bind"}}],
            'faults[0].relist.extensionPoint: Unsupported value: "Bind"',
        ),
        ([], "faults: Required value: a non-empty list of faults"),
        (["bindError"], "faults[0]: a fault must be a mapping"),
        ([{"bindError": "yes"}], "faults[0].bindError: Invalid value: a mapping"),
    ],
)
def test_bad_fault_names_file_and_field(tmp_path: Path, faults: Any, where: str) -> None:
    path = write(tmp_path, faults)
    with pytest.raises(ManifestError) as info:
        load_fault_plan(path)
    message = str(info.value)
    assert message.startswith(f"{path}: {where}"), message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("top", "where"),
    [
        (
            {"kind": "Scenario"},
            'kind: Unsupported value: "Scenario": supported values: "FaultPlan"',
        ),
        (
            {"apiVersion": "v1"},
            'apiVersion: Unsupported value: "v1": supported values: '
            '"simulation.kubesched.io/v1alpha1"',
        ),
        ({"seed": "x"}, "seed: Invalid value: 'x': an integer"),
        ({"extra": 1}, "extra: unknown field"),
    ],
)
def test_bad_document_names_the_field(tmp_path: Path, top: Any, where: str) -> None:
    path = write(tmp_path, [{"bindError": {}}], **top)
    with pytest.raises(ManifestError) as info:
        load_fault_plan(path)
    assert str(info.value) == f"{path}: {where}"


def test_not_yaml_or_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("faults: [\n", encoding="utf-8")
    with pytest.raises(ManifestError) as info:
        load_fault_plan(path)
    assert str(info.value).startswith(f"{path}: not valid YAML: ")
    assert "\n" not in str(info.value)
    with pytest.raises(ManifestError, match="a fault plan must be a YAML mapping"):
        parse_fault_plan(["faults"], "plan.yaml")
