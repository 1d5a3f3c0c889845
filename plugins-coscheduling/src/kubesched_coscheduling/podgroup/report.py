"""The `podGroups` section of `kubesched simulate`'s report: each gang as one unit.

Pods are reported one by one by the core; this section says, per PodGroup, how many of its
members ended bound, waiting at Permit or not placed, the phase the status controller
wrote, and the reason the group is (not) placed: the `Scheduled` condition the plugin
writes (`QuorumReached`, `WaitingForQuorum`, `WaitingForReservation`, `Unschedulable`,
`BackingOff`). A group the plugin never tried has no condition; its row then gives why
its members are held (the first unplaced member's reason, e.g. too few members). Contributed
through the `kubesched_report_sections` hook (`kubesched_coscheduling.hooks`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from kubesched.api import Pod, go_duration
from kubesched.hookspecs import PodResultView, ReportSection, SimulationResultView
from kubesched_coscheduling.names import POD_GROUP_KIND, POD_GROUP_LABEL
from kubesched_coscheduling.podgroup.types import CONDITION_SCHEDULED, PodGroup, group_key

__all__ = ["COLUMNS", "SECTION_KEY", "PodGroupReport", "pod_group_reports", "report_section"]

SECTION_KEY: Final = "podGroups"
"""The section's key: `"sections": {"podGroups": [...]}` in the JSON report."""

COLUMNS: Final = ("PodGroup", "Min", "Members", "Phase", "Quorum", "Reason")
"""The table's columns: few, so the reason keeps room in an 80-column terminal. Min is
minMember; Members reads `2 bound, 1 waiting, 1 pending` (the parts that are not zero);
Quorum is the time to quorum (`after 12s`, `-` when not reached); Reason is the
`Scheduled` condition's `reason: message`."""


@dataclass(frozen=True)
class PodGroupReport:
    """What the report says about one PodGroup."""

    namespace: str
    name: str
    min_member: int
    total: int
    """Member pods (the label, in the PodGroup's namespace), finished ones included."""
    bound: int
    """Members bound to a node."""
    waiting: int
    """Members waiting at Permit when the simulation ended."""
    phase: str
    scheduled: str | None
    """The `Scheduled` condition's status ("True"/"False"), None without one."""
    reason: str
    """The condition's reason ("" without one)."""
    message: str
    """The condition's message; without one, why the first unplaced member is held."""
    time_to_quorum: float | None
    """Seconds (virtual time, whole seconds as timestamps are) from the group's
    `scheduleStartTime` (or its creation) to `QuorumReached`; None when not reached."""

    @property
    def pending(self) -> int:
        """Members neither bound nor waiting at Permit."""
        return self.total - self.bound - self.waiting

    @property
    def key(self) -> str:
        return group_key(self.namespace, self.name)

    def row(self) -> list[str]:
        ttq = "-" if self.time_to_quorum is None else f"after {go_duration(self.time_to_quorum)}"
        parts = [
            f"{n} {what}"
            for n, what in (
                (self.bound, "bound"),
                (self.waiting, "waiting"),
                (self.pending, "pending"),
            )
            if n
        ]
        reason = f"{self.reason}: {self.message}" if self.reason else self.message
        return [
            self.key,
            str(self.min_member),
            ", ".join(parts) or "none",
            self.phase or "-",
            ttq,
            reason,
        ]

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "minMember": self.min_member,
            "phase": self.phase,
            "members": {
                "total": self.total,
                "bound": self.bound,
                "waiting": self.waiting,
                "pending": self.pending,
            },
            "scheduled": self.scheduled,
            "reason": self.reason,
            "message": self.message,
            "timeToQuorumSeconds": self.time_to_quorum,
        }


def pod_group_reports(
    pod_groups: Iterable[PodGroup],
    pods: Iterable[Pod],
    outcomes: Mapping[tuple[str, str], PodResultView],
) -> list[PodGroupReport]:
    """One report per PodGroup, by `namespace/name`; `outcomes` maps (namespace, name)
    of each pod to its simulation result (members without one count as pending)."""
    members: dict[str, list[Pod]] = {}
    for pod in pods:
        group = pod.metadata.labels.get(POD_GROUP_LABEL, "")
        if group:
            members.setdefault(group_key(pod.metadata.namespace or "default", group), []).append(
                pod
            )
    reports = [_report(pg, members.get(pg.key, []), outcomes) for pg in pod_groups]
    reports.sort(key=lambda r: (r.namespace, r.name))
    return reports


def _report(
    pg: PodGroup, pods: list[Pod], outcomes: Mapping[tuple[str, str], PodResultView]
) -> PodGroupReport:
    namespace = pg.metadata.namespace or "default"
    bound = waiting = 0
    held = ""
    for pod in sorted(pods, key=lambda p: p.metadata.name):
        outcome = outcomes.get((namespace, pod.metadata.name))
        if pod.spec.node_name:
            bound += 1
        elif outcome is not None and outcome.status == "Waiting":
            waiting += 1
        elif not held and outcome is not None:
            held = outcome.message
    condition = pg.status.condition(CONDITION_SCHEDULED)
    if condition is not None:
        scheduled: str | None = condition.status
        reason, message = condition.reason, condition.message
    else:
        scheduled, reason = None, ""
        message = held or (
            "" if pods else f"no pods carry the label {POD_GROUP_LABEL}: {pg.metadata.name}"
        )
    ttq: float | None = None
    if condition is not None and condition.status == "True":
        start = pg.status.schedule_start_time or pg.metadata.creation_timestamp
        ttq = _seconds_between(start, condition.last_transition_time)
    return PodGroupReport(
        namespace=namespace,
        name=pg.metadata.name,
        min_member=pg.spec.min_member,
        total=len(pods),
        bound=bound,
        waiting=waiting,
        phase=pg.status.phase,
        scheduled=scheduled,
        reason=reason,
        message=message,
        time_to_quorum=ttq,
    )


def _seconds_between(start: datetime | None, end: datetime | None) -> float | None:
    if start is None or end is None:
        return None
    return max(0.0, (end - start).total_seconds())


def report_section(cluster: Any, result: SimulationResultView) -> ReportSection | None:
    """The `podGroups` section for a finished simulation; None when it has no PodGroup."""
    pod_groups: list[PodGroup] = list(cluster.list(POD_GROUP_KIND))
    if not pod_groups:
        return None
    outcomes = {(p.namespace, p.name): p for p in result.pods}
    reports = pod_group_reports(pod_groups, cluster.list("Pod"), outcomes)
    reached = sum(1 for r in reports if r.scheduled == "True")
    groups = "1 PodGroup" if len(reports) == 1 else f"{len(reports)} PodGroups"
    return ReportSection(
        key=SECTION_KEY,
        title="PodGroups",
        columns=COLUMNS,
        rows=[r.row() for r in reports],
        payload=[r.to_json_dict() for r in reports],
        caption=f"{groups}, {reached} reached their quorum (minMember)",
    )
