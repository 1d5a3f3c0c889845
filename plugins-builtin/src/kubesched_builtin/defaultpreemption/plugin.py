"""DefaultPreemption: when no node fits, evict lower-priority pods to make room.

Upstream: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go. The
plugin is the policy (who may preempt, which pods to evict on a node, how many candidate
nodes to look at); `kubesched.framework.preemption.Evaluator` runs the search, picks the node,
evicts the victims and returns the nomination. Every message it returns starts with
`preemption: `.

Randomness: the dry run starts at a random offset among the potential nodes, as upstream.
The offset comes from a `random.Random` the plugin owns, seeded from the profile name (a
stable CRC-32, not Python's salted `hash`), so a simulation repeats exactly; tests may
replace `offset_rand` (upstream's `getOffsetRand`) or `rng`.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar, Final

from kubesched.api import Pod
from kubesched.framework import (
    Code,
    CycleState,
    Handle,
    NodeInfo,
    NodeToStatus,
    PodInfo,
    PostFilterPlugin,
    PostFilterResult,
    PreemptionVictimGuard,
    Resource,
    Status,
)
from kubesched.framework.preemption import (
    DISRUPTION_TARGET,
    PREEMPTION_BY_SCHEDULER,
    Candidate,
    Evaluator,
    MoreImportantPodFunc,
    ScoreFunc,
    Victims,
    by_importance,
    importance_key,
    more_important_pod,
    pod_start_time,
)
from kubesched_builtin.defaultpreemption.args import DefaultPreemptionArgs
from kubesched_builtin.defaultpreemption.guards import (
    announce_victims,
    find_guards,
    protected_victims,
)
from kubesched_builtin.defaultpreemption.pdb import filter_pods_with_pdb_violation
from kubesched_builtin.defaultpreemption.resources_only import (
    NodeMemo,
    ResourcesOnlyDryRun,
    VictimOrder,
    resources_only_dry_run,
)
from kubesched_builtin.kinds import PodDisruptionBudget
from kubesched_builtin.names import DEFAULT_PREEMPTION
from kubesched_builtin.noderesources.fits import shortages
from kubesched_builtin.noderesources.plugin import PRE_FILTER_STATE_KEY, NodeResourcesFit
from kubesched_builtin.noderesources.plugin import PreFilterState as NodeResourcesFitPreFilterState

__all__ = [
    "NOT_ELIGIBLE_NEVER",
    "NOT_ELIGIBLE_TERMINATING",
    "NO_VICTIMS",
    "DefaultPreemption",
    "IsEligiblePodFunc",
    "pod_terminating_by_preemption",
]

NO_VICTIMS: Final = "No preemption victims found for incoming pod"
NOT_ELIGIBLE_NEVER: Final = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING: Final = "not eligible due to a terminating pod on the nominated node."

IsEligiblePodFunc = Callable[[NodeInfo, PodInfo, Pod], bool]
"""(node info, victim, preemptor) -> whether that victim may be preempted, on top of the
rule that it has a lower priority."""


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """Being deleted, with the DisruptionTarget condition a preempting scheduler sets."""
    if pod.metadata.deletion_timestamp is None:
        return False
    condition = pod.status.condition(DISRUPTION_TARGET)
    return (
        condition is not None
        and condition.status == "True"
        and condition.reason == PREEMPTION_BY_SCHEDULER
    )


class DefaultPreemption(PostFilterPlugin[DefaultPreemptionArgs]):
    """PostFilter: nominates the preemptor to the best node after evicting its victims."""

    name: ClassVar[str] = DEFAULT_PREEMPTION

    def __init__(self, args: DefaultPreemptionArgs, handle: Handle) -> None:
        super().__init__(args, handle)
        seed = zlib.crc32(f"{DEFAULT_PREEMPTION}/{handle.profile_name}".encode())
        self.rng = random.Random(seed)
        self.offset_rand: Callable[[int], int] = lambda n: self.rng.randrange(n)
        """A random offset in [0, n)."""
        self.is_eligible_pod: IsEligiblePodFunc = _every_pod
        """Extra victim filter (upstream IsEligiblePod); by default every lower-priority pod."""
        self.more_important_pod: MoreImportantPodFunc | None = None
        """Victim order (upstream MoreImportantPod); None is priority, then start time."""
        self.evaluator = Evaluator(self.name, handle, self)
        self._guards: list[PreemptionVictimGuard] | None = None
        self._resources_fit: list[NodeResourcesFit] | None = None
        self.room_shortcut: bool = handle.fast_path
        """Skip the dry runs and Filter re-runs whose failure NodeResourcesFit's figures
        already tell (`rules_out_node`, reprieves): same candidates and victims, fewer
        Filter calls. False (the scheduler's fast path off) makes upstream's every call."""
        self._node_memo: NodeMemo = {}
        """The quick dry run's figures of each node, kept across preemptions."""
        self._victims_by_node: dict[str, list[Pod]] = {}
        self._importance_cache: (
            tuple[
                MoreImportantPodFunc | None,
                datetime | None,
                MoreImportantPodFunc,
                Callable[[Pod], Any],
            ]
            | None
        ) = None
        """This cycle's victims per node of the dry run (kept only when there are guards)."""

    @property
    def guards(self) -> list[PreemptionVictimGuard]:
        """The profile's plugins that protect victims (`PreemptionVictimGuard`), found on
        first use: the profile is complete only after every plugin was built."""
        if self._guards is None:
            # a stand-in handle of a unit test may have no plugins
            self._guards = find_guards(getattr(self.handle, "plugins", {}))
        return self._guards

    # -- PostFilter ---------------------------------------------------------------------
    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        self._victims_by_node = {}
        result, status = self.evaluator.preempt(state, pod, filtered_node_status_map)
        nominated = result.nominating_info if result is not None else None
        if status.is_success and nominated is not None and self.guards:
            node = nominated.nominated_node_name
            announce_victims(self.guards, pod, node, self._victims_by_node.get(node, []))
        self._victims_by_node = {}
        message = status.message()
        if not message:
            return result, status
        message = "preemption: " + message
        if status.code is Code.Error:
            return result, Status(Code.Error, error=RuntimeError(message))
        return result, Status(status.code, message)

    # -- the policy the evaluator asks for ----------------------------------------------
    def calculate_num_candidates(self, num_nodes: int) -> int:
        """`numNodes * percentage / 100`, at least the absolute minimum, at most numNodes."""
        args = self.args
        n = num_nodes * args.min_candidate_nodes_percentage // 100
        n = max(n, args.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return self.offset_rand(num_nodes), self.calculate_num_candidates(num_nodes)

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        return {c.name: c.victims for c in candidates}

    def ordered_score_funcs(self, nodes_to_victims: Mapping[str, Victims]) -> list[ScoreFunc]:
        return []

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status | None
    ) -> tuple[bool, str]:
        """Not when its preemptionPolicy is Never; not while a lower-priority pod it
        preempted is still terminating on its nominated node (unless Filter now finds that
        node UnschedulableAndUnresolvable, when it may preempt elsewhere)."""
        if pod.spec.preemption_policy == "Never":
            return False, NOT_ELIGIBLE_NEVER
        nominated = pod.status.nominated_node_name
        if nominated:
            if (
                nominated_node_status is not None
                and nominated_node_status.code is Code.UnschedulableAndUnresolvable
            ):
                return True, ""
            info = self.handle.snapshot.get(nominated)
            if info is not None:
                for victim in info.pods:
                    if self._is_preemption_allowed(
                        info, victim, pod
                    ) and pod_terminating_by_preemption(victim.pod):
                        return False, NOT_ELIGIBLE_TERMINATING
        return True, ""

    def _is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        return victim.pod.priority < preemptor.priority and self.is_eligible_pod(
            node_info, victim, preemptor
        )

    def _importance(self) -> tuple[MoreImportantPodFunc, Callable[[Pod], Any]]:
        """The victim order and its sort key, made once per clock reading (the default
        order depends on the time) rather than for every node of a dry run."""
        custom = self.more_important_pod
        now = None if custom is not None else self.handle.clock.wall_time()
        cached = self._importance_cache
        if cached is not None and cached[0] is custom and cached[1] == now:
            return cached[2], cached[3]
        key: Callable[[Pod], Any]
        if custom is not None:
            more_important = custom
            key = importance_key(custom)
        else:
            assert now is not None
            more_important = _by_priority_then_start(now)
            key = _priority_then_start(now)
        self._importance_cache = (custom, now, more_important, key)
        return more_important, key

    @property
    def resources_fit(self) -> NodeResourcesFit | None:
        """The profile's NodeResourcesFit when it runs at Filter with its own `filter`
        (found on first use, as the guards)."""
        if self._resources_fit is None:
            found = [
                p
                for p in getattr(self.handle, "filter_plugins", ())
                # __class__, not type(): kubesched run's metrics wrap each plugin in an
                # object whose __class__ is the plugin's
                if isinstance(p, NodeResourcesFit) and p.__class__.filter is NodeResourcesFit.filter
            ]
            self._resources_fit = found[:1]
        return self._resources_fit[0] if self._resources_fit else None

    def quick_dry_run(
        self, state: CycleState, pod: Pod, pdbs: Sequence[Any], statuses: NodeToStatus
    ) -> ResourcesOnlyDryRun | None:
        """The evaluator's quick dry run for this preemptor (`resources_only`): the same
        victims as `select_victims_on_node` without copying each node or calling Filter,
        when only NodeResourcesFit's answer can change with evictions. None with
        the fast path off, with victim guards, or when other plugins take part."""
        if not self.room_shortcut or self.guards:
            return None
        more_important, key = self._importance()
        assert self._importance_cache is not None
        now = self._importance_cache[1]  # None unless the order is the default one
        return resources_only_dry_run(
            self.handle,
            self.resources_fit,
            state,
            pod,
            pdbs,
            statuses,
            VictimOrder(more_important, key, now),
            None if self.is_eligible_pod is _every_pod else self.is_eligible_pod,
            self._node_memo,
        )

    def rules_out_node(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> bool:
        """Whether the node certainly gives no victims (the evaluator then skips its dry
        run): even with every lower-priority pod gone, NodeResourcesFit's Filter would
        find it short of room (pods, cpu, memory, ...). `select_victims_on_node` evicts
        at most those pods, and resources only grow with fewer evictions, so it would
        fail there too. Cost: a pass over the node's pods and nominated pods."""
        short = self._short_of_room(state, pod, node_info)
        if short is None:
            return False
        priority = pod.priority
        pods = node_info.pods
        lower = [info.requests for info in pods if (info.pod.spec.priority or 0) < priority]
        if not lower:
            return short(node_info.requested, len(pods))
        used = node_info.requested.clone()
        for requests in lower:
            used.add_resource(requests, -1)
        return short(used, len(pods) - len(lower))

    def _short_of_room(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Callable[[Resource, int], bool] | None:
        """`short(requested, pod_count)`: whether NodeResourcesFit's Filter rejects `pod`
        on this node once its pods request `requested` and number `pod_count`, with the
        pods nominated to it that Filter counts first (upstream addGENominatedPods: equal
        or higher priority, not the pod itself); when it does, the Filter plugins with
        nominated pods certainly fail there. None when that cannot be told from the
        figures (no NodeResourcesFit at Filter, or it is skipped or has no PreFilter
        state this cycle)."""
        fit = self.resources_fit if self.room_shortcut else None
        if fit is None or fit.name in state.skip_filter_plugins or node_info.node is None:
            return None
        data = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(data, NodeResourcesFitPreFilterState):
            return None
        priority, uid = pod.priority, pod.metadata.uid
        nominated = [
            info.requests
            for info in self.handle.nominated_pods_for_node(node_info.name)
            if info.pod.priority >= priority and info.pod.metadata.uid != uid
        ]
        request, allocatable = data.requests, node_info.allocatable
        ignored, groups = fit.ignored_resources, fit.ignored_resource_groups

        def short(requested: Resource, pod_count: int) -> bool:
            if nominated:
                requested = requested.clone()
                for added in nominated:
                    requested.add_resource(added)
            shortage = shortages(
                request, allocatable, requested, pod_count + len(nominated), ignored, groups
            )
            return bool(shortage)

        return short

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, pdbs: Sequence[Any]
    ) -> tuple[list[Pod], int, Status]:
        """Remove every pod the preemptor may evict; if it then fits, put back as many as
        possible, most important first, those whose eviction would violate a PDB before
        the others. What could not be put back are the victims.

        kubesched: pods a `PreemptionVictimGuard` of the profile protects are never
        removed; a node where only their eviction would make room gets the guards' reasons
        (UnschedulableAndUnresolvable) instead of a candidate."""
        handle = self.handle

        def remove(info: PodInfo) -> Status:
            node_info.remove_pod(info.pod)
            return handle.run_pre_filter_extension_remove_pod(state, pod, info, node_info)

        def add(info: PodInfo) -> Status:
            node_info.add_pod_info(info)
            return handle.run_pre_filter_extension_add_pod(state, pod, info, node_info)

        priority = pod.priority
        eligible = self.is_eligible_pod
        potential = [
            p for p in node_info.pods if p.pod.priority < priority and eligible(node_info, p, pod)
        ]
        more_important, key = self._importance()
        held: list[PodInfo] = []
        reasons: list[str] = []
        if potential and self.guards:
            least_first = sorted(potential, key=lambda info: key(info.pod), reverse=True)
            protected = protected_victims(self.guards, pod, node_info, least_first)
            held = [p for p in potential if p.pod.metadata.uid in protected]
            potential = [p for p in potential if p.pod.metadata.uid not in protected]
            reasons = sorted(set(protected.values()))
        for info in potential:
            status = remove(info)
            if not status.is_success:
                return [], 0, _as_error(status)
        if not potential and not held:
            return [], 0, Status.unresolvable(NO_VICTIMS)

        # The preemptor may also fail for affinity to a victim; upstream does not try to
        # resolve that (affinity to lower-priority pods is not a recommended setup).
        status = (
            handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)
            if potential
            else Status.unschedulable()
        )
        if not status.is_success:
            if not held:
                return [], 0, status
            # Would evicting the protected pods too have made room? Then they are why this
            # node is no candidate; otherwise the node fails as it would upstream.
            for info in held:
                removed = remove(info)
                if not removed.is_success:
                    return [], 0, _as_error(removed)
            status = handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)
            if status.is_success:
                return [], 0, Status.unresolvable(*reasons)
            return [], 0, status

        potential.sort(key=lambda info: key(info.pod))
        violating, non_violating = filter_pods_with_pdb_violation(
            potential, [p for p in pdbs if isinstance(p, PodDisruptionBudget)]
        )
        victims: list[PodInfo] = []
        # where the pod put back leaves no room, Filter would fail: not run (its status
        # is not kept)
        short = self._short_of_room(state, pod, node_info)

        def reprieve(info: PodInfo) -> tuple[bool, Status]:
            status = add(info)
            if not status.is_success:
                return False, _as_error(status)
            if (
                short is None or not short(node_info.requested, len(node_info.pods))
            ) and handle.run_filter_plugins_with_nominated_pods(state, pod, node_info).is_success:
                return True, status
            status = remove(info)
            if not status.is_success:
                return False, _as_error(status)
            victims.append(info)
            return False, status

        num_violating = 0
        for info in violating:
            fits, status = reprieve(info)
            if not status.is_success:
                return [], 0, status
            if not fits:
                num_violating += 1
        for info in non_violating:
            _, status = reprieve(info)
            if not status.is_success:
                return [], 0, status

        pods = [v.pod for v in victims]
        if violating and non_violating:
            # keep the victims ordered most important first
            pods = by_importance(pods, more_important)
        if self.guards:
            self._victims_by_node[node_info.name] = pods
        return pods, num_violating, Status()


def _every_pod(node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
    """The default `is_eligible_pod`: every lower-priority pod may be a victim."""
    return True


def _by_priority_then_start(now: datetime) -> MoreImportantPodFunc:
    """upstream util.MoreImportantPod, with `now` as the start of pods not started yet."""

    def more_important(a: Pod, b: Pod) -> bool:
        return more_important_pod(a, b, now)

    return more_important


def _priority_then_start(now: datetime) -> Callable[[Pod], tuple[int, datetime]]:
    """`_by_priority_then_start`'s order as a plain sort key: it sorts exactly as the
    comparison does (pods equal under it have equal keys, so ties keep their order), at a
    tuple comparison rather than two calls per pair of pods."""

    def key(pod: Pod) -> tuple[int, datetime]:
        return -pod.priority, pod_start_time(pod, now)

    return key


def _as_error(status: Status) -> Status:
    """upstream fwk.AsStatus(status.AsError())."""
    return Status.as_error(status.error if status.error is not None else status.message())
