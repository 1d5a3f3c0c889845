"""What happens to a PodGroup as a whole: its quorum is reached, an attempt fails, its
backoff ends, a parked group may try again.

Upstream (scheduler-plugins pkg/coscheduling/coscheduling.go) reaches the quorum in Permit
(`IterateOverWaitingPods` + `Allow`) and fails a group in PostFilter and Unreserve
(`Reject` of every waiting sibling, then `AddToDenyCache` for the group backoff). kubesched
does the same from one place, so that every path (PostFilter, Unreserve, a member lost, the
PodGroup changed or deleted, a member bound by another scheduler) leaves the group's state,
its reservation slot, its backoff timer and its `Scheduled` condition consistent.
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.clock import Clock
from kubesched.framework import Handle
from kubesched_coscheduling.coscheduling.args import CoschedulingArgs, group_backoff_seconds
from kubesched_coscheduling.coscheduling.conditions import (
    BACKING_OFF,
    QUORUM_REACHED,
    ConditionWriter,
)
from kubesched_coscheduling.coscheduling.groups import GroupState, GroupTable
from kubesched_coscheduling.coscheduling.quorum import GroupMembers
from kubesched_coscheduling.podgroup import PodGroup

__all__ = ["GroupOutcomes"]


class GroupOutcomes:
    """Group-wide transitions of one profile's plugin."""

    def __init__(
        self,
        plugin_name: str,
        cfg: CoschedulingArgs,
        handle: Handle,
        clock: Clock,
        members: GroupMembers,
        writer: ConditionWriter,
    ) -> None:
        self._name = plugin_name
        self._cfg = cfg
        self._handle = handle
        self._clock = clock
        self._members = members
        self._writer = writer
        self.groups = GroupTable(
            clock,
            cfg.max_waiting_pod_groups,
            self.wake_group,
            f"coscheduling-backoff/{handle.profile_name}",
        )

    def reach_quorum(self, key: str, group: GroupState, pg: PodGroup) -> None:
        """Let every waiting member through, forget past failures, free the group's slot
        (waking the groups that waited for one) and write `Scheduled=True`."""
        for wp in self._members.waiting(key):
            if self._name in wp.get_pending_plugins():
                self._members.let_through(key, wp.pod)
                wp.allow(self._name)
        group.holding = False
        group.deadline = None
        group.failures = 0
        group.backoff_until = None
        group.last_failure = None
        group.cause = ""
        group.plan = None
        group.parked = False
        self.groups.cancel_wakeup(group)
        self.activate_groups(self.groups.release(key))
        self._writer.write(
            key, "True", QUORUM_REACHED, f"{pg.spec.min_member} members passed Permit together"
        )

    def fail_group(self, key: str, reject_message: str, cause: str, park: bool = False) -> None:
        """Reject the waiting members; a group that held any backs off (doubling) and,
        when `park`, waits for its members or its PodGroup to change."""
        group = self.groups.get(key)
        now = self._clock.now()
        for wp in self._members.waiting(key):
            if wp.reject(self._name, reject_message):
                self._members.rejected.add(wp.pod.metadata.uid)
        if group.holding:
            # the attempt held resources and failed: its plan is spent, the group waits;
            # what it releases is a change for other groups, not for itself
            group.failures += 1
            delay = group_backoff_seconds(self._cfg, group.failures)
            group.backoff_until = now + delay
            group.plan = None
            group.parked = park
            self.groups.changes += 1
            group.changes_at_attempt = self.groups.changes
            self.groups.schedule_wakeup(key, group)
            self._writer.write(key, "False", BACKING_OFF, f"{cause}; the group retries together")
        group.last_failure = now
        group.cause = cause
        group.holding = False
        group.deadline = None
        group.permitted_until = None
        self.activate_groups(self.groups.release(key))

    def reject_all(self, key: str, message: str) -> None:
        """Reject the group's waiting members without judging the group (its PodGroup was
        deleted)."""
        for wp in self._members.waiting(key):
            if wp.reject(self._name, message):
                self._members.rejected.add(wp.pod.metadata.uid)

    def wake_group(self, key: str) -> None:
        """The group's backoff ended: try its pending members again, together (a parked
        group waits for its members or its PodGroup to change)."""
        group = self.groups.peek(key)
        if group is not None and not group.parked:
            self.activate_groups([key])

    def unpark(self, key: str) -> None:
        """Something changed for a parked group: it may try again (after its backoff)."""
        group = self.groups.peek(key)
        if group is None or not group.parked:
            return
        group.parked = False
        if not group.backing_off(self._clock.now()):
            self.activate_groups([key])

    def activate_groups(self, keys: Sequence[str]) -> None:
        """Move the pending members of these groups to the active queue."""
        pods = [p for key in keys for p in self._members.pending(key)]
        if pods:
            self._handle.activate(pods)
