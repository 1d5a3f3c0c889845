"""The plugin's reaction to cluster changes (Pod, PodGroup and Node watch events).

Upstream reacts only through the scheduling queue (events re-queue rejected members; a
waiting member is rejected at its timeout). kubesched also acts at once (README,
differences 5 and 6): a group that can no longer reach its quorum (a member deleted or
finished, the PodGroup deleted, `minMember` raised above the live members) has its waiting
members rejected now; a group that now reaches it (a member bound by another scheduler,
`minMember` lowered) has them let through now; members held at PreEnqueue are woken when
a new or ungated member completes the group; a parked group is unparked when its members
or its PodGroup change. Every change that could alter an outcome is counted in
`GroupTable.changes` (what keeps a simulation from ending while a retry could help).
"""

from __future__ import annotations

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched_coscheduling.coscheduling import hints
from kubesched_coscheduling.coscheduling.conditions import ConditionWriter
from kubesched_coscheduling.coscheduling.outcomes import GroupOutcomes
from kubesched_coscheduling.coscheduling.quorum import GroupMembers
from kubesched_coscheduling.podgroup import PodGroup, is_live, pod_group_key

__all__ = ["ClusterWatch"]


class ClusterWatch:
    """Watch handlers of one profile's plugin (`on_pod`, `on_pod_group`, `on_node`)."""

    def __init__(
        self, members: GroupMembers, outcomes: GroupOutcomes, writer: ConditionWriter
    ) -> None:
        self._members = members
        self._outcomes = outcomes
        self._groups = outcomes.groups
        self._writer = writer

    # -- pods ---------------------------------------------------------------------------
    def on_pod(self, event: WatchEvent) -> None:
        pod: Pod = event.obj
        meaningful = hints.meaningful_pod_change(event)
        if meaningful:
            self._groups.changes += 1
        new_key = pod_group_key(pod) if event.type != "DELETED" else ""
        ready_before = self._members.ready_count(new_key) if new_key else 0
        before, after = self._members.apply(event)
        if meaningful:
            for key in {before, after} - {""}:
                self._outcomes.unpark(key)
        gone = event.type == "DELETED" or not is_live(pod)
        if before and (before != after or gone):
            self._member_lost(before, pod)
        if after:
            self._member_gained(after, ready_before)
            was = event.old if event.type == "MODIFIED" else None
            if not gone and pod.spec.node_name and (was is None or not was.spec.node_name):
                self._member_bound(after)

    def _member_lost(self, key: str, pod: Pod) -> None:
        """A member left: when the group holds members and can no longer reach its quorum,
        reject them now rather than at their timeout."""
        group = self._groups.peek(key)
        pg = self._members.pod_group(key)
        if group is None or pg is None:
            return
        group.plan = None
        live = self._members.live_count(key)
        if group.holding and live < pg.spec.min_member:
            message = (
                f"podGroup {key} lost member {pod.metadata.name}: {live} live members "
                f"left, minMember {pg.spec.min_member}"
            )
            self._outcomes.fail_group(key, message, message)

    def _member_gained(self, key: str, ready_before: int) -> None:
        """When a new or ungated member brings the group to minMember, wake its members
        held at PreEnqueue (core sends no event for an unscheduled pod's arrival)."""
        pg = self._members.pod_group(key)
        if pg is None:
            return
        if ready_before < pg.spec.min_member <= self._members.ready_count(key):
            self._outcomes.activate_groups([key])

    def _member_bound(self, key: str) -> None:
        """A member was bound (by this scheduler, or by another one): if the group has
        members waiting and now reaches its quorum, let them go at once."""
        group = self._groups.peek(key)
        if group is None or not group.holding:
            return
        pg = self._members.pod_group(key)
        if (
            pg is not None
            and len(self._members.assigned(key, snapshot=False)) >= pg.spec.min_member
        ):
            self._outcomes.reach_quorum(key, group, pg)

    # -- pod groups ---------------------------------------------------------------------
    def on_pod_group(self, event: WatchEvent) -> None:
        pg: PodGroup = event.obj
        key = pg.key
        if event.type != "MODIFIED" or event.old.spec != pg.spec:
            self._groups.changes += 1
        if event.type == "DELETED":
            self._outcomes.reject_all(key, f"podGroup {key} was deleted")
            self._outcomes.activate_groups(self._groups.drop(key))
            self._writer.forget(key)
            return
        group = self._groups.peek(key)
        if event.type != "MODIFIED" or event.old.spec == pg.spec or group is None:
            return
        group.plan = None
        group.permitted_until = None
        self._outcomes.unpark(key)
        if not group.holding:
            return
        minimum = pg.spec.min_member
        live = self._members.live_count(key)
        if live < minimum:
            message = f"podGroup {key} now needs {minimum} members; {live} live members exist"
            self._outcomes.fail_group(key, message, message)
        elif len(self._members.assigned(key, snapshot=False)) >= minimum:
            self._outcomes.reach_quorum(key, group, pg)

    # -- nodes --------------------------------------------------------------------------
    def on_node(self, event: WatchEvent) -> None:
        self._groups.changes += 1
