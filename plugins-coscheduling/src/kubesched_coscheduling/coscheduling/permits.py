"""The Permit barrier and its undoing in Unreserve.

Upstream: scheduler-plugins pkg/coscheduling/coscheduling.go (Permit, Unreserve) and
core/core.go (Permit's `assigned + 1 >= minMember`, the wait time). A member that
completes the quorum passes and lets its waiting siblings through; any other waits until
the group's deadline: one per group (kubesched), from its first waiter's Permit plus
`scheduleTimeoutSeconds` (or `permitWaitingTimeSeconds`). When a reserved member fails
(Permit rejection or timeout, PreBind, Bind), Unreserve rejects its waiting siblings and
the group backs off; a group that timed out because only members this profile cannot
place were missing is parked (it retries when its members or its PodGroup change).
"""

from __future__ import annotations

from typing import Final

from kubesched.api import Pod, go_duration
from kubesched.clock import Clock
from kubesched.framework import CycleState, Handle, Status
from kubesched_coscheduling.coscheduling.args import CoschedulingArgs
from kubesched_coscheduling.coscheduling.conditions import WAITING_FOR_QUORUM, ConditionWriter
from kubesched_coscheduling.coscheduling.outcomes import GroupOutcomes
from kubesched_coscheduling.coscheduling.quorum import GroupMembers
from kubesched_coscheduling.podgroup import is_ungated, pod_group_key, wait_seconds

__all__ = ["PODS_TO_ACTIVATE_KEY", "PermitGate"]

PODS_TO_ACTIVATE_KEY: Final = "kubernetes.io/pods-to-activate"


class PermitGate:
    """Permit and Unreserve of one profile's plugin."""

    def __init__(
        self,
        cfg: CoschedulingArgs,
        handle: Handle,
        clock: Clock,
        members: GroupMembers,
        outcomes: GroupOutcomes,
        writer: ConditionWriter,
    ) -> None:
        self._cfg = cfg
        self._handle = handle
        self._clock = clock
        self._members = members
        self._outcomes = outcomes
        self._groups = outcomes.groups
        self._writer = writer

    def permit(self, state: CycleState, pod: Pod) -> tuple[Status | None, float]:
        """Success once this pod completes the quorum (its waiting siblings go with it);
        otherwise Wait until the group's deadline (its first waiter's Permit + timeout)."""
        key = pod_group_key(pod)
        if not key:
            return None, 0.0
        pg = self._members.pod_group(key)
        if pg is None:
            return Status.unschedulable("PodGroup not found"), 0.0
        group = self._groups.get(key)
        now = self._clock.now()
        uid = pod.metadata.uid
        assigned = self._members.assigned(key, uid)
        if len(assigned) + 1 >= pg.spec.min_member:
            self._outcomes.reach_quorum(key, group, pg)
            self._members.let_through(key, pod)
            return None, 0.0
        if not group.holding or group.deadline is None:
            group.deadline = now + wait_seconds(pg, self._cfg.permit_waiting_time_seconds)
            group.changes_at_attempt = self._groups.changes
        remaining = group.deadline - now
        if remaining <= 0:
            return Status.unschedulable(f"podGroup {key} passed its Permit deadline"), 0.0
        self._groups.acquire(key)
        group.holding = True
        if not assigned:
            self._activate_siblings(state, key, uid)
        if not group.failures:
            # after a failure the condition keeps saying why (BackingOff): a retry that
            # fails the same way then writes nothing, so a simulation can settle
            self._writer.write(
                key,
                "False",
                WAITING_FOR_QUORUM,
                f"members wait at Permit for {pg.spec.min_member} of them to be placed",
            )
        return Status.wait(), remaining

    def _activate_siblings(self, state: CycleState, key: str, uid: str) -> None:
        """The first waiter asks for its pending siblings to be tried (upstream PR #700)."""
        to_activate = state.get(PODS_TO_ACTIVATE_KEY)
        if isinstance(to_activate, dict):
            for p in self._members.pending(key):
                if p.metadata.uid != uid:
                    to_activate[p.key] = p

    def unreserve(self, pod: Pod) -> None:
        """A reserved member failed: reject its waiting siblings; the group backs off."""
        self._members.forget(pod.metadata.uid)
        key = pod_group_key(pod)
        group = self._groups.peek(key) if key else None
        if group is None or not group.holding:
            return
        pg = self._members.pod_group(key)
        timed_out = group.deadline is not None and self._clock.now() >= group.deadline - 1e-6
        if timed_out and pg is not None:
            timeout = go_duration(wait_seconds(pg, self._cfg.permit_waiting_time_seconds))
            cause = f"the quorum was not reached within {timeout}"
            park = self._only_others_missing(key, pod)
            self._outcomes.fail_group(key, "rejection in Unreserve", cause, park=park)
        else:
            cause = f"member {pod.metadata.name} failed after it was reserved"
            self._outcomes.fail_group(key, "rejection in Unreserve", cause)

    def _only_others_missing(self, key: str, pod: Pod) -> bool:
        """At a timeout: whether every member that did not reach Permit is one this profile
        cannot place (another scheduler's, or gated), so that retrying before the members
        change would time out again."""
        holding = self._members.assigned(key, snapshot=False) | {pod.metadata.uid}
        holding.update(wp.pod.metadata.uid for wp in self._members.waiting(key))
        profile = self._handle.profile_name
        return not any(
            p.spec.scheduler_name == profile and is_ungated(p)
            for p in self._members.pending(key)
            if p.metadata.uid not in holding
        )
