"""Gang-aware preemption, as a victim: a running group never falls below its quorum.

Upstream scheduler-plugins has nothing of the kind: DefaultPreemption evicts members one by
one and may leave a bound gang below `minMember`. kubesched's Coscheduling is a
`kubesched.framework.PreemptionVictimGuard`, which DefaultPreemption consults on every
node of its dry run. The rule is Volcano's gang plugin (pkg/scheduler/plugins/gang/gang.go,
`preemptableFn`): going through the node's victims least important first, a member is a
victim only while its group keeps more than `minMember` members, counting each victim
allowed as gone; the others are protected. So a group at exactly `minMember` loses none, a
group above it gives up its surplus members only, the least important first.

What counts is the members that hold a node past Permit: bound in the cluster and live
(not finished, not being deleted, not marked `DisruptionTarget` by a preemption) or let
through Permit with their binding in flight; minus the victims a preemption already chose
(`victims_chosen`: evictions run in a task, so the next preemptor's cycle may still see
them bound; they are forgotten once the cluster shows them gone). Members waiting at
Permit are not protected: the group is not running yet, and evicting one rejects its
waiting siblings together (Unreserve), so nothing partial is left; the same goes for
members of another profile not bound yet, and for pods whose PodGroup does not exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from kubesched.api import Pod
from kubesched.framework import NodeInfo, PodInfo
from kubesched_coscheduling.coscheduling.quorum import GroupMembers
from kubesched_coscheduling.podgroup import pod_group_key

__all__ = ["DISRUPTION_TARGET", "GangVictimGuard", "protection_reason"]

DISRUPTION_TARGET: Final = "DisruptionTarget"
"""The pod condition a preempting scheduler sets before deleting a victim (k8s.io/api
core/v1 DisruptionTarget)."""


def protection_reason(key: str, min_member: int) -> str:
    """The node status reason when a group's members are why a preemption cannot help."""
    return (
        f"node(s) had members of podGroup {key}, which would fall below minMember "
        f"{min_member} if preempted"
    )


def _being_disrupted(pod: Pod) -> bool:
    condition = pod.status.condition(DISRUPTION_TARGET)
    return condition is not None and condition.status == "True"


class GangVictimGuard:
    """Which of a node's would-be victims the groups' quorums protect."""

    def __init__(self, members: GroupMembers) -> None:
        self._members = members

    def running(self, key: str) -> set[str]:
        """UIDs of the group's members past Permit that hold a node: bound and live, not
        already being preempted, or let through Permit and still binding."""
        uids = {
            p.metadata.uid
            for p in self._members.live(key)
            if p.spec.node_name and not _being_disrupted(p)
        }
        uids.update(uid for uid, (group, _) in self._members.passed.items() if group == key)
        return uids - self._members.evicting

    def protected_victims(
        self, preemptor: Pod, node_info: NodeInfo, victims: Sequence[PodInfo]
    ) -> dict[str, str]:
        """Victim UID -> reason for the members that must stay (see the module's rule);
        `victims` come least important first, and every one not protected is counted as
        evicted."""
        protected: dict[str, str] = {}
        groups: dict[str, tuple[set[str], int] | None] = {}
        left: dict[str, int] = {}
        for info in victims:
            key = pod_group_key(info.pod)
            if not key:
                continue
            if key not in groups:
                pg = self._members.pod_group(key)
                holding = self.running(key) if pg is not None else set()
                groups[key] = (holding, pg.spec.min_member) if pg is not None else None
                left[key] = len(holding)
            group = groups[key]
            uid = info.pod.metadata.uid
            if group is None or uid not in group[0]:
                continue  # not holding the group's quorum: evicting it takes nothing away
            minimum = group[1]
            if left[key] > minimum:
                left[key] -= 1
            else:
                protected[uid] = protection_reason(key, minimum)
        return protected

    def victims_chosen(self, preemptor: Pod, node_name: str, victims: Sequence[Pod]) -> None:
        """Count these members as gone until the cluster shows them gone (those that
        count toward a quorum: a member waiting at Permit is rejected, not deleted)."""
        running: dict[str, set[str]] = {}
        for pod in victims:
            key = pod_group_key(pod)
            if not key:
                continue
            if key not in running:
                running[key] = self.running(key)
            if pod.metadata.uid in running[key]:
                self._members.evicting.add(pod.metadata.uid)
