"""The PodGroup status controller.

Phase table after scheduler-plugins pkg/controllers/podgroup_controller_test.go (Test_Run,
TestFillGroupStatusOccupied); then end to end in the embedded cluster with a fake kubelet
that runs bound pods: the phases a gang goes through, Failed and its recovery, and
namespace scoping (upstream counts pods of every namespace).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from cosched_helpers import (
    FakeKubelet,
    Script,
    check_invariants,
    gang_pod,
    pod_group,
    run,
    set_phase,
)

from kubesched.api import OwnerReference, Pod
from kubesched.testing import make_node
from kubesched_coscheduling import PodGroup
from kubesched_coscheduling.podgroup import compute_status

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def pods(names: list[str], phase: str, owners: Sequence[str] = ()) -> list[Pod]:
    out = []
    for name in names:
        pod = gang_pod(name, "pg")
        pod.status.phase = phase
        pod.metadata.owner_references = [OwnerReference(name=o) for o in owners]
        out.append(pod)
    return out


def group(min_member: int, phase: str, occupied: str = "test") -> PodGroup:
    pg = pod_group("pg", min_member)
    pg.status.phase = phase
    pg.status.occupied_by = occupied
    return pg


# (name, minMember, pod names, pod phase, previous group phase, wanted phase)
RUN_CASES = [
    ("Group running", 2, ["pod1", "pod2"], "Running", "Scheduling", "Running"),
    (
        "Group running, more than min member",
        2,
        ["pod11", "pod21", "pod31", "pod41"],
        "Running",
        "Scheduling",
        "Running",
    ),
    ("Group failed", 2, ["pod1", "pod2"], "Failed", "Scheduling", "Failed"),
    ("Group finished", 2, ["pod1", "pod2"], "Succeeded", "Scheduling", "Finished"),
    (
        "Group status convert from pending to prescheduling",
        2,
        ["pod1", "pod2"],
        "Pending",
        "Pending",
        "Scheduling",
    ),
    (
        "Group status convert from scheduling to finished",
        2,
        ["pod1", "pod2"],
        "Succeeded",
        "Scheduling",
        "Finished",
    ),
    ("Group status keeps pending", 3, ["pod1", "pod2"], "Running", "Pending", "Pending"),
    (
        "Group status convert from pending to finished",
        2,
        ["pod1", "pod2"],
        "Succeeded",
        "Pending",
        "Finished",
    ),
    (
        "Group min member more than Pod number",
        3,
        ["pod91", "pod92"],
        "Pending",
        "Pending",
        "Pending",
    ),
    (
        "Group status convert from running to pending",
        4,
        ["pod101", "pod102"],
        "Pending",
        "Running",
        "Pending",
    ),
    # upstream's "created too long" case is left out: kubesched keeps no 48-hour guard
]


@pytest.mark.parametrize(
    ("min_member", "names", "pod_phase", "previous", "want"),
    [c[1:] for c in RUN_CASES],
    ids=[c[0] for c in RUN_CASES],
)
def test_phase(min_member: int, names: list[str], pod_phase: str, previous: str, want: str) -> None:
    status = compute_status(group(min_member, previous), pods(names, pod_phase), NOW)
    assert status.phase == want


@pytest.mark.parametrize(
    ("owners", "want"),
    [
        (["new-occupied"], "default/new-occupied"),
        (["new-occupied-2", "new-occupied-1"], "default/new-occupied-1,default/new-occupied-2"),
    ],
)
def test_fill_group_status_occupied(owners: list[str], want: str) -> None:
    status = compute_status(group(2, "Pending"), pods(["pod1", "pod2"], "Pending", owners), NOW)
    assert status.occupied_by == want


def test_counts_scheduled_phase_and_start_time() -> None:
    members = pods(["a", "b", "c"], "Pending")
    for p in members[:2]:
        p.spec.node_name = "n1"
    members[0].status.phase = "Running"
    status = compute_status(group(2, ""), members, NOW)
    assert (status.phase, status.scheduled, status.running) == ("Scheduled", 2, 1)
    assert status.schedule_start_time == NOW


def test_finished_is_terminal_and_failed_is_not() -> None:
    done = group(2, "Finished")
    assert compute_status(done, pods(["a", "b"], "Failed"), NOW).phase == "Finished"
    members = pods(["a", "b", "c"], "Running")
    members[0].status.phase = "Failed"
    # two of three still run with minMember 2: one failure does not fail the group
    assert compute_status(group(2, "Running"), members, NOW).phase == "Running"
    assert compute_status(group(3, "Running"), members, NOW).phase == "Failed"


# -- end to end ------------------------------------------------------------------------


class PhaseLog:
    """Records each PodGroup's phases in the order they were written."""

    name = "test-phase-log"

    def __init__(self) -> None:
        self.phases: dict[str, list[str]] = {}

    def start(self, cluster: Any) -> None:
        cluster.watch("PodGroup", self._on)

    def _on(self, ev: Any) -> None:
        pg = ev.obj
        seen = self.phases.setdefault(pg.key, [])
        if ev.type != "DELETED" and pg.status.phase and (not seen or seen[-1] != pg.status.phase):
            seen.append(pg.status.phase)

    def busy(self) -> bool:
        return False


def node(name: str = "n1", cpu: str = "8") -> Any:
    return make_node(name).alloc(cpu=cpu, memory="16Gi", pods=20).obj()


def test_a_gang_goes_from_pending_to_finished() -> None:
    log = PhaseLog()

    async def third_member(cluster: Any) -> None:
        await cluster.create(gang_pod("w-2", "pg", cpu="1"))

    objects = [
        node(),
        pod_group("pg", 3),
        gang_pod("w-0", "pg", cpu="1"),
        gang_pod("w-1", "pg", cpu="1"),
    ]
    result, sim = run(
        objects, controllers=[log, Script((5.0, third_member)), FakeKubelet(start=1.0, run=4.0)]
    )
    assert log.phases["default/pg"] == [
        "Pending",
        "Scheduling",
        "Scheduled",
        "Running",
        "Finished",
    ]
    pg = sim.cluster.get("PodGroup", "pg", "default")
    assert (pg.status.scheduled, pg.status.succeeded, pg.status.running) == (3, 3, 0)
    assert pg.status.schedule_start_time == datetime(2026, 1, 1, 0, 0, 5, tzinfo=UTC)
    assert result.virtual_seconds == pytest.approx(10.0)
    check_invariants(sim)


def test_a_failed_member_fails_the_group_until_a_replacement_runs() -> None:
    log = PhaseLog()

    async def fail_one(cluster: Any) -> None:
        await set_phase(cluster, "w-0", "Failed")

    async def replace(cluster: Any) -> None:
        await cluster.create(gang_pod("w-2", "pg", cpu="1"))

    objects = [
        node(),
        pod_group("pg", 2),
        gang_pod("w-0", "pg", cpu="1"),
        gang_pod("w-1", "pg", cpu="1"),
    ]
    _, sim = run(
        objects,
        controllers=[log, FakeKubelet(start=1.0), Script((5.0, fail_one), (8.0, replace))],
    )
    assert log.phases["default/pg"] == [
        "Scheduling",
        "Scheduled",
        "Running",
        "Failed",
        # the replacement brings the group back through its phases
        "Scheduling",
        "Scheduled",
        "Running",
    ]
    pg = sim.cluster.get("PodGroup", "pg", "default")
    assert (pg.status.running, pg.status.failed, pg.status.scheduled) == (2, 1, 3)


def test_members_are_counted_in_the_group_namespace_only() -> None:
    objects = [
        node(),
        pod_group("pg", 2, namespace="a"),
        pod_group("pg", 2, namespace="b"),
        gang_pod("w-0", "pg", namespace="a", cpu="1"),
        gang_pod("w-1", "pg", namespace="a", cpu="1"),
    ]
    _, sim = run(objects)
    a = sim.cluster.get("PodGroup", "pg", "a")
    b = sim.cluster.get("PodGroup", "pg", "b")
    assert (a.status.phase, a.status.scheduled) == ("Scheduled", 2)
    assert (b.status.phase, b.status.scheduled) == ("Pending", 0)
