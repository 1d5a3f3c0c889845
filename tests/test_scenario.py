"""`kubesched simulate --scenario`: `examples/zone-outage` does what its README says for
every seed (zone-a's pods recreated in the other zones, the db replica with nowhere to go
pending until a node comes back), the same seed gives the same report, each step acts on
the cluster as kubectl would, and a bad scenario exits 2 naming the file, step and field
before anything runs.

Runs through the CLI with the installed plugins (kubesched-builtin)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.cli._main import main

ROOT = Path(__file__).resolve().parents[1]
OUTAGE = ROOT / "examples" / "zone-outage"
ZONE = {"a1": "a", "a2": "a", "a3": "a", "b1": "b", "b2": "b", "c1": "c", "c2": "c"}


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main(["simulate", "-o", "json", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data: dict[str, Any] = json.loads(captured.out)
    return data


def _outage(capsys: pytest.CaptureFixture[str], seed: int) -> dict[str, Any]:
    return _run(
        capsys,
        str(OUTAGE / "manifests"),
        "--scenario",
        str(OUTAGE / "scenario.yaml"),
        "--seed",
        str(seed),
    )


def _by(placements: dict[str, str], prefix: str) -> dict[str, str]:
    return {k: v for k, v in placements.items() if k.startswith(f"default/{prefix}")}


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_zone_outage_as_the_readme_says(capsys: pytest.CaptureFixture[str], seed: int) -> None:
    data = _outage(capsys, seed)
    before, after, recovered = data["checkpoints"]
    assert [c["name"] for c in data["checkpoints"]] == ["before", "after", "recovered"]
    assert [(c["step"], c["at"]) for c in data["checkpoints"]] == [(0, 540), (2, 660), (4, 1260)]

    # before: web two per zone, db one per zone, on six nodes
    assert (before["bound"], before["pending"], before["nodes"]) == (9, 0, 6)
    assert Counter(ZONE[n] for n in _by(before["placements"], "web").values()) == {
        "a": 2, "b": 2, "c": 2,
    }  # fmt: skip
    db_before = _by(before["placements"], "db")
    assert sorted(ZONE[n] for n in db_before.values()) == ["a", "b", "c"]
    lost_db = next(k for k, n in db_before.items() if ZONE[n] == "a")

    # after zone-a's nodes are deleted: web's two pods there made again in b and c (three
    # each), and the db replica of zone-a pending: its anti-affinity allows no other zone
    assert (after["bound"], after["pending"], after["nodes"]) == (8, 1, 4)
    web_after = _by(after["placements"], "web")
    assert len(web_after) == 6
    assert Counter(ZONE[n] for n in web_after.values()) == {"b": 3, "c": 3}
    assert after["pendingPods"] == [lost_db]
    for key, node in _by(after["placements"], "db").items():
        assert db_before[key] == node  # the other replicas did not move

    # a new node in zone-a: the pending replica lands there, web stays where it is
    assert (recovered["bound"], recovered["pending"], recovered["nodes"]) == (9, 0, 5)
    assert recovered["placements"][lost_db] == "a3"
    assert _by(recovered["placements"], "web") == web_after

    assert data["summary"]["bound"] == 9 and data["summary"]["virtualSeconds"] == 1260.0
    assert {p["node"] for p in data["pods"]} <= {"a3", "b1", "b2", "c1", "c2"}


def test_the_same_seed_gives_the_same_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert _outage(capsys, 3) == _outage(capsys, 3)


def test_the_table_report_lists_the_checkpoints(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["simulate", str(OUTAGE / "manifests"), "--scenario", str(OUTAGE / "scenario.yaml")]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "Checkpoints" in out
    rows = [line for line in out.splitlines() if line.startswith("│ after ")]
    assert len(rows) == 1
    assert [c.strip() for c in rows[0].split("│")[2:6]] == ["660s", "8", "1", "4"]


def test_a_run_without_a_scenario_has_no_checkpoints(capsys: pytest.CaptureFixture[str]) -> None:
    assert "checkpoints" not in _run(capsys, str(OUTAGE / "manifests"))


# -- each step, on a small cluster ------------------------------------------------------

NODES = [
    {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
    for name in ("n1", "n2")
]
WEB = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": 4,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {"name": "c", "image": "x", "resources": {"requests": {"cpu": "500m"}}}
                ]
            },
        },
    },
}


def _files(tmp_path: Path, steps: list[dict[str, Any]]) -> tuple[Path, Path]:
    manifests = tmp_path / "cluster.yaml"
    manifests.write_text(yaml.safe_dump_all([*NODES, WEB]), encoding="utf-8")
    scenario = tmp_path / "scenario.yaml"
    doc = {"apiVersion": "simulation.kubesched.io/v1alpha1", "kind": "Scenario", "steps": steps}
    scenario.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return manifests, scenario


def _scenario(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, steps: list[dict[str, Any]]
) -> dict[str, Any]:
    manifests, scenario = _files(tmp_path, steps)
    return _run(capsys, str(manifests), "--scenario", str(scenario))


def _nodes(checkpoint: dict[str, Any]) -> Counter[str]:
    return Counter(checkpoint["placements"].values())


def test_cordon_and_drain_move_pods_off_and_uncordon_lets_them_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = _scenario(
        capsys,
        tmp_path,
        [
            {"at": "1m", "checkpoint": "start"},
            {"at": "2m", "drain": "n1"},
            {"at": "3m", "checkpoint": "drained"},
            {"at": "4m", "uncordon": "n1"},
            {"at": "4m", "scale": {"kind": "Deployment", "name": "web", "replicas": 6}},
            {"at": "5m", "checkpoint": "scaled"},
            {"at": "6m", "cordon": ["n1", "n2"]},
            {"at": "6m", "scale": {"kind": "Deployment", "name": "web", "replicas": 7}},
            {"at": "7m", "checkpoint": "cordoned"},
        ],
    )
    start, drained, scaled, cordoned = data["checkpoints"]
    assert _nodes(start) == {"n1": 2, "n2": 2}
    # the drained pods terminated (30 s grace) and were made again on n2
    assert _nodes(drained) == {"n2": 4} and drained["pods"] == 4
    # uncordoned, the two new replicas go to the emptier n1
    assert _nodes(scaled) == {"n1": 2, "n2": 4}
    # both cordoned: the seventh replica has nowhere to go
    assert cordoned["bound"] == 6 and len(cordoned["pendingPods"]) == 1
    assert data["summary"]["unschedulable"] == 1


def test_taint_patch_create_and_delete(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "late"},
        "spec": {
            "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}]
        },
    }
    data = _scenario(
        capsys,
        tmp_path,
        [
            {"at": "1m", "taint": {"node": "n1", "key": "k", "value": "v", "effect": "NoSchedule"}},
            {"at": "1m", "create": pod},
            {"at": "2m", "checkpoint": "tainted"},
            {"at": "3m", "untaint": {"node": "n1", "key": "k"}},
            {
                "at": "3m",
                "patch": {"kind": "Node", "name": "n2", "patch": {"spec": {"unschedulable": True}}},
            },
            {"at": "3m", "delete": {"kind": "Pod", "name": "late"}},
            {"at": "3m", "create": {**pod, "metadata": {"name": "later"}}},
            {"at": "4m", "checkpoint": "patched"},
            {"at": "5m", "delete": {"kind": "Deployment", "name": "web"}},
            {"at": "6m", "checkpoint": "deleted"},
        ],
    )
    tainted, patched, deleted = data["checkpoints"]
    assert tainted["placements"]["default/late"] == "n2"
    assert "default/late" not in patched["placements"]
    assert patched["placements"]["default/later"] == "n1"
    # the Deployment's pods went with it (the garbage collector), after their grace period
    assert deleted["placements"] == {"default/later": "n1"} and deleted["pods"] == 1
    assert [p["name"] for p in data["pods"]] == ["later"]


# -- bad input ------------------------------------------------------------------------------

BAD: dict[str, tuple[list[dict[str, Any]], str]] = {
    "a time before the step before": (
        [{"at": "10m", "checkpoint": "a"}, {"at": "5m", "drain": "n1"}],
        "steps[1].at: Invalid value: 300s is earlier than the step before it (600s)",
    ),
    "a node that does not exist": (
        [{"at": "1m", "deleteNode": "n9"}],
        'steps[0].deleteNode: Not found: Node "n9" does not exist at 60s',
    ),
    "a workload that does not exist": (
        [{"at": "1m", "scale": {"kind": "Deployment", "name": "api", "replicas": 1}}],
        'steps[0].scale.name: Not found: Deployment "default/api" does not exist at 60s',
    ),
    "a pod that does not exist when the step runs": (
        [{"at": "1m", "checkpoint": "a"}, {"at": "2m", "delete": {"kind": "Pod", "name": "x"}}],
        'steps[1].delete.name: Not found: Pod "default/x" does not exist at 120s',
    ),
    "an object created twice": (
        [{"at": "1m", "addNode": NODES[0]}],
        'steps[0].addNode: nodes "n1" already exists',
    ),
}


@pytest.mark.parametrize("steps,message", BAD.values(), ids=BAD.keys())
def test_a_bad_scenario_exits_2_naming_the_file_step_and_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, steps: list[dict[str, Any]], message: str
) -> None:
    manifests, scenario = _files(tmp_path, steps)
    code = main(["simulate", str(manifests), "--scenario", str(scenario), "-o", "json"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert f"{scenario}: {message}" in captured.err
    assert "Traceback" not in captured.err
