"""Scenario files (`kubesched.simulate._scenario`): what a step may say, the error that names
the file, the step and the field when it says something wrong, the JSON merge patch, and the
check, before the run, that every object a step names exists by then."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched._errors import ManifestError
from kubesched.api import K8sModel, apply_merge_patch
from kubesched.cluster.memory import default_kinds
from kubesched.runtime import make_plugin_manager
from kubesched.simulate import Scenario, load_scenario
from kubesched.simulate._scenario import ObjectRef, check_scenario
from kubesched.testing import make_node, make_pod
from kubesched.workloads import Deployment
from kubesched.workloads import register as register_workloads


def kinds() -> Any:
    pm = make_plugin_manager(load_entrypoints=False)
    register_workloads(pm)
    return default_kinds(pm)


def write(tmp_path: Path, steps: Any, **top: Any) -> Path:
    doc = {
        "apiVersion": "simulation.kubesched.io/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "test"},
        "steps": steps,
        **top,
    }
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def load(tmp_path: Path, steps: Any, **top: Any) -> Scenario:
    return load_scenario(write(tmp_path, steps, **top), kinds())


def test_every_action_parses(tmp_path: Path) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n9"}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}
    scenario = load(
        tmp_path,
        [
            {"at": 0, "checkpoint": "start"},
            {"at": "30s", "create": [pod]},
            {"at": "1m", "addNode": node},
            {"at": "1m", "scale": {"kind": "Deployment", "name": "web", "replicas": 2}},
            {"at": "1m", "patch": {"kind": "Node", "name": "n1", "patch": {"x": 1}}},
            {"at": "2m", "delete": {"kind": "Pod", "name": "p", "namespace": "ns"}},
            {"at": "2m", "cordon": "n1"},
            {"at": "2m", "uncordon": ["n1"]},
            {"at": "2m", "drain": ["n1", "n2"]},
            {"at": "2m", "deleteNode": "n2"},
            {"at": "2m", "taint": {"node": "n1", "key": "k", "value": 1, "effect": "NoSchedule"}},
            {"at": "1h", "untaint": {"node": ["n1"], "key": "k"}},
        ],
    )
    assert scenario.name == "test"
    assert [s.at for s in scenario.steps] == [0, 30, 60, 60, 60, 120, 120, 120, 120, 120, 120, 3600]
    by_action = {s.action: s.value for s in scenario.steps}
    assert [o.metadata.name for o in by_action["create"]] == ["p"]
    assert [o.metadata.name for o in by_action["addNode"]] == ["n9"]
    assert by_action["scale"] == (ObjectRef("Deployment", "web", "default"), 2)
    assert by_action["patch"] == (ObjectRef("Node", "n1", None), {"x": 1})
    assert by_action["delete"] == (ObjectRef("Pod", "p", "ns"), None)
    assert by_action["cordon"] == ("n1",) and by_action["drain"] == ("n1", "n2")
    assert by_action["taint"] == (("n1",), {"key": "k", "value": "1", "effect": "NoSchedule"})
    assert by_action["untaint"] == (("n1",), {"key": "k"})
    assert by_action["checkpoint"] == "start"


BAD_STEPS: dict[str, tuple[Any, str]] = {
    "earlier than the step before": (
        [{"at": "5m", "checkpoint": "a"}, {"at": "4m", "checkpoint": "b"}],
        "steps[1].at: Invalid value: 240s is earlier than the step before it (300s); steps are "
        "in time order",
    ),
    "no at": ([{"checkpoint": "a"}], "steps[0].at: Required value: when the step runs"),
    "bad duration": ([{"at": "5 min", "checkpoint": "a"}], "steps[0].at: Invalid value: invalid"),
    "negative": ([{"at": -1, "checkpoint": "a"}], "steps[0].at: Invalid value: must not be"),
    "unknown action": ([{"at": 0, "reboot": "n1"}], "steps[0].reboot: unknown action"),
    "two actions": (
        [{"at": 0, "cordon": "n1", "drain": "n1"}],
        "steps[0]: a step has exactly one action",
    ),
    "unknown kind": (
        [{"at": 0, "delete": {"kind": "Widget", "name": "w"}}],
        'steps[0].delete: Invalid value: no installed package registers "Widget"',
    ),
    "scale a Node": (
        [{"at": 0, "scale": {"kind": "Node", "name": "n1", "replicas": 1}}],
        'steps[0].scale.kind: Unsupported value: "Node"',
    ),
    "replicas": (
        [{"at": 0, "scale": {"kind": "Deployment", "name": "web", "replicas": -1}}],
        "steps[0].scale.replicas: Invalid value",
    ),
    "no name": ([{"at": 0, "delete": {"kind": "Pod"}}], "steps[0].delete.name: Required value"),
    "bad effect": (
        [{"at": 0, "taint": {"node": "n1", "key": "k", "effect": "NoRun"}}],
        'steps[0].taint.effect: Unsupported value: "NoRun"',
    ),
    "bad manifest": (
        [{"at": 0, "create": [{"apiVersion": "v1", "kind": "Pod", "metadata": {}}]}],
        "steps[0].create[0].metadata.name: Required value",
    ),
    "addNode not a node": (
        [{"at": 0, "addNode": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}}],
        "steps[0].addNode.kind: Invalid value: addNode takes a Node",
    ),
    "checkpoint twice": (
        [{"at": 0, "checkpoint": "a"}, {"at": 1, "checkpoint": "a"}],
        'steps[1].checkpoint: Duplicate value: checkpoint "a"',
    ),
}


@pytest.mark.parametrize("steps,message", BAD_STEPS.values(), ids=BAD_STEPS.keys())
def test_a_bad_step_names_the_file_the_step_and_the_field(
    tmp_path: Path, steps: Any, message: str
) -> None:
    path = write(tmp_path, steps)
    with pytest.raises(ManifestError) as info:
        load_scenario(path, kinds())
    assert str(info.value).startswith(f"{path}: {message}")


def test_the_document_must_be_a_scenario(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match=r"kind: Unsupported value: \"List\""):
        load(tmp_path, [{"at": 0, "checkpoint": "a"}], kind="List")
    with pytest.raises(ManifestError, match=r"steps: Required value"):
        load(tmp_path, [])


def test_merge_patch_merges_mappings_removes_nulls_and_replaces_the_rest() -> None:
    target = {"a": {"b": 1, "c": 2}, "l": [1, 2], "k": "v"}
    patch = {"a": {"b": None, "d": {"e": 3}}, "l": [3], "k": None, "n": 0}
    assert apply_merge_patch(target, patch) == {"a": {"c": 2, "d": {"e": 3}}, "l": [3], "n": 0}
    assert target == {"a": {"b": 1, "c": 2}, "l": [1, 2], "k": "v"}  # not changed


def objects() -> list[K8sModel]:
    web = Deployment.model_validate(
        {
            "metadata": {"name": "web"},
            "spec": {
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {}},
            },
        }
    )
    return [make_node("n1").obj(), make_node("n2").obj(), web, make_pod("p").obj()]


MISSING: dict[str, tuple[list[dict[str, Any]], str]] = {
    "a node never created": (
        [{"at": 0, "cordon": "n3"}],
        'steps[0].cordon: Not found: Node "n3" does not exist at 0s',
    ),
    "one node of a list": (
        [{"at": "1m", "deleteNode": ["n1", "n3"]}],
        'steps[0].deleteNode[1]: Not found: Node "n3" does not exist at 60s',
    ),
    "a deleted node": (
        [{"at": 0, "deleteNode": "n1"}, {"at": "1m", "taint": {"node": "n1", "key": "k",
                                                               "effect": "NoSchedule"}}],
        'steps[1].taint.node: Not found: Node "n1" does not exist at 60s',
    ),
    "a workload in another namespace": (
        [{"at": 0, "scale": {"kind": "Deployment", "name": "web", "namespace": "x",
                             "replicas": 1}}],
        'steps[0].scale.name: Not found: Deployment "x/web" does not exist at 0s',
    ),
    "a deleted workload": (
        [{"at": 0, "delete": {"kind": "Deployment", "name": "web"}},
         {"at": 0, "patch": {"kind": "Deployment", "name": "web", "patch": {}}}],
        'steps[1].patch.name: Not found: Deployment "default/web" does not exist at 0s',
    ),
}  # fmt: skip


@pytest.mark.parametrize("steps,message", MISSING.values(), ids=MISSING.keys())
def test_a_step_naming_an_object_that_does_not_exist_is_an_error(
    tmp_path: Path, steps: list[dict[str, Any]], message: str
) -> None:
    path = write(tmp_path, steps)
    scenario = load_scenario(path, kinds())
    with pytest.raises(ManifestError) as info:
        check_scenario(scenario, objects(), kinds())
    assert str(info.value) == f"{path}: {message}"


def test_objects_the_steps_create_exist_for_the_later_steps(tmp_path: Path) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n3"}}
    steps = [
        {"at": 0, "addNode": node},
        {"at": 0, "cordon": "n3"},
        # a pod only a controller names is looked for when the step runs
        {"at": 0, "delete": {"kind": "Pod", "name": "web-abcde"}},
        {"at": 0, "scale": {"kind": "Deployment", "name": "web", "replicas": 0}},
    ]
    scenario = load_scenario(write(tmp_path, steps), kinds())
    check_scenario(scenario, objects(), kinds())
