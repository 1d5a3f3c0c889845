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
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

from kubesched.api import Pod
from kubesched.cluster import Cluster, WatchEvent
from kubesched_coscheduling.names import POD_GROUP_KIND
from kubesched_coscheduling.podgroup.members import MemberIndex, is_ungated
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


def compute_status(pod_group: PodGroup, members: Sequence[Pod], now: datetime) -> PodGroupStatus:
    """The status `pod_group` should have given its members (all phases, same namespace)."""
    status = pod_group.status.model_copy(deep=True)
    if status.phase == PHASE_FINISHED:
        return status
    minimum = pod_group.spec.min_member
    running = sum(1 for p in members if p.status.phase == "Running")
    succeeded = sum(1 for p in members if p.status.phase == "Succeeded")
    failed = sum(1 for p in members if p.status.phase == "Failed")
    not_failed = [p for p in members if p.status.phase != "Failed"]
    bound = sum(1 for p in not_failed if p.spec.node_name)
    schedulable = sum(1 for p in not_failed if is_ungated(p))

    if succeeded >= minimum:
        phase = PHASE_FINISHED
    elif failed and len(not_failed) < minimum:
        phase = PHASE_FAILED
    elif running + succeeded >= minimum:
        phase = PHASE_RUNNING
    elif bound >= minimum:
        phase = PHASE_SCHEDULED
    elif schedulable >= minimum:
        phase = PHASE_SCHEDULING
    else:
        phase = PHASE_PENDING

    leaving_pending = status.phase in ("", PHASE_PENDING) and phase != PHASE_PENDING
    status.phase = phase
    status.scheduled = sum(1 for p in members if p.spec.node_name)
    status.running, status.succeeded, status.failed = running, succeeded, failed
    if phase != PHASE_PENDING and status.schedule_start_time is None:
        status.schedule_start_time = now
    if members and (leaving_pending or not status.occupied_by):
        # upstream fills it as the group leaves Pending
        status.occupied_by = _occupied_by(members[0]) or status.occupied_by
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
            return compute_status(current, self._index.members(key), self._now())

        return change

    def _now(self) -> datetime:
        clock = getattr(self._cluster, "clock", None)
        if clock is not None:
            now: datetime = clock.wall_time()
            return now
        return datetime.now(UTC).replace(microsecond=0)
