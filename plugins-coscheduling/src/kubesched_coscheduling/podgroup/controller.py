"""The PodGroup status controller: phase and member counts, for the embedded cluster.

Upstream: scheduler-plugins pkg/controllers/podgroup_controller.go. Contributed through the
`kubesched_cluster_controllers` hook, it watches PodGroups and Pods and writes each group's
`status` (phase, scheduled/running/succeeded/failed, scheduleStartTime, occupiedBy).

Differences from upstream (see the package README):

- members are counted in the PodGroup's own namespace (upstream lists pods of every
  namespace, so same-named groups pollute each other);
- every reconcile recomputes the phase from the counts, `Pending -> Scheduling ->
  Scheduled -> Running -> Finished`; `Finished` is terminal, `Failed` is not: it holds
  while the members that did not fail are fewer than minMember, and a replacement member
  brings the group back (upstream: one failed pod fails the group forever);
- `scheduled` counts members bound to a node and the `Scheduled` phase is used (both
  were removed upstream); `scheduleStartTime` is written (upstream never writes it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from kubesched.api import Pod
from kubesched.cluster import Cluster, WatchEvent
from kubesched_coscheduling.names import POD_GROUP_KIND
from kubesched_coscheduling.podgroup.members import MemberCounts, MemberIndex
from kubesched_coscheduling.podgroup.status import update_status
from kubesched_coscheduling.podgroup.types import (
    PHASE_FAILED,
    PHASE_FINISHED,
    PHASE_PENDING,
    PHASE_RUNNING,
    PHASE_SCHEDULED,
    PHASE_SCHEDULING,
    PodGroup,
    PodGroupStatus,
)

__all__ = ["CONTROLLER_NAME", "PodGroupController", "compute_status"]

CONTROLLER_NAME: Final = "podgroup-status"


def compute_status(
    pod_group: PodGroup,
    members: Sequence[Pod] | MemberCounts,
    now: datetime,
    first: Callable[[], Pod | None] | None = None,
) -> PodGroupStatus:
    """The status `pod_group` should have given its members (all phases, same namespace),
    given as pods or as their counts (then `first()` names the member whose owners fill
    `occupiedBy`)."""
    status = pod_group.status.model_copy(deep=True)
    if status.phase == PHASE_FINISHED:
        return status
    if isinstance(members, MemberCounts):
        counts = members
    else:
        counts = MemberCounts.of(members)
        pods = list(members)
        first = first or (lambda: pods[0] if pods else None)
    minimum = pod_group.spec.min_member
    running, succeeded, failed = counts.running, counts.succeeded, counts.failed

    if succeeded >= minimum:
        phase = PHASE_FINISHED
    elif failed and counts.total - failed < minimum:
        phase = PHASE_FAILED
    elif running + succeeded >= minimum:
        phase = PHASE_RUNNING
    elif counts.bound_not_failed >= minimum:
        phase = PHASE_SCHEDULED
    elif counts.ungated_not_failed >= minimum:
        phase = PHASE_SCHEDULING
    else:
        phase = PHASE_PENDING

    leaving_pending = status.phase in ("", PHASE_PENDING) and phase != PHASE_PENDING
    status.phase = phase
    status.scheduled = counts.scheduled
    status.running, status.succeeded, status.failed = running, succeeded, failed
    if phase != PHASE_PENDING and status.schedule_start_time is None:
        status.schedule_start_time = now
    if counts.total and (leaving_pending or not status.occupied_by) and first is not None:
        pod = first()
        if pod is not None:
            # upstream fills it as the group leaves Pending
            status.occupied_by = _occupied_by(pod) or status.occupied_by
    return status


def _occupied_by(pod: Pod) -> str:
    # upstream fillOccupiedObj: the first member's owners, `namespace/name`, sorted
    ns = pod.metadata.namespace or "default"
    refs = sorted(f"{ns}/{ref.name}" for ref in pod.metadata.owner_references)
    return ",".join(refs)


class PodGroupController:
    """Keeps every PodGroup's status in step with its members."""

    name: str = CONTROLLER_NAME

    def __init__(self) -> None:
        self._cluster: Any = None
        self._index = MemberIndex()
        self._dirty: dict[str, None] = {}
        self._scheduled = False
        self._tasks: set[asyncio.Task[bool]] = set()

    def start(self, cluster: Cluster) -> None:
        self._cluster = cluster
        cluster.watch(POD_GROUP_KIND, self._on_pod_group)
        cluster.watch("Pod", self._on_pod)

    def busy(self) -> bool:
        return bool(self._dirty) or bool(self._tasks)

    # -- events -------------------------------------------------------------------------
    def _on_pod(self, event: WatchEvent) -> None:
        before, after = self._index.apply(event)
        self._mark(before)
        self._mark(after)

    def _on_pod_group(self, event: WatchEvent) -> None:
        if event.type != "DELETED":
            pg: PodGroup = event.obj
            self._mark(pg.key)

    def _mark(self, key: str) -> None:
        if not key:
            return
        self._dirty[key] = None
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._reconcile)

    # -- reconcile ----------------------------------------------------------------------
    def _reconcile(self) -> None:
        self._scheduled = False
        keys, self._dirty = list(self._dirty), {}
        loop = asyncio.get_running_loop()
        for key in keys:
            namespace, _, name = key.partition("/")
            task = loop.create_task(
                update_status(self._cluster, namespace, name, self._status_for(key))
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _status_for(self, key: str) -> Any:
        def change(current: PodGroup) -> PodGroupStatus:
            counts = self._index.counts(key)
            return compute_status(current, counts, self._now(), lambda: self._index.first(key))

        return change

    def _now(self) -> datetime:
        clock = getattr(self._cluster, "clock", None)
        if clock is not None:
            now: datetime = clock.wall_time()
            return now
        return datetime.now(UTC).replace(microsecond=0)
