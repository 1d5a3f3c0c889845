"""The generic preemption evaluator: find the nodes where evicting lower-priority pods would
let the preemptor fit, pick one, evict its victims and nominate the preemptor there.

Upstream: pkg/scheduler/framework/preemption/preemption.go (Evaluator.Preempt,
findCandidates, DryRunPreemption, SelectCandidate, prepareCandidateAsync, PreemptPod).
A plugin supplies the policy through `PreemptionInterface` (DefaultPreemption, in
kubesched-builtin, is one).

Differences from upstream, all forced by a scheduling cycle that never awaits:

- The dry run visits nodes one after the other from the offset (upstream runs them in
  parallel and stops at about the same point), so results repeat exactly.
- Victims are evicted as upstream's asynchronous preemption (on by default since v1.33)
  does: the cycle nominates the preemptor at once and a task on the running event loop adds
  the `DisruptionTarget` condition to each victim, deletes it (or rejects it at Permit),
  and records the `Preempted` event. The task is created during the cycle, so it runs before
  the preemptor can be tried again; upstream's PreEnqueue gate that holds the preemptor
  while its goroutine runs is therefore not needed. (A deleted victim then terminates for
  its grace period, keeping its place on the node, as on a real cluster: the memory
  cluster plays the API server and kubelet. The preemptor binds once it is gone.)
- There are no scheduler extenders, so candidates are never filtered by them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Protocol

from kubesched._errors import KubeschedError, NotFoundError
from kubesched.api import Pod, PodCondition
from kubesched.framework import (
    Code,
    CycleState,
    Diagnosis,
    FitError,
    Handle,
    NodeInfo,
    NodeToStatus,
    PostFilterResult,
    Status,
)
from kubesched.framework.preemption._candidate import (
    Candidate,
    ScoreFunc,
    Victims,
    pick_one_node_for_preemption,
)

__all__ = [
    "DISRUPTION_TARGET",
    "PDB_KIND_NAME",
    "PREEMPTION_BY_SCHEDULER",
    "Evaluator",
    "PreemptionInterface",
]

PDB_KIND_NAME: Final = "PodDisruptionBudget"
DISRUPTION_TARGET: Final = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER: Final = "PreemptionByScheduler"
_NOT_HELPFUL: Final = "Preemption is not helpful for scheduling"

_log = logging.getLogger(__name__)


class PreemptionInterface(Protocol):
    """The policy a preemption plugin gives the evaluator (upstream preemption.Interface).

    The evaluator calls `pod_eligible_to_preempt_others` first, then
    `get_offset_and_num_candidates` and `select_victims_on_node` once per node of the dry
    run, then (with two candidates or more) `candidates_to_victims_map` and
    `ordered_score_funcs` to choose the node. None of them may await or change the cluster:
    they run inside the scheduling cycle.
    """

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """Where the dry run starts among the potential nodes, and how many candidates
        it should find."""
        ...

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        """The candidates as node name -> victims, in the order ties are broken in (the
        first node wins a tie)."""
        ...

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status | None
    ) -> tuple[bool, str]:
        """Whether the pod may preempt at all, and the reason when it may not."""
        ...

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, pdbs: Sequence[Any]
    ) -> tuple[list[Pod], int, Status]:
        """The fewest pods to evict from this node (a copy, as is `state`) for the pod to
        fit, most important first, and how many of them violate a PDB."""
        ...

    def ordered_score_funcs(self, nodes_to_victims: Mapping[str, Victims]) -> list[ScoreFunc]:
        """Score functions that pick the node; empty for upstream's default order."""
        ...


RulesOutNode = Callable[[CycleState, Pod, NodeInfo], bool]
"""A policy's optional `rules_out_node(state, pod, node_info)`: True only when
`select_victims_on_node` on that node would certainly not give victims (it must never rule
out a candidate); it must not change the node or the state."""

QuickDryRun = Callable[[NodeInfo], Victims | bool]
"""One preemption's quick answer for a node, in place of cloning it and calling
`select_victims_on_node`: the `Victims` that call would give (the node is a candidate),
True when it would give none (as `rules_out_node`: its status is found by a real dry run
only if needed), False when the quick answer is not known (the node gets a real dry run).
It must not change the node."""

QuickDryRunFactory = Callable[[CycleState, Pod, Sequence[Any], NodeToStatus], QuickDryRun | None]
"""A policy's optional `quick_dry_run(state, pod, pdbs, statuses)`, asked once per
preemption: a `QuickDryRun` for this preemptor, or None when every node needs the real dry
run (then `rules_out_node` is asked, if the policy has it). `statuses` are Filter's."""


def _aggregate(errors: Sequence[BaseException]) -> BaseException:
    """upstream utilerrors.NewAggregate: one error as is, several as `[a, b]`."""
    if len(errors) == 1:
        return errors[0]
    return RuntimeError("[" + ", ".join(str(e) for e in errors) + "]")


def _as_exception(status: Status) -> BaseException:
    return status.error if status.error is not None else RuntimeError(status.message())


class Evaluator:
    """Runs preemption for a plugin: `preempt` is the whole PostFilter."""

    def __init__(self, plugin_name: str, handle: Handle, interface: PreemptionInterface) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        self.tasks: set[asyncio.Task[None]] = set()
        """Evictions still running (kept referenced until they finish)."""
        self.preempt_pod: Callable[[Candidate, Pod, Pod], Any] = self._preempt_pod
        """Evicts one victim (a coroutine function); replaceable in tests, as upstream's."""
        self.candidate_watchers: list[Callable[[Candidate], None]] = []
        """Called with each candidate whose evictions start (`kubesched run`'s metrics
        observe its victims there: upstream prepareCandidateAsync PreemptionVictims)."""
        self._rules_out_node: RulesOutNode | None = getattr(interface, "rules_out_node", None)
        """The policy's cheap test (optional, not upstream) of a node that cannot be a
        candidate: `rules_out_node(state, pod, node_info)` (see `dry_run_preemption`)."""
        self._quick_dry_run: QuickDryRunFactory | None = getattr(interface, "quick_dry_run", None)
        """The policy's quick dry run (optional, not upstream): the same victims without
        a copy of each node (see `dry_run_preemption`)."""

    # -- the PostFilter -----------------------------------------------------------------
    def preempt(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """A nomination on success. `(None, Unschedulable)` when the pod may not preempt
        (its nomination is kept), `(nominate(""), Unschedulable)` when no node would do
        (its nomination is cleared), `(None, Error)` on failures."""
        name, namespace = pod.metadata.name, pod.metadata.namespace
        latest: Pod | None = self.handle.cluster.get("Pod", name, namespace)
        if latest is None:
            return None, Status.as_error(f'pod "{name}" not found')
        pod = latest

        nominated_status = statuses.get(pod.status.nominated_node_name)
        eligible, reason = self.interface.pod_eligible_to_preempt_others(pod, nominated_status)
        if not eligible:
            return None, Status.unschedulable(reason)

        all_nodes = self.handle.snapshot.list()
        if not all_nodes:
            return None, Status.as_error("no nodes available")
        candidates, node_statuses, errors = self.find_candidates(state, all_nodes, pod, statuses)
        if errors and not candidates:
            return None, Status.as_error(_aggregate(errors))
        if not candidates:
            node_statuses.absent_status = Status.unresolvable(_NOT_HELPFUL)
            fit = FitError(pod, len(all_nodes), Diagnosis(node_to_status=node_statuses))
            return PostFilterResult.nominate(""), Status.unschedulable(str(fit))

        best = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, Status.unschedulable("no candidate node for preemption")
        self.prepare_candidate(best, pod)
        return PostFilterResult.nominate(best.name), Status()

    def find_candidates(
        self,
        state: CycleState,
        all_nodes: Sequence[NodeInfo],
        pod: Pod,
        statuses: NodeToStatus,
    ) -> tuple[list[Candidate], NodeToStatus, list[BaseException]]:
        """Dry-run preemption on the nodes Filter found Unschedulable (preemption cannot
        help where it said UnschedulableAndUnresolvable)."""
        potential = [n for n in all_nodes if statuses.get(n.name).code is Code.Unschedulable]
        if not potential:
            return [], NodeToStatus(), []
        pdbs = self.handle.cluster.list(PDB_KIND_NAME)
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(
            state, pod, potential, pdbs, offset, num_candidates, statuses=statuses
        )

    def dry_run_preemption(
        self,
        state: CycleState,
        pod: Pod,
        potential_nodes: Sequence[NodeInfo],
        pdbs: Sequence[Any],
        offset: int,
        num_candidates: int,
        *,
        statuses: NodeToStatus | None = None,
    ) -> tuple[list[Candidate], NodeToStatus, list[BaseException]]:
        """Candidates (those violating no PDB first), the status of every node that is not
        one, and the errors met. Nodes are visited from `offset` round the list; the search
        stops once it has `num_candidates`, at least one of them violating no PDB.

        The policy's `quick_dry_run` (given Filter's `statuses`, empty when not given),
        else its `rules_out_node`, spares nodes the copy and the dry run: a node it answers
        victims for is a candidate with them, and a node it rules out cannot be one, so
        the search goes on exactly as if its dry run had failed. Such a node's status (and
        error) matters only when no candidate is found (the diagnosis reports them; with
        candidates they are dropped), so only then are those nodes dry-run, and the
        statuses and errors come in the order the nodes were visited, as without the rule.
        """
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        failed: list[tuple[NodeInfo, Status | None]] = []
        """The nodes that are no candidate, in visit order: a status, or None when ruled
        out (not dry-run yet)."""
        quick = None
        if self._quick_dry_run is not None:
            given = statuses if statuses is not None else NodeToStatus()
            quick = self._quick_dry_run(state, pod, pdbs, given)
        rules_out = self._rules_out_node if quick is None else None
        n = len(potential_nodes)
        for i in range(n):
            node = potential_nodes[(offset + i) % n]
            candidate: Candidate | None
            if quick is not None:
                answer = quick(node)
                if isinstance(answer, Victims):
                    candidate = Candidate(node.name, answer)
                elif answer:
                    failed.append((node, None))
                    continue
                else:
                    candidate, status = self._dry_run_node(state, pod, node, pdbs)
            elif rules_out is not None and rules_out(state, pod, node):
                failed.append((node, None))
                continue
            else:
                candidate, status = self._dry_run_node(state, pod, node, pdbs)
            if candidate is None:
                failed.append((node, status))
                continue
            found = violating if candidate.victims.num_pdb_violations else non_violating
            if len(found) < num_candidates:
                found.append(candidate)
            if non_violating and len(non_violating) + len(violating) >= num_candidates:
                break
        candidates = non_violating + violating
        node_statuses = NodeToStatus()
        errors: list[BaseException] = []
        for node, known in failed:
            if known is not None:
                status = known
            elif candidates:
                continue
            else:
                candidate, status = self._dry_run_node(state, pod, node, pdbs)
                if candidate is not None:  # the rule was wrong: never lose a candidate
                    candidates.append(candidate)
                    continue
            if status.code is Code.Error:
                errors.append(_as_exception(status))
            node_statuses.set(node.name, status)
        return candidates, node_statuses, errors

    def _dry_run_node(
        self, state: CycleState, pod: Pod, node: NodeInfo, pdbs: Sequence[Any]
    ) -> tuple[Candidate | None, Status]:
        """The policy's victims on a copy of the node: a candidate, or why it is none."""
        info = node.clone()
        victims, num_violations, status = self.interface.select_victims_on_node(
            state.clone(), pod, info, pdbs
        )
        if status.is_success and victims:
            return Candidate(info.name, Victims(victims, num_violations)), status
        if status.is_success:
            status = Status.as_error(f'expected at least one victim pod on node "{info.name}"')
        return None, status

    def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        victims = self.interface.candidates_to_victims_map(candidates)
        score_funcs = self.interface.ordered_score_funcs(victims)
        node = pick_one_node_for_preemption(victims, score_funcs, self.handle.clock.wall_time())
        if node in victims:
            return Candidate(node, victims[node])
        return candidates[0]

    # -- evicting the victims -----------------------------------------------------------
    def prepare_candidate(self, candidate: Candidate, pod: Pod) -> None:
        """Start evicting the candidate's victims (those not already terminating) and
        clearing the nominations of lower-priority pods on its node, in a task."""
        victims = [v for v in candidate.victims.pods if v.metadata.deletion_timestamp is None]
        if not victims:
            return
        for watch in self.candidate_watchers:
            watch(candidate)
        task = asyncio.get_running_loop().create_task(self._prepare(candidate, pod, victims))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _prepare(self, candidate: Candidate, pod: Pod, victims: Sequence[Pod]) -> None:
        try:
            # Lower-priority pods nominated to this node may no longer fit there: clearing
            # their nomination sends them back to the queue to look elsewhere sooner.
            for nominated in self._lower_priority_nominated_pods(pod, candidate.name):
                try:
                    await self._clear_nominated_node_name(nominated)
                except KubeschedError:
                    # preemption.go: "not critical", the evictions go on
                    _log.exception("Cannot clear 'NominatedNodeName' field from %s", nominated.key)
            for victim in victims:
                await self.preempt_pod(candidate, pod, victim)
        except Exception:
            _log.exception("preempting for pod %s on node %s failed", pod.key, candidate.name)
            # as upstream: a preemptor whose evictions failed must not wait for an event
            self.handle.activate([pod])

    def _lower_priority_nominated_pods(self, pod: Pod, node_name: str) -> list[Pod]:
        return [
            info.pod
            for info in self.handle.nominated_pods_for_node(node_name)
            if info.pod.priority < pod.priority
        ]

    async def _clear_nominated_node_name(self, pod: Pod) -> None:
        cluster = self.handle.cluster
        current: Pod | None = cluster.get("Pod", pod.metadata.name, pod.metadata.namespace)
        if current is None or not current.status.nominated_node_name:
            return
        scheduled = current.status.condition("PodScheduled")
        if scheduled is not None:
            # a status patch of nominatedNodeName alone
            await cluster.update_pod_condition(current, scheduled, "")
        else:
            status = current.status.model_copy(update={"nominated_node_name": ""})
            await cluster.update(current.model_copy(update={"status": status}))

    async def _preempt_pod(self, candidate: Candidate, preemptor: Pod, victim: Pod) -> None:
        """A victim waiting at Permit is rejected; any other gets the DisruptionTarget
        condition and is deleted. A victim already gone is fine."""
        handle = self.handle
        waiting = handle.get_waiting_pod(victim.metadata.uid)
        if waiting is not None:
            waiting.reject(self.plugin_name, "preempted")
        else:
            cluster = handle.cluster
            name, namespace = victim.metadata.name, victim.metadata.namespace
            current: Pod | None = cluster.get("Pod", name, namespace)
            if current is None:
                return
            condition = PodCondition(
                type=DISRUPTION_TARGET,
                status="True",
                reason=PREEMPTION_BY_SCHEDULER,
                message=(
                    f"{preemptor.spec.scheduler_name}: "
                    "preempting to accommodate a higher priority pod"
                ),
            )
            existing = current.status.condition(DISRUPTION_TARGET)
            if existing is None or (existing.status, existing.reason, existing.message) != (
                condition.status,
                condition.reason,
                condition.message,
            ):
                try:
                    await cluster.update_pod_condition(current, condition)
                except KubeschedError:
                    # preemption.go PreemptPod: the preemption fails, the victim stays
                    _log.error(
                        "Could not add DisruptionTarget condition due to preemption: "
                        "victim %s, preemptor %s",
                        current.key,
                        preemptor.key,
                    )
                    raise
            try:
                await cluster.delete("Pod", name, namespace)
            except NotFoundError:
                return
        # preemption.go: Eventf(victim, pod, ...): the preemptor is the related object
        handle.event_recorder.event(
            victim,
            "Normal",
            "Preempted",
            "Preempting",
            f"Preempted by pod {preemptor.metadata.uid} on node {candidate.name}",
            related=preemptor,
        )
