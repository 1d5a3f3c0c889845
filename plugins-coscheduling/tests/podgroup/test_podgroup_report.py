"""The `podGroups` section of the simulate report: each gang as one unit.

End to end in the embedded cluster (the real scheduler, the builtin plugins, Coscheduling
and the hook module): a gang that binds, one larger than the cluster, one waiting for its
members, one without members, one waiting at Permit when the run stops, one that timed out,
one whose quorum comes late. Then the row builder on hand-made objects, and the table/JSON
forms. scheduler-plugins has no report (its status lives on the PodGroup only); the
reasons and messages are the ones the plugin writes on the `Scheduled` condition.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from cosched_helpers import EPOCH, Script, gang_pod, pod_group, run
from rich.console import Console

from kubesched.cli._simulate import render_result
from kubesched.simulate import PodResult, SimulationResult
from kubesched.testing import make_node, make_pod
from kubesched_coscheduling.hooks import kubesched_report_sections
from kubesched_coscheduling.podgroup import PodGroupCondition
from kubesched_coscheduling.podgroup.report import (
    COLUMNS,
    SECTION_KEY,
    PodGroupReport,
    pod_group_reports,
)


def node(name: str, cpu: str = "4") -> Any:
    return make_node(name).alloc(cpu=cpu, memory="8Gi", pods=32).obj()


def rows_by_name(result: SimulationResult) -> dict[str, dict[str, Any]]:
    payload = result.section(SECTION_KEY).payload
    return {row["name"]: row for row in payload}


@pytest.fixture(scope="module")
def mixed() -> SimulationResult:
    """Two 4-CPU nodes: `ok` fits, `big` (3 x 3 CPUs) does not, `short` lacks members,
    `lonely` has none."""
    objects = [
        node("n1"),
        node("n2"),
        pod_group("ok", 2),
        gang_pod("ok-0", "ok", cpu="1"),
        gang_pod("ok-1", "ok", cpu="1"),
        pod_group("big", 3),
        *[gang_pod(f"big-{i}", "big", cpu="3") for i in range(3)],
        pod_group("short", 3),
        gang_pod("short-0", "short", cpu="1"),
        pod_group("lonely", 2),
        gang_pod("plain", None, cpu="1"),
    ]
    result, _ = run(objects)
    return result


EXPECTED_ROWS = {
    "ok": {
        "namespace": "default",
        "name": "ok",
        "minMember": 2,
        "phase": "Scheduled",
        "members": {"total": 2, "bound": 2, "waiting": 0, "pending": 0},
        "scheduled": "True",
        "reason": "QuorumReached",
        "message": "2 members passed Permit together",
        "timeToQuorumSeconds": 0.0,
    },
    "big": {
        "namespace": "default",
        "name": "big",
        "minMember": 3,
        "phase": "Scheduling",
        "members": {"total": 3, "bound": 0, "waiting": 0, "pending": 3},
        "scheduled": "False",
        "reason": "Unschedulable",
        "message": "podGroup default/big needs 3 more members placed together; only 2 fit "
        "(pod big-2: 2 Insufficient cpu)",
        "timeToQuorumSeconds": None,
    },
    "short": {
        "namespace": "default",
        "name": "short",
        "minMember": 3,
        "phase": "Pending",
        "members": {"total": 1, "bound": 0, "waiting": 0, "pending": 1},
        "scheduled": None,
        "reason": "",
        "message": "podGroup default/short has 1 of the 3 live, ungated members it needs "
        "(minMember)",
        "timeToQuorumSeconds": None,
    },
    "lonely": {
        "namespace": "default",
        "name": "lonely",
        "minMember": 2,
        "phase": "Pending",
        "members": {"total": 0, "bound": 0, "waiting": 0, "pending": 0},
        "scheduled": None,
        "reason": "",
        "message": "no pods carry the label scheduling.x-k8s.io/pod-group: lonely",
        "timeToQuorumSeconds": None,
    },
}


@pytest.mark.parametrize("name", list(EXPECTED_ROWS))
def test_one_row_per_pod_group(mixed: SimulationResult, name: str) -> None:
    assert rows_by_name(mixed)[name] == EXPECTED_ROWS[name]


def test_rows_are_sorted_and_plain_pods_are_not_groups(mixed: SimulationResult) -> None:
    section = mixed.section(SECTION_KEY)
    assert [row["name"] for row in section.payload] == ["big", "lonely", "ok", "short"]
    assert section.title == "PodGroups"
    assert section.columns == COLUMNS
    assert section.caption == "4 PodGroups, 1 reached their quorum (minMember)"
    assert mixed.pod("plain").status == "Bound"


def test_table_rows_read_as_units(mixed: SimulationResult) -> None:
    rows = {row[0]: row for row in mixed.section(SECTION_KEY).rows}
    assert rows["default/ok"] == (
        "default/ok",
        "2",
        "2 bound",
        "Scheduled",
        "after 0s",
        "QuorumReached: 2 members passed Permit together",
    )
    assert rows["default/big"][2:5] == ("3 pending", "Scheduling", "-")
    assert rows["default/big"][5].startswith("Unschedulable: podGroup default/big needs 3 more")
    assert rows["default/short"][5] == EXPECTED_ROWS["short"]["message"]
    assert rows["default/lonely"][2] == "none"


def test_json_report_carries_the_section(mixed: SimulationResult) -> None:
    data = mixed.to_json_dict()
    assert data["sections"] == {SECTION_KEY: mixed.section(SECTION_KEY).payload}
    # the pods stay as they were: the section is beside them
    assert {p["name"] for p in data["pods"]} >= {"ok-0", "big-0", "short-0", "plain"}


def test_table_report_prints_the_groups_after_the_pods(mixed: SimulationResult) -> None:
    console = Console(width=160, record=True, color_system=None)
    render_result(mixed, console)
    text = console.export_text()
    assert text.index("Pods") < text.index("PodGroups") < text.index("Nodes")
    assert "QuorumReached: 2 members passed Permit together" in text
    assert "4 PodGroups, 1 reached their quorum (minMember)" in text


def test_no_pod_group_no_section() -> None:
    result, sim = run([node("n1"), gang_pod("plain", None, cpu="1")])
    assert result.sections == []
    assert "sections" not in result.to_json_dict()
    assert kubesched_report_sections(cluster=sim.cluster, result=result) == []


def test_waiting_at_permit_when_the_run_stops() -> None:
    """One member is left to another scheduler: the other waits at Permit until the
    group's 10 s deadline; at 5 s the report shows it waiting for the quorum."""
    objects = [
        node("n1"),
        pod_group("half", 2, timeout=10),
        gang_pod("half-0", "half", cpu="1"),
        gang_pod("half-1", "half", cpu="1", scheduler="elsewhere"),
    ]
    result, _ = run(objects, until=5.0)
    row = rows_by_name(result)["half"]
    assert row["members"] == {"total": 2, "bound": 0, "waiting": 1, "pending": 1}
    assert (row["scheduled"], row["reason"]) == ("False", "WaitingForQuorum")
    assert row["message"] == "members wait at Permit for 2 of them to be placed"
    assert result.section(SECTION_KEY).rows[0][2] == "1 waiting, 1 pending"


def test_timed_out_group_says_so() -> None:
    objects = [
        node("n1"),
        pod_group("half", 2, timeout=10),
        gang_pod("half-0", "half", cpu="1"),
        gang_pod("half-1", "half", cpu="1", scheduler="elsewhere"),
    ]
    result, _ = run(objects)
    row = rows_by_name(result)["half"]
    assert row["members"] == {"total": 2, "bound": 0, "waiting": 0, "pending": 2}
    assert (row["scheduled"], row["reason"]) == ("False", "BackingOff")
    assert row["message"] == ("the quorum was not reached within 10s; the group retries together")
    assert row["timeToQuorumSeconds"] is None


def test_time_to_quorum_is_virtual_time_from_the_start_of_scheduling() -> None:
    """The node is full until a pod is deleted at 30 s: the gang reaches its quorum then."""

    async def delete_blocker(cluster: Any) -> None:
        await cluster.delete("Pod", "blocker", "default", grace_period_seconds=0)

    objects = [
        node("n1", cpu="2"),
        make_pod("blocker").req(cpu="2").node("n1").obj(),
        pod_group("late", 2),
        gang_pod("late-0", "late", cpu="1"),
        gang_pod("late-1", "late", cpu="1"),
    ]
    result, _ = run(objects, controllers=[Script((30.0, delete_blocker))])
    row = rows_by_name(result)["late"]
    assert row["timeToQuorumSeconds"] == 30.0
    assert row["members"]["bound"] == 2
    assert result.section(SECTION_KEY).rows[0][4] == "after 30s"


# -- the row builder on hand-made objects ----------------------------------------------


def outcome(name: str, status: Any, message: str = "", namespace: str = "default") -> PodResult:
    node_name = "n1" if status == "Bound" else None
    return PodResult(namespace, name, "default-scheduler", node_name, status, message)


def test_members_are_counted_in_the_group_namespace_only() -> None:
    pg = pod_group("pg", 2, namespace="a")
    mine = gang_pod("w-0", "pg", namespace="a")
    other = gang_pod("w-0", "pg", namespace="b")
    results = {
        ("a", "w-0"): outcome("w-0", "Unschedulable", "no room", "a"),
        ("b", "w-0"): outcome("w-0", "Waiting", "", "b"),
    }
    (report,) = pod_group_reports([pg], [mine, other], results)
    assert (report.total, report.bound, report.waiting, report.pending) == (1, 0, 0, 1)
    assert report.key == "a/pg"
    assert report.message == "no room"


def test_time_to_quorum_counts_from_schedule_start_else_creation() -> None:
    pg = pod_group("pg", 1, created=5)
    reached = PodGroupCondition(
        type="Scheduled",
        status="True",
        reason="QuorumReached",
        message="1 members passed Permit together",
        last_transition_time=EPOCH + timedelta(seconds=47),
    )
    pg.status.conditions = [reached]
    bound = gang_pod("w-0", "pg").model_copy(deep=True)
    bound.spec.node_name = "n1"
    results = {("default", "w-0"): outcome("w-0", "Bound")}

    (from_creation,) = pod_group_reports([pg], [bound], results)
    assert from_creation.time_to_quorum == 42.0

    pg.status.schedule_start_time = EPOCH + timedelta(seconds=40)
    (from_start,) = pod_group_reports([pg], [bound], results)
    assert from_start.time_to_quorum == 7.0
    assert from_start.row()[4] == "after 7s"


def test_a_false_condition_has_no_time_to_quorum() -> None:
    pg = pod_group("pg", 2, created=0)
    pg.status.conditions = [
        PodGroupCondition(
            type="Scheduled",
            status="False",
            reason="Unschedulable",
            message="why",
            last_transition_time=EPOCH + timedelta(seconds=3),
        )
    ]
    (report,) = pod_group_reports([pg], [], {})
    assert report.time_to_quorum is None
    assert (report.scheduled, report.reason, report.message) == ("False", "Unschedulable", "why")
    assert report.row()[5] == "Unschedulable: why"


def test_report_json_and_row_agree() -> None:
    report = PodGroupReport(
        namespace="ml",
        name="g",
        min_member=3,
        total=6,
        bound=3,
        waiting=2,
        phase="",
        scheduled=None,
        reason="",
        message="",
        time_to_quorum=None,
    )
    assert report.pending == 1
    assert report.row() == ["ml/g", "3", "3 bound, 2 waiting, 1 pending", "-", "-", ""]
    assert report.to_json_dict()["members"] == {
        "total": 6,
        "bound": 3,
        "waiting": 2,
        "pending": 1,
    }
