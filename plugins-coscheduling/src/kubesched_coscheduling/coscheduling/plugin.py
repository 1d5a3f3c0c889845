"""Coscheduling: a PodGroup's members are bound together (at least minMember) or not at all.

Upstream: kubernetes-sigs/scheduler-plugins pkg/coscheduling/coscheduling.go and
core/core.go. Pods are still scheduled one at a time; five mechanisms make a group act as
one:

- QueueSort keeps a group's pods together: priority, then the group's creation time (its
  last failure time once it failed), then `namespace/name`;
- PreEnqueue (kubesched) holds members until their PodGroup exists, enough live ungated
  members exist and the group is not backing off (nor parked, below);
- PreFilter rejects (UnschedulableAndUnresolvable, upstream's messages) while the group
  backs off, has too few live or ungated members, or its `minResources` cannot be met;
  then (kubesched) while another group holds the profile's reservation slots, or while the
  members it still needs cannot all be packed on the snapshot; otherwise it steers the
  member to the node the packing plan gave it;
- Permit counts the group's members holding a node (bound in the cluster, waiting in the
  framework, assumed in the snapshot; by UID, see `quorum`): with this pod they reach
  minMember -> Success, and every waiting sibling is allowed; otherwise Wait until the
  group's deadline;
- PostFilter and Unreserve reject the waiting siblings; the group then backs off
  (doubling) and retries together. A group that timed out because only members this
  profile cannot place were missing is parked: it retries when its members or its
  PodGroup change.

Members beyond minMember schedule without waiting. Everything that differs from upstream
is listed in the package README.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from pydantic import BaseModel

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched.framework import (
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    Handle,
    NodeInfo,
    NodeToStatus,
    PermitPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    QueuedPodInfo,
    QueueSortPlugin,
    ReservePlugin,
    StateData,
    Status,
)
from kubesched.runtime import go_duration
from kubesched_coscheduling.coscheduling import hints
from kubesched_coscheduling.coscheduling.args import CoschedulingArgs, group_backoff_seconds
from kubesched_coscheduling.coscheduling.conditions import (
    BACKING_OFF,
    QUORUM_REACHED,
    UNSCHEDULABLE,
    WAITING_FOR_QUORUM,
    WAITING_FOR_RESERVATION,
    ConditionWriter,
)
from kubesched_coscheduling.coscheduling.feasibility import Plan, Planner
from kubesched_coscheduling.coscheduling.groups import GroupState, GroupTable
from kubesched_coscheduling.coscheduling.quorum import GroupMembers
from kubesched_coscheduling.coscheduling.resources import (
    check_cluster_resource,
    min_resources_request,
)
from kubesched_coscheduling.names import COSCHEDULING, POD_GROUP_KIND
from kubesched_coscheduling.podgroup import (
    PodGroup,
    is_live,
    is_ungated,
    pod_group_key,
    wait_seconds,
)

__all__ = ["PODS_TO_ACTIVATE_KEY", "STATE_KEY", "Coscheduling"]

STATE_KEY: Final = "PreFilter" + COSCHEDULING
PODS_TO_ACTIVATE_KEY: Final = "kubernetes.io/pods-to-activate"

# What PreFilter decided, for PostFilter: a member held back for a reason that is not a
# failure of the group (backoff, members missing, no slot) must not penalise it again.
_HELD: Final = "held"
_INFEASIBLE: Final = "infeasible"


@dataclass(frozen=True)
class _Verdict:
    kind: str

    def clone(self) -> StateData:
        return self


class Coscheduling(
    QueueSortPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PostFilterPlugin,
    ReservePlugin,
    PermitPlugin,
    EnqueueExtensions,
):
    """Gang scheduling of PodGroup members (scheduling.x-k8s.io/v1alpha1)."""

    name: ClassVar[str] = COSCHEDULING
    Args: ClassVar[type[BaseModel]] = CoschedulingArgs

    def __init__(self, args: BaseModel, handle: Handle) -> None:
        if not isinstance(args, CoschedulingArgs):
            raise TypeError(f"want args to be of type CoschedulingArgs, got {type(args).__name__}")
        super().__init__(args, handle)
        self.cfg = args
        _check_profile(handle)
        self._clock = handle.clock
        # creationTimestamps (wall time) and queue timestamps (clock time) on one scale
        self._wall_offset = self._clock.wall_time().timestamp() - self._clock.now()
        self._groups = GroupTable(
            self._clock,
            args.max_waiting_pod_groups,
            self._wake_group,
            f"coscheduling-backoff/{handle.profile_name}",
        )
        self._members = GroupMembers(handle)
        self._planner = Planner(handle)
        cluster = handle.cluster
        self._writer = ConditionWriter(cluster, self._clock)
        if cluster is not None and hasattr(cluster, "watch"):
            cluster.watch("Pod", self._on_pod)
            cluster.watch(POD_GROUP_KIND, self._on_pod_group)
            cluster.watch("Node", self._on_node)
        add_controller = getattr(cluster, "add_controller", None)
        if callable(add_controller):
            add_controller(self._groups)

    # -- QueueSort ----------------------------------------------------------------------
    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Priority first; then the group's (or pod's) time; then `namespace/podName`."""
        pa, pb = a.pod.priority, b.pod.priority
        if pa != pb:
            return pa > pb
        ta, tb = self._group_time(a), self._group_time(b)
        if ta == tb:
            return a.pod.key < b.pod.key
        return ta < tb

    def _group_time(self, qpi: QueuedPodInfo) -> float:
        """The group's last failure or creation time; the pod's own first attempt for a pod
        without a (found) group (upstream GetCreationTimestamp, PR #949)."""
        key = pod_group_key(qpi.pod)
        pg = self._members.pod_group(key) if key else None
        if pg is not None:
            state = self._groups.peek(key)
            if state is not None and state.last_failure is not None:
                return state.last_failure
            created = pg.metadata.creation_timestamp
            if created is not None:
                return created.timestamp() - self._wall_offset
        if qpi.initial_attempt_timestamp is not None:
            return qpi.initial_attempt_timestamp
        return qpi.timestamp

    # -- PreEnqueue ---------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Hold a member until its PodGroup exists, enough live ungated members exist and
        the group is neither backing off nor parked (the first reason found is given)."""
        key = pod_group_key(pod)
        if not key:
            return None
        pg = self._members.pod_group(key)
        if pg is None:
            return Status.unresolvable(f"PodGroup {key} not found")
        ready = self._members.ready_count(key)
        if ready < pg.spec.min_member:
            return Status.unresolvable(
                f"podGroup {key} has {ready} of the {pg.spec.min_member} live, ungated "
                "members it needs (minMember)"
            )
        state = self._groups.peek(key)
        now = self._clock.now()
        if state is not None and state.backing_off(now):
            assert state.backoff_until is not None
            wait = go_duration(state.backoff_until - now)
            return Status.unresolvable(
                f"podGroup {key} failed recently ({state.cause}); backing off for {wait}"
            )
        if state is not None and state.parked:
            return Status.unresolvable(_parked_message(key, state))
        return None

    # -- PreFilter ----------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if self._planner.active:  # our own packing runs the profile's PreFilter plugins
            return None, None
        key = pod_group_key(pod)
        pg = self._members.pod_group(key) if key else None
        if pg is None:
            return None, None
        group = self._groups.get(key)
        now = self._clock.now()
        minimum = pg.spec.min_member
        state.write(STATE_KEY, _Verdict(_HELD))
        # upstream core.go PreFilter, in its order
        if group.backing_off(now):
            return None, Status.unresolvable(f"podGroup {key} failed recently")
        if group.parked:
            return None, Status.unresolvable(_parked_message(key, group))
        live = self._members.live_count(key)
        if live < minimum:
            return None, Status.unresolvable(
                f"pre-filter pod {pod.metadata.name} cannot find enough sibling pods, "
                f"current pods number: {live}, minMember of group: {minimum}"
            )
        if self._members.ready_count(key) < minimum:
            return None, Status.unresolvable(
                f"pre-filter pod {pod.metadata.name} cannot proceed due to gated pods in "
                "the same PodGroup"
            )
        state.write(STATE_KEY, _Verdict(_INFEASIBLE))
        if pg.spec.min_resources is not None and not (
            group.permitted_until is not None and now < group.permitted_until
        ):
            request = min_resources_request(pg.spec.min_resources, minimum)
            gap = check_cluster_resource(nodes, request, key)
            if gap is not None:
                self._writer.write(key, "False", UNSCHEDULABLE, gap)
                return None, Status.unresolvable(gap)
            ttl = self.cfg.permit_waiting_time_seconds or 60
            group.permitted_until = now + ttl
        # kubesched: the quorum, the reservation slots, the packing plan
        assigned = self._members.assigned(key, pod.metadata.uid)
        if len(assigned) >= minimum:
            state.delete(STATE_KEY)
            return None, None  # the quorum stands: an extra member schedules on its own
        holder = self._groups.blocking_holder(key)
        if holder is not None:
            state.write(STATE_KEY, _Verdict(_HELD))
            self._groups.block(key)
            message = (
                f"podGroup {key} waits for its turn: podGroup {holder} holds members "
                "waiting at Permit"
            )
            self._writer.write(key, "False", WAITING_FOR_RESERVATION, message)
            return None, Status.unresolvable(message)
        plan = self._plan(key, group, pod, minimum - len(assigned), nodes, assigned)
        if plan.failure is not None:
            self._writer.write(key, "False", UNSCHEDULABLE, plan.failure)
            return None, Status.unresolvable(plan.failure)
        state.delete(STATE_KEY)
        node = plan.assignments.get(pod.metadata.uid)
        return (PreFilterResult.of([node]) if node else None), None

    def _plan(
        self,
        key: str,
        group: GroupState,
        pod: Pod,
        needed: int,
        nodes: Sequence[NodeInfo],
        assigned: set[str],
    ) -> Plan:
        """Pack this member with the siblings still needed (this profile's pending,
        ungated ones, in name order) and keep the plan for them."""
        uid = pod.metadata.uid
        count = 0

        def others() -> list[Pod]:
            nonlocal count
            found = [
                p
                for p in self._members.pending(key)
                if is_ungated(p)
                and p.metadata.uid not in assigned
                and p.metadata.uid != uid
                and p.spec.scheduler_name == pod.spec.scheduler_name
            ][: max(needed - 1, 0)]
            count = len(found) + 1
            return found

        def describe(placed: int, failing: Pod, reasons: str) -> str:
            more = f"{count} more member{'s' if count != 1 else ''}"
            return (
                f"podGroup {key} needs {more} placed together; only {placed} fit "
                f"(pod {failing.metadata.name}: {reasons})"
            )

        group.plan = self._planner.plan(group.plan, pod, others, nodes, describe)
        return group.plan

    # -- PostFilter ---------------------------------------------------------------------
    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        """Reject the waiting siblings unless the quorum stands or is within
        `podGroupRejectPercentage` (upstream coscheduling.go PostFilter)."""
        key = pod_group_key(pod)
        pg = self._members.pod_group(key) if key else None
        if pg is None:
            return None, Status.unschedulable("can not find pod group")
        verdict = state.get(STATE_KEY)
        if isinstance(verdict, _Verdict) and verdict.kind == _HELD:
            return None, Status.unschedulable()
        minimum = pg.spec.min_member
        assigned = len(self._members.assigned(key, pod.metadata.uid))
        if assigned >= minimum:
            return None, Status.unschedulable()
        gap = (minimum - assigned) / minimum
        if gap <= self.cfg.pod_group_reject_percentage / 100:
            return None, Status.unschedulable()
        self._fail_group(
            key,
            "optimistic rejection in PostFilter",
            f"pod {pod.metadata.name} could not be placed",
        )
        return None, Status.unschedulable(
            f"PodGroup {key} gets rejected due to Pod {pod.metadata.name} is unschedulable "
            "even after PostFilter"
        )

    # -- Reserve ------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Nothing to claim: being a Reserve plugin earns the Unreserve call."""
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """A reserved member failed (Permit rejection or timeout, PreBind, Bind): reject
        its waiting siblings; the group backs off."""
        self._members.forget(pod.metadata.uid)
        key = pod_group_key(pod)
        group = self._groups.peek(key) if key else None
        if group is None or not group.holding:
            return
        pg = self._members.pod_group(key)
        timed_out = group.deadline is not None and self._clock.now() >= group.deadline - 1e-6
        if timed_out and pg is not None:
            timeout = go_duration(wait_seconds(pg, self.cfg.permit_waiting_time_seconds))
            cause = f"the quorum was not reached within {timeout}"
            self._fail_group(
                key, "rejection in Unreserve", cause, park=self._only_others_missing(key, pod)
            )
        else:
            cause = f"member {pod.metadata.name} failed after it was reserved"
            self._fail_group(key, "rejection in Unreserve", cause)

    def _only_others_missing(self, key: str, pod: Pod) -> bool:
        """At a timeout: whether every member that did not reach Permit is one this profile
        cannot place (another scheduler's, or gated), so that retrying before the members
        change would time out again."""
        holding = self._members.assigned(key, snapshot=False) | {pod.metadata.uid}
        holding.update(wp.pod.metadata.uid for wp in self._members.waiting(key))
        profile = self.handle.profile_name
        return not any(
            p.spec.scheduler_name == profile and is_ungated(p)
            for p in self._members.pending(key)
            if p.metadata.uid not in holding
        )

    # -- Permit -------------------------------------------------------------------------
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
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
            self._reach_quorum(key, group, pg)
            self._members.let_through(key, pod)
            return None, 0.0
        if not group.holding or group.deadline is None:
            group.deadline = now + wait_seconds(pg, self.cfg.permit_waiting_time_seconds)
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

    # -- group outcomes -----------------------------------------------------------------
    def _reach_quorum(self, key: str, group: GroupState, pg: PodGroup) -> None:
        for wp in self._members.waiting(key):
            if self.name in wp.get_pending_plugins():
                self._members.let_through(key, wp.pod)
                wp.allow(self.name)
        group.holding = False
        group.deadline = None
        group.failures = 0
        group.backoff_until = None
        group.last_failure = None
        group.cause = ""
        group.plan = None
        group.parked = False
        self._groups.cancel_wakeup(group)
        self._activate_groups(self._groups.release(key))
        self._writer.write(
            key, "True", QUORUM_REACHED, f"{pg.spec.min_member} members passed Permit together"
        )

    def _fail_group(self, key: str, reject_message: str, cause: str, park: bool = False) -> None:
        """Reject the waiting members; a group that held any backs off (doubling) and,
        when `park`, waits for its members or its PodGroup to change."""
        group = self._groups.get(key)
        now = self._clock.now()
        for wp in self._members.waiting(key):
            if wp.reject(self.name, reject_message):
                self._members.rejected.add(wp.pod.metadata.uid)
        if group.holding:
            # the attempt held resources and failed: its plan is spent, the group waits;
            # what it releases is a change for other groups, not for itself
            group.failures += 1
            delay = group_backoff_seconds(self.cfg, group.failures)
            group.backoff_until = now + delay
            group.plan = None
            group.parked = park
            self._groups.changes += 1
            group.changes_at_attempt = self._groups.changes
            self._groups.schedule_wakeup(key, group)
            self._writer.write(key, "False", BACKING_OFF, f"{cause}; the group retries together")
        group.last_failure = now
        group.cause = cause
        group.holding = False
        group.deadline = None
        group.permitted_until = None
        self._activate_groups(self._groups.release(key))

    def _wake_group(self, key: str) -> None:
        """The group's backoff ended: try its pending members again, together (a parked
        group waits for its members or its PodGroup to change)."""
        group = self._groups.peek(key)
        if group is not None and not group.parked:
            self._activate_groups([key])

    def _unpark(self, key: str) -> None:
        """Something changed for a parked group: it may try again (after its backoff)."""
        group = self._groups.peek(key)
        if group is None or not group.parked:
            return
        group.parked = False
        if not group.backing_off(self._clock.now()):
            self._activate_groups([key])

    def _activate_groups(self, keys: Sequence[str]) -> None:
        pods = [p for key in keys for p in self._members.pending(key)]
        if pods:
            self.handle.activate(pods)

    # -- cluster changes ----------------------------------------------------------------
    def _on_pod(self, event: WatchEvent) -> None:
        pod: Pod = event.obj
        meaningful = hints.meaningful_pod_change(event)
        if meaningful:
            self._groups.changes += 1
        new_key = pod_group_key(pod) if event.type != "DELETED" else ""
        ready_before = self._members.ready_count(new_key) if new_key else 0
        before, after = self._members.apply(event)
        if meaningful:
            for key in {before, after} - {""}:
                self._unpark(key)
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
            self._fail_group(key, message, message)

    def _member_gained(self, key: str, ready_before: int) -> None:
        """When a new or ungated member brings the group to minMember, wake its members
        held at PreEnqueue (core sends no event for an unscheduled pod's arrival)."""
        pg = self._members.pod_group(key)
        if pg is None:
            return
        if ready_before < pg.spec.min_member <= self._members.ready_count(key):
            self._activate_groups([key])

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
            self._reach_quorum(key, group, pg)

    def _on_pod_group(self, event: WatchEvent) -> None:
        pg: PodGroup = event.obj
        key = pg.key
        if event.type != "MODIFIED" or event.old.spec != pg.spec:
            self._groups.changes += 1
        if event.type == "DELETED":
            for wp in self._members.waiting(key):
                if wp.reject(self.name, f"podGroup {key} was deleted"):
                    self._members.rejected.add(wp.pod.metadata.uid)
            self._activate_groups(self._groups.drop(key))
            self._writer.forget(key)
            return
        group = self._groups.peek(key)
        if event.type != "MODIFIED" or event.old.spec == pg.spec or group is None:
            return
        group.plan = None
        group.permitted_until = None
        self._unpark(key)
        if not group.holding:
            return
        minimum = pg.spec.min_member
        live = self._members.live_count(key)
        if live < minimum:
            message = f"podGroup {key} now needs {minimum} members; {live} live members exist"
            self._fail_group(key, message, message)
        elif len(self._members.assigned(key, snapshot=False)) >= minimum:
            self._reach_quorum(key, group, pg)

    def _on_node(self, event: WatchEvent) -> None:
        self._groups.changes += 1

    # -- EnqueueExtensions --------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """PodGroup Add/Update, Pod Add/Delete/label/ungate/scale-down, Node Add/Update;
        see `hints` for what each hint skips."""
        return hints.events_to_register()


def _parked_message(key: str, group: GroupState) -> str:
    return (
        f"podGroup {key} failed recently ({group.cause}); it retries when its members or "
        "its PodGroup change"
    )


def _check_profile(handle: Handle) -> None:
    """Enabled at Permit but not at Reserve, the plugin's Unreserve would never run and a
    failed gang's siblings would keep their resources until their timeout (the trap
    upstream's own integration profile falls into)."""
    plugins_at = getattr(handle, "plugins_at", None)
    if not callable(plugins_at):
        return
    at_permit = COSCHEDULING in plugins_at("Permit")
    at_reserve = COSCHEDULING in plugins_at("Reserve")
    if at_permit and not at_reserve:
        raise ValueError(
            "Coscheduling is enabled at permit but not at reserve: its Unreserve releases "
            "a failed group's waiting members; enable it at reserve too (multiPoint does)"
        )
