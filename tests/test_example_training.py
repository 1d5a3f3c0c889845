"""`examples/training` does what its README promises: gangs bound whole or not at all.

The expected outcome is read from the README's tables (`| pod | group | node | why |` for
the pods, `| podgroup | minMember | ... |` for the groups), so the README and this test
cannot drift apart. Needs kubesched-coscheduling installed with its entry points (the
plugin and the `kubesched` hook module).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from example_tables import readme_table
from table_text import read_tables

from kubesched.cli._main import main
from kubesched.simulate import SimulationResult, simulate

ROOT = Path(__file__).resolve().parents[1]
TRAINING = ROOT / "examples" / "training"
MANIFESTS = TRAINING / "manifests"
CONFIG = TRAINING / "scheduler-config.yaml"


GROUP_COLUMNS = (
    "podgroup",
    "minMember",
    "members",
    "bound",
    "waiting",
    "pending",
    "phase",
    "reason",
    "time to quorum",
    "message",
)


@dataclass(frozen=True)
class Expected:
    pod: str
    group: str | None
    node: str | None
    status: str
    message: str


def _readme_outcome() -> dict[str, Expected]:
    rows: dict[str, Expected] = {}
    in_table = False
    for line in (TRAINING / "README.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells == ["pod", "group", "node", "why"]:
            in_table = True
            continue
        if not in_table or set(cells[0]) <= {"-"}:
            continue
        pod, group, node, why = cells
        group_name = None if group in ("—", "-") else group
        if node in ("—", "-"):
            status, _, rest = why.partition(":")
            message = re.sub(r"^`(.*)`$", r"\1", rest.strip())
            rows[pod] = Expected(pod, group_name, None, status, message)
        else:
            rows[pod] = Expected(pod, group_name, node, "Bound", "")
    return rows


def _min_members() -> dict[str, int]:
    docs = yaml.safe_load_all((MANIFESTS / "podgroups.yaml").read_text(encoding="utf-8"))
    return {d["metadata"]["name"]: d["spec"]["minMember"] for d in docs if d}


@pytest.fixture(scope="module")
def result() -> SimulationResult:
    return simulate([MANIFESTS], config=CONFIG)


def test_readme_table_is_parsed() -> None:
    outcome = _readme_outcome()
    assert len(outcome) == 21
    assert outcome["llama-0"].status == "Unschedulable"
    assert outcome["sweep-4"] == Expected("sweep-4", "sweep", "gpu-c", "Bound", "")


def test_training_example_matches_readme(result: SimulationResult) -> None:
    pods = {p.name: p for p in result.pods}
    assert result.skipped == []
    for name, want in _readme_outcome().items():
        got = pods[name]
        assert (got.node, got.status) == (want.node, want.status), name
        assert got.message == want.message, name
    assert set(pods) == set(_readme_outcome())


def test_no_gang_is_bound_below_its_quorum(result: SimulationResult) -> None:
    bound: dict[str, int] = {}
    for row in _readme_outcome().values():
        if row.group is not None:
            bound.setdefault(row.group, 0)
            got = next(p for p in result.pods if p.name == row.pod)
            bound[row.group] += got.status == "Bound"
    minimum = _min_members()
    assert set(bound) == set(minimum)
    for group, count in bound.items():
        assert count == 0 or count >= minimum[group], group
    assert bound == {"bert": 2, "llama": 0, "resnet": 4, "sweep": 5}


def test_nodes_are_not_over_committed(result: SimulationResult) -> None:
    for node in result.nodes:
        for resource, used in node.requested.items():
            assert used <= node.allocatable[resource], (node.name, resource)
    gpus = {n.name: n.requested.get("nvidia.com/gpu", 0) for n in result.nodes}
    assert gpus == {"cpu-1": 0, "gpu-a": 4, "gpu-b": 4, "gpu-c": 4}


def test_everything_happens_at_virtual_time_zero(result: SimulationResult) -> None:
    assert result.virtual_seconds == 0.0
    summary = result.summary
    assert (summary["bound"], summary["unschedulable"], summary["waiting"]) == (13, 8, 0)


def test_the_cli_reports_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", str(MANIFESTS), "--config", str(CONFIG), "--output", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    data: dict[str, Any] = json.loads(captured.out)
    got = {p["name"]: (p["status"], p["node"]) for p in data["pods"]}
    want = {name: (row.status, row.node) for name, row in _readme_outcome().items()}
    assert got == want
    assert data["sections"] == {"podGroups": _readme_groups()}


def _readme_groups() -> list[dict[str, Any]]:
    """The README's groups table as the JSON report's `podGroups` records."""
    groups = []
    for row in readme_table(TRAINING, GROUP_COLUMNS):
        namespace, _, name = row["podgroup"].partition("/")
        ttq = row["time to quorum"]
        groups.append(
            {
                "namespace": namespace,
                "name": name,
                "minMember": int(row["minMember"]),
                "phase": row["phase"],
                "members": {
                    "total": int(row["members"]),
                    "bound": int(row["bound"]),
                    "waiting": int(row["waiting"]),
                    "pending": int(row["pending"]),
                },
                "scheduled": "True" if row["reason"] == "QuorumReached" else "False",
                "reason": row["reason"],
                "message": row["message"],
                "timeToQuorumSeconds": float(ttq.removesuffix("s")) if ttq else None,
            }
        )
    return groups


def test_readme_groups_table_is_parsed() -> None:
    groups = _readme_groups()
    assert [g["name"] for g in groups] == ["bert", "llama", "resnet", "sweep"]
    assert groups[1]["message"].startswith("podGroup ml/llama needs 8 more members")
    assert groups[1]["timeToQuorumSeconds"] is None
    assert set(_min_members()) == {g["name"] for g in groups}


def test_groups_section_matches_readme(result: SimulationResult) -> None:
    assert result.section("podGroups").payload == _readme_groups()


def test_groups_agree_with_the_pods(result: SimulationResult) -> None:
    """Each group's counts are its members' outcomes in the pods table."""
    statuses: dict[str, list[str]] = {}
    for row in _readme_outcome().values():
        if row.group is not None:
            statuses.setdefault(row.group, []).append(row.status)
    for group in result.section("podGroups").payload:
        members = statuses[group["name"]]
        assert group["members"]["total"] == len(members)
        assert group["members"]["bound"] == members.count("Bound")
        assert group["minMember"] == _min_members()[group["name"]]


def test_the_cli_table_shows_the_groups(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", str(MANIFESTS), "--config", str(CONFIG), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.index("Pods") < out.index("PodGroups") < out.index("Nodes")
    for group in _readme_groups():
        assert f"{group['namespace']}/{group['name']}" in out
    assert "4 PodGroups, 3 reached their quorum (minMember)" in out


def test_the_readme_shows_the_podgroups_table_as_printed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's printed PodGroups table is the one `kubesched simulate` prints."""
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["simulate", str(MANIFESTS), "--config", str(CONFIG), "--no-progress"]) == 0
    printed = {t.title: t for t in read_tables(capsys.readouterr().out)}["PodGroups"]
    readme = (TRAINING / "README.md").read_text(encoding="utf-8")
    block = readme.split("```\nPodGroups\n", 1)[1].split("```", 1)[0]
    shown = {t.title: t for t in read_tables("PodGroups\n" + block)}["PodGroups"]
    assert (shown.header, shown.rows) == (printed.header, printed.rows)
