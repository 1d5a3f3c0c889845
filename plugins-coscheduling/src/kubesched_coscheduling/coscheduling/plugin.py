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

Members beyond minMember schedule without waiting. As a `PreemptionVictimGuard`, the
plugin keeps DefaultPreemption from taking a running group below minMember (see
`preemption`). Everything that differs from upstream is listed in the package README.

The class holds the extension points; the rest is in modules that each do one thing:
`permits` (Permit and Unreserve), `outcomes` (quorum reached, group failed, backoff
ended), `watch` (cluster changes), `preemption` (victims the quorum protects), `quorum`
(who counts), `groups` (per-group state, slots, timers), `feasibility` (packing),
`hints` (queueing hints), `conditions` (the PodGroup's `Scheduled` condition).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from kubesched.api import Pod, go_duration
from kubesched.framework import (
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    Handle,
    NodeInfo,
    NodeToStatus,
    PermitPlugin,
    PodInfo,
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
from kubesched_coscheduling.coscheduling import hints
from kubesched_coscheduling.coscheduling.args import CoschedulingArgs
from kubesched_coscheduling.coscheduling.conditions import (
    UNSCHEDULABLE,
    WAITING_FOR_RESERVATION,
    ConditionWriter,
)
from kubesched_coscheduling.coscheduling.feasibility import Plan, Planner
from kubesched_coscheduling.coscheduling.groups import GroupState
from kubesched_coscheduling.coscheduling.outcomes import GroupOutcomes
from kubesched_coscheduling.coscheduling.permits import PermitGate
from kubesched_coscheduling.coscheduling.preemption import GangVictimGuard
from kubesched_coscheduling.coscheduling.quorum import GroupMembers
from kubesched_coscheduling.coscheduling.resources import (
    check_cluster_resource,
    min_resources_request,
)
from kubesched_coscheduling.coscheduling.watch import ClusterWatch
from kubesched_coscheduling.names import COSCHEDULING, POD_GROUP_KIND
from kubesched_coscheduling.podgroup import is_ungated, pod_group_key

__all__ = ["STATE_KEY", "Coscheduling"]

STATE_KEY: Final = "PreFilter" + COSCHEDULING

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
    QueueSortPlugin[CoschedulingArgs],
    PreEnqueuePlugin[CoschedulingArgs],
    PreFilterPlugin[CoschedulingArgs],
    PostFilterPlugin[CoschedulingArgs],
    ReservePlugin[CoschedulingArgs],
    PermitPlugin[CoschedulingArgs],
    EnqueueExtensions,
):
    """Gang scheduling of PodGroup members (scheduling.x-k8s.io/v1alpha1); also a
    `kubesched.framework.PreemptionVictimGuard`."""

    name: ClassVar[str] = COSCHEDULING

    def __init__(self, args: CoschedulingArgs, handle: Handle) -> None:
        super().__init__(args, handle)
        _check_profile(handle)
        self._clock = handle.clock
        # creationTimestamps (wall time) and queue timestamps (clock time) on one scale
        self._wall_offset = self._clock.wall_time().timestamp() - self._clock.now()
        self._members = GroupMembers(handle)
        self._planner = Planner(handle)
        cluster = handle.cluster
        self._writer = ConditionWriter(cluster, self._clock)
        self._outcomes = GroupOutcomes(
            self.name, args, handle, self._clock, self._members, self._writer
        )
        self._groups = self._outcomes.groups
        self._permits = PermitGate(
            args, handle, self._clock, self._members, self._outcomes, self._writer
        )
        self._guard = GangVictimGuard(self._members)
        watch = ClusterWatch(self._members, self._outcomes, self._writer)
        if cluster is not None and hasattr(cluster, "watch"):
            cluster.watch("Pod", watch.on_pod)
            cluster.watch(POD_GROUP_KIND, watch.on_pod_group)
            cluster.watch("Node", watch.on_node)
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
            ttl = self.args.permit_waiting_time_seconds or 60
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
        if gap <= self.args.pod_group_reject_percentage / 100:
            return None, Status.unschedulable()
        self._outcomes.fail_group(
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
        its waiting siblings; the group backs off (see `permits`)."""
        self._permits.unreserve(pod)

    # -- Permit -------------------------------------------------------------------------
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """Success once this pod completes the quorum (its waiting siblings go with it);
        otherwise Wait until the group's deadline (see `permits`)."""
        return self._permits.permit(state, pod)

    # -- PreemptionVictimGuard ----------------------------------------------------------
    def protected_victims(
        self, preemptor: Pod, node_info: NodeInfo, victims: Sequence[PodInfo]
    ) -> dict[str, str]:
        """The members a preemption must leave so that running groups keep minMember
        (Volcano's gang rule; see `preemption`)."""
        return self._guard.protected_victims(preemptor, node_info, victims)

    def victims_chosen(self, preemptor: Pod, node_name: str, victims: Sequence[Pod]) -> None:
        """A preemption is evicting these pods: its members count as gone from now on."""
        self._guard.victims_chosen(preemptor, node_name, victims)

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
    upstream's own integration profile falls into). Enabled at PostFilter before another
    plugin, it would reject a member's waiting siblings before that plugin (preemption)
    could make the member fit (scheduler-plugins documents "Coscheduling as the last
    PostFilter"; nothing checks it there)."""
    plugins_at = getattr(handle, "plugins_at", None)
    if not callable(plugins_at):
        return
    post_filter = list(plugins_at("PostFilter"))
    if COSCHEDULING in post_filter and post_filter[-1] != COSCHEDULING:
        after = ", ".join(post_filter[post_filter.index(COSCHEDULING) + 1 :])
        raise ValueError(
            f"Coscheduling must be the last postFilter plugin, but {after} runs after it: "
            "it rejects a failed member's waiting siblings, which only makes sense once "
            "preemption has had its turn; disable and re-enable the others before it"
        )
    at_permit = COSCHEDULING in plugins_at("Permit")
    at_reserve = COSCHEDULING in plugins_at("Reserve")
    if at_permit and not at_reserve:
        raise ValueError(
            "Coscheduling is enabled at permit but not at reserve: its Unreserve releases "
            "a failed group's waiting members; enable it at reserve too (multiPoint does)"
        )
