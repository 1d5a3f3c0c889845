"""Feasibility by packing: can the members a gang still needs be placed, all of them?

kubesched's answer to scheduler-plugins #429/#930 (a summed `minResources` says yes, the
members then fail one by one while their siblings hold resources). Before a group holds
anything, the members it still needs are placed one after another on copies of the
current snapshot's nodes with the profile's own PreFilter and Filter plugins; each placed
member is added to its node copy (and to the PreFilter state of the next members, through
the PreFilter extensions), so affinity, ports, pod counts and resources between members
are honoured. Largest members go first (first-fit decreasing); nodes are tried from where
the previous member went (next fit), which costs O(members + nodes) for identical members.

The placement found is the group's plan: each member is then steered to its planned node
(a PreFilterResult), so what is bound is exactly what was proven to fit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from kubesched.api import Pod
from kubesched.framework import CycleState, Handle, NodeInfo, PodInfo, Status

__all__ = ["Plan", "Planner", "pack", "rejection_summary"]


@dataclass
class Plan:
    """Where a group's still-needed members go, or why they cannot all be placed."""

    generation: tuple[int, int, int]
    """The snapshot it was computed on (identity, generation, node count)."""
    needed: int
    assignments: dict[str, str] = field(default_factory=dict)
    """Member UID -> node name."""
    failure: str | None = None


def _size(pod: Pod) -> tuple[int, int]:
    requests = PodInfo(pod).requests
    return requests.milli_cpu, requests.memory


def rejection_summary(statuses: Sequence[Status]) -> str:
    """`2 Insufficient cpu, 1 node(s) were unschedulable`, as FitError counts reasons."""
    reasons: Counter[str] = Counter()
    for status in statuses:
        texts = list(status.reasons)
        if status.error is not None:
            texts.insert(0, str(status.error))
        for text in texts or [status.code.name]:
            reasons[text] += 1
    return ", ".join(sorted(f"{count} {reason}" for reason, count in reasons.items()))


@dataclass
class _Kind:
    """PreFilter state shared by members with the same namespace, labels and spec, kept
    up to date with every member placed so far (through the PreFilter extensions)."""

    pod: Pod
    state: CycleState
    allowed: frozenset[str] | None


def _signature(pod: Pod) -> tuple[str, str, str]:
    labels = ",".join(f"{k}={v}" for k, v in sorted(pod.metadata.labels.items()))
    return pod.metadata.namespace or "default", labels, pod.spec.model_dump_json()


def pack(
    handle: Handle,
    members: Sequence[Pod],
    nodes: Sequence[NodeInfo],
    *,
    generation: tuple[int, int, int],
    describe: Callable[[int, Pod, str], str],
) -> Plan:
    """Place every pod of `members` (the group's still-needed ones) on `nodes`.

    The node infos are never changed: a node that receives a member is cloned first. On
    failure the plan's `failure` is `describe(placed, pod_that_did_not_fit, reasons)`.
    Members alike (same namespace, labels and spec) share one PreFilter run, so identical
    members cost O(members + nodes) Filter calls in all.
    """
    plan = Plan(generation, len(members))
    order = sorted(members, key=lambda p: (-_size(p)[0], -_size(p)[1], p.metadata.name))
    copies: dict[str, NodeInfo] = {}
    placed: list[tuple[PodInfo, str]] = []
    kinds: dict[tuple[str, str, str], _Kind] = {}
    cursor = 0
    n = len(nodes)
    for pod in order:
        signature = _signature(pod)
        kind = kinds.get(signature)
        if kind is None:
            state = CycleState()
            result, status, _ = handle.run_pre_filter_plugins(state, pod, nodes)
            if not status.is_success:
                plan.failure = describe(len(placed), pod, status.message())
                return plan
            for pinfo, node_name in placed:
                s = handle.run_pre_filter_extension_add_pod(state, pod, pinfo, copies[node_name])
                if not s.is_success:
                    plan.failure = describe(len(placed), pod, s.message())
                    return plan
            allowed = result.node_names if result is not None else None
            kind = kinds[signature] = _Kind(pod, state, allowed)
        statuses: list[Status] = []
        chosen = -1
        for i in range(n):
            index = (cursor + i) % n
            info = copies.get(nodes[index].name, nodes[index])
            if kind.allowed is not None and info.name not in kind.allowed:
                statuses.append(Status.unresolvable("node(s) didn't satisfy the PreFilter result"))
                continue
            s = handle.run_filter_plugins(kind.state, pod, info)
            if s.is_success:
                chosen = index
                break
            statuses.append(s)
        if chosen < 0:
            plan.failure = describe(len(placed), pod, rejection_summary(statuses))
            return plan
        cursor = chosen
        name = nodes[chosen].name
        copy = copies.get(name)
        if copy is None:
            copy = copies[name] = nodes[chosen].clone()
        on_node = pod.model_copy(update={"spec": pod.spec.model_copy(update={"node_name": name})})
        pinfo = PodInfo(on_node)
        copy.add_pod_info(pinfo)
        placed.append((pinfo, name))
        plan.assignments[pod.metadata.uid] = name
        for other in kinds.values():
            s = handle.run_pre_filter_extension_add_pod(other.state, other.pod, pinfo, copy)
            if not s.is_success:
                plan.failure = describe(len(placed), other.pod, s.message())
                return plan
    return plan


class Planner:
    """Packs groups for one profile's plugin and checks a member's planned node.

    The profile's PreFilter plugins include the plugin itself: while `active`, its
    PreFilter must step aside (return Success) instead of planning again.
    """

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        self.active = False

    @contextmanager
    def _running(self) -> Iterator[None]:
        self.active = True
        try:
            yield
        finally:
            self.active = False

    def generation(self, nodes: Sequence[NodeInfo]) -> tuple[int, int, int]:
        return (id(self._handle.snapshot), hash(tuple(n.generation for n in nodes)), len(nodes))

    def plan(
        self,
        previous: Plan | None,
        pod: Pod,
        others: Callable[[], Sequence[Pod]],
        nodes: Sequence[NodeInfo],
        describe: Callable[[int, Pod, str], str],
    ) -> Plan:
        """The plan for `pod` and the siblings still needed with it (`others()`, asked only
        when packing): `previous` while it still holds (same snapshot and infeasible, or
        this pod's planned node still fits), else packed anew."""
        generation = self.generation(nodes)
        uid = pod.metadata.uid
        if previous is not None and previous.failure is not None:
            if previous.generation == generation:
                return previous  # nothing changed since it was found infeasible
        elif (
            previous is not None
            and uid in previous.assignments
            and self.still_fits(pod, previous.assignments[uid], nodes)
        ):
            return previous
        with self._running():
            return pack(
                self._handle, [pod, *others()], nodes, generation=generation, describe=describe
            )

    def still_fits(self, pod: Pod, node_name: str, nodes: Sequence[NodeInfo]) -> bool:
        """Whether the pod passes the profile's PreFilter and Filter on that node now."""
        info = self._handle.snapshot.get(node_name)
        if info is None:
            return False
        state = CycleState()
        with self._running():
            result, status, _ = self._handle.run_pre_filter_plugins(state, pod, nodes)
        if not status.is_success:
            return False
        names = result.node_names if result is not None else None
        if names is not None and node_name not in names:
            return False
        return self._handle.run_filter_plugins(state, pod, info).is_success
