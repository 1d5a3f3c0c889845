"""DefaultPreemption's quick dry run: SelectVictimsOnNode in integer arithmetic, for the
cycles where evicting pods can change no Filter answer but NodeResourcesFit's.

Upstream: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
(SelectVictimsOnNode) copies the node and the cycle state, removes every lower-priority
pod, runs the Filter plugins (with the nominated pods, twice), then puts the pods back one
by one, most important first (those whose eviction would violate a PDB before the others),
running Filter again after each. Not upstream: when the only Filter plugins of the cycle
are NodeResourcesFit and plugins that read nothing of the node but the Node object (and no
PreFilter plugin of the cycle has AddPod/RemovePod), every one of those Filter runs is
NodeResourcesFit's room test on sums of requests, so this module runs exactly that test on
the node's figures, with no copy of the node or the state and no Filter call:

- the node is no candidate (True, its status left to a real dry run if ever needed) when no
  pod has a lower priority, when the preemptor lacks room even with all of them gone, or
  when a node-only plugin rejects the node (then every Filter run on it fails);
- otherwise the pods are put back in upstream's order, each kept where the room test
  passes, and the rest are the victims, ordered as upstream orders them;
- anything else (no victims at all, which the real dry run reports as an error) is left
  to the real dry run (False).

The room test is NodeResourcesFit's (fits.go `fitsRequest` via `shortages`): one more pod
under the node's pod limit, and each resource the pod requests (> 0; ignored extended
resources left out) at most the node's allocatable minus what its pods request.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from operator import attrgetter
from typing import Any, Final

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, Pod
from kubesched.framework import (
    Code,
    CycleState,
    FilterPlugin,
    Handle,
    NodeInfo,
    NodeToStatus,
    PodInfo,
    Resource,
    Status,
)
from kubesched.framework.preemption import MoreImportantPodFunc, Victims, by_importance
from kubesched_builtin.defaultpreemption.pdb import filter_pods_with_pdb_violation
from kubesched_builtin.kinds import PodDisruptionBudget
from kubesched_builtin.nodeaffinity import NodeAffinity
from kubesched_builtin.nodename import NodeName
from kubesched_builtin.noderesources.fits import checked_scalar_requests
from kubesched_builtin.noderesources.plugin import PRE_FILTER_STATE_KEY, NodeResourcesFit
from kubesched_builtin.noderesources.plugin import PreFilterState as NodeResourcesFitPreFilterState
from kubesched_builtin.nodeunschedulable import NodeUnschedulable
from kubesched_builtin.tainttoleration import TaintToleration

__all__ = [
    "NODE_ONLY_FILTERS",
    "NodeMemo",
    "ResourcesOnlyDryRun",
    "VictimOrder",
    "resources_only_dry_run",
]

NODE_ONLY_FILTERS: Final[tuple[type[FilterPlugin[Any]], ...]] = (
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
)
"""Filter plugins whose answer on a node reads the Node object, the pod and their own
PreFilter state, never the node's pods (nor nominated ones): evicting pods cannot change
it. Exactly these classes: a subclass may read more."""

_BASIC: Final = (
    (CPU, "milli_cpu"),
    (MEMORY, "memory"),
    (EPHEMERAL_STORAGE, "ephemeral_storage"),
)
"""The basic resources the room test reads, and their Resource attributes."""

IsEligible = Callable[[NodeInfo, PodInfo, Pod], bool]
Amounts = Callable[[Resource], tuple[int, ...]]


def resources_only_dry_run(
    handle: Handle,
    fit: NodeResourcesFit | None,
    state: CycleState,
    pod: Pod,
    pdbs: Sequence[Any],
    statuses: NodeToStatus,
    order: VictimOrder,
    is_eligible: IsEligible | None,
    memo: NodeMemo,
) -> ResourcesOnlyDryRun | None:
    """The quick dry run for this preemptor, or None when this cycle's plugins allow
    none: NodeResourcesFit (with its own Filter, the `fit` given) must run at Filter with
    its PreFilter state, every other Filter plugin not skipped must be a node-only one,
    and no PreFilter plugin not skipped may have AddPod/RemovePod. `is_eligible` is the
    policy's extra victim test (None: every lower-priority pod); `memo` keeps each node's
    figures from one preemption to the next (`NodeMemo`)."""
    if fit is None:
        return None
    skip = state.skip_filter_plugins
    if fit.name in skip:
        return None
    data = state.get(PRE_FILTER_STATE_KEY)
    if not isinstance(data, NodeResourcesFitPreFilterState):
        return None
    filters: Sequence[FilterPlugin[Any]] | None = getattr(handle, "filter_plugins", None)
    pre_filters: Sequence[Any] | None = getattr(handle, "pre_filter_plugins", None)
    if filters is None or pre_filters is None:
        return None
    for p in pre_filters:
        if p.name not in skip and p.pre_filter_extensions() is not None:
            return None
    before: list[FilterPlugin[Any]] = []
    after: list[FilterPlugin[Any]] = []
    seen_fit = False
    for p in filters:
        if p.name in skip:
            continue
        if p is fit:
            seen_fit = True
        elif p.__class__ in NODE_ONLY_FILTERS:  # __class__: as `resources_fit` reads it
            (after if seen_fit else before).append(p)
        else:
            return None
    if not seen_fit:
        return None
    names = [name for name, _ in _BASIC if data.requests.get(name) > 0]
    names += [
        name
        for name, quantity in checked_scalar_requests(
            data.requests, fit.ignored_resources, fit.ignored_resource_groups
        )
        if quantity > 0
    ]
    # the nominator's listing by node, read once for the dry run (a kubesched Framework
    # handle has it; another handle is asked node by node)
    listing = getattr(getattr(handle, "nominator", None), "nominated_pods_by_node", None)
    return ResourcesOnlyDryRun(
        handle,
        fit.name,
        tuple(names),
        data.requests,
        state,
        pod,
        [p for p in pdbs if isinstance(p, PodDisruptionBudget)],
        statuses,
        order,
        is_eligible,
        (before, after),
        memo,
        listing() if callable(listing) else None,
    )


@dataclass(frozen=True)
class VictimOrder:
    """The policy's victim order: `more_important` and its sort `key`; `now` when it is
    the default order (priority, then start time, `now` for a pod not started), which the
    dry run then computes from the figures it keeps."""

    more_important: MoreImportantPodFunc
    key: Callable[[Pod], Any]
    now: datetime | None


def _amounts_of(names: Sequence[str]) -> Amounts:
    """The amounts of `names` (resource names) in a Resource, in that order."""
    basic = dict(_BASIC)
    if all(name in basic for name in names):
        attrs = [basic[name] for name in names]
        if len(attrs) > 1:
            return attrgetter(*attrs)
        if attrs:
            one = attrgetter(attrs[0])
            return lambda r: (one(r),)
        return lambda r: ()
    lookups = [basic.get(name) for name in names]

    def amounts(r: Resource) -> tuple[int, ...]:
        scalar = r.scalar
        return tuple(
            getattr(r, attr) if attr is not None else scalar.get(name, 0)
            for name, attr in zip(names, lookups, strict=True)
        )

    return amounts


_Pod = tuple[int, PodInfo, tuple[int, ...], datetime | None]
"""A pod as the dry run reads it: priority, PodInfo, amounts, start time (None: not
started)."""


@dataclass(frozen=True, slots=True)
class _NodeFigures:
    """What the dry run reads of a node, for one generation of it: its room (allocatable
    minus requested) and pods, and for the lowest `k` pods by priority their total
    amounts (`freed[k]`)."""

    generation: int
    room: tuple[int, ...]
    count: int
    pods: list[_Pod]
    """The node's pods, in its order."""
    priorities: list[int]
    """The pods' priorities, ascending."""
    freed: list[tuple[int, ...]]


NodeMemo = MutableMapping[str, tuple[tuple[str, ...], _NodeFigures]]
"""Node name -> (the resources read, the node's figures): kept by the plugin across
preemptions; an entry is used only while the node's generation and the resources read are
the same (a node info takes a new generation at every change; a clone keeps it)."""


def _start_time(pod: Pod) -> datetime | None:
    start = pod.status.start_time
    if start is None:
        return None
    return start if start.tzinfo is not None else start.replace(tzinfo=UTC)


class ResourcesOnlyDryRun:
    """One preemptor's quick dry run (see the module docstring): called with a node,
    the victims SelectVictimsOnNode would find there, True when it would find none, False
    when only the real dry run can tell."""

    def __init__(
        self,
        handle: Handle,
        fit_name: str,
        names: tuple[str, ...],
        request: Resource,
        state: CycleState,
        pod: Pod,
        pdbs: list[PodDisruptionBudget],
        statuses: NodeToStatus,
        order: VictimOrder,
        is_eligible: IsEligible | None,
        node_only: tuple[list[FilterPlugin[Any]], list[FilterPlugin[Any]]],
        memo: NodeMemo,
        nominated: Mapping[str, Sequence[PodInfo]] | None = None,
    ) -> None:
        self.handle = handle
        self.fit_name = fit_name
        self.names = names
        """The resources the room test reads: those the pod requests."""
        self.amounts = _amounts_of(names)
        self.request = self.amounts(request)
        self.state = state
        self.pod = pod
        self.priority = pod.priority
        self.uid = pod.metadata.uid
        self.pdbs = pdbs
        self.statuses = statuses
        self.order = order
        self.is_eligible = is_eligible
        self.before_fit, self.after_fit = node_only
        """The node-only Filter plugins before and after NodeResourcesFit."""
        self.memo = memo
        self.nominated = nominated
        """node name -> its nominated pods (None: ask the handle per node)."""

    def _figures(self, node_info: NodeInfo) -> _NodeFigures:
        names = self.names
        found = self.memo.get(node_info.name)
        if found is not None and found[1].generation == node_info.generation and found[0] == names:
            return found[1]
        amounts = self.amounts
        pods = [
            (info.pod.spec.priority or 0, info, amounts(info.requests), _start_time(info.pod))
            for info in node_info.pods
        ]
        by_priority = sorted(pods, key=lambda p: p[0])
        total = tuple(0 for _ in names)
        freed = [total]
        for p in by_priority:
            total = tuple(a + b for a, b in zip(total, p[2], strict=True))
            freed.append(total)
        room = tuple(
            a - u
            for a, u in zip(
                amounts(node_info.allocatable), amounts(node_info.requested), strict=True
            )
        )
        figures = _NodeFigures(
            node_info.generation,
            room,
            len(node_info.pods),
            pods,
            [p[0] for p in by_priority],
            freed,
        )
        self.memo[node_info.name] = (names, figures)
        return figures

    def __call__(self, node_info: NodeInfo) -> Victims | bool:
        figures = self._figures(node_info)
        priority = self.priority
        eligible = self.is_eligible
        potential: list[_Pod] | None = None
        if eligible is None:
            lower = bisect_left(figures.priorities, priority)
            freed = figures.freed[lower]
        else:
            pod = self.pod
            potential = [
                p for p in figures.pods if p[0] < priority and eligible(node_info, p[1], pod)
            ]
            lower = len(potential)
            freed = figures.freed[0]
            for p in potential:
                freed = tuple([a + b for a, b in zip(freed, p[2], strict=True)])
        if not lower:
            return True
        if node_info.node is None:
            return False
        # alone[i]: what resource i leaves once the pod is placed (negative: short), with
        # every lower-priority pod gone; room: the same with the nominated pods Filter
        # counts placed too (upstream addGENominatedPods); Filter runs with them, then
        # (when there are some) without them: both must pass
        alone = [r + f - q for r, f, q in zip(figures.room, freed, self.request, strict=True)]
        room = alone
        extra = 0
        nominated = self.nominated
        listed = (
            nominated.get(node_info.name, ())
            if nominated is not None
            else self.handle.nominated_pods_for_node(node_info.name)
        )
        for info in listed:
            if (info.pod.spec.priority or 0) >= priority and info.pod.metadata.uid != self.uid:
                room = [x - q for x, q in zip(room, self.amounts(info.requests), strict=True)]
                extra += 1
        count = figures.count - lower
        allowed = node_info.allocatable.allowed_pod_number
        if (
            count + extra >= allowed
            or any(x < 0 for x in room)
            or (extra and any(x < 0 for x in alone))
            or not self._node_only_pass(node_info)
        ):
            return True

        if potential is None:
            potential = [p for p in figures.pods if p[0] < priority]
        now = self.order.now
        if now is not None:
            potential.sort(key=lambda p: (-p[0], now if p[3] is None else p[3]))
        else:
            key = self.order.key
            potential.sort(key=lambda p: key(p[1].pod))
        if self.pdbs:
            infos = [p[1] for p in potential]
            violating_infos, _ = filter_pods_with_pdb_violation(infos, self.pdbs)
            violating_ids = {id(info) for info in violating_infos}
            violating = [p for p in potential if id(p[1]) in violating_ids]
            non_violating = [p for p in potential if id(p[1]) not in violating_ids]
        else:
            violating, non_violating = [], potential
        victims: list[Pod] = []
        num_violating = 0
        for group in (violating, non_violating):
            for _, info, taken, _ in group:
                # put back where the pod (and the nominated pods) still fit: one more pod
                # under the limit, and every resource's room covers the pod's amount
                if (
                    count + 1 + extra < allowed
                    and all(x >= q for x, q in zip(room, taken, strict=True))
                    and (not extra or all(x >= q for x, q in zip(alone, taken, strict=True)))
                ):
                    room = [x - q for x, q in zip(room, taken, strict=True)]
                    if extra:
                        alone = [x - q for x, q in zip(alone, taken, strict=True)]
                    count += 1
                    continue
                victims.append(info.pod)
                if group is violating:
                    num_violating += 1
        if not victims:
            return False  # the real dry run calls this an error: let it say so
        if violating and non_violating:
            victims = by_importance(victims, self.order.more_important)
        return Victims(victims, num_violating)

    def _node_only_pass(self, node_info: NodeInfo) -> bool:
        """Whether every node-only Filter plugin passes the node. Those before
        NodeResourcesFit in the profile passed already when Filter's status on the node is
        NodeResourcesFit's."""
        plugins = self.after_fit
        if self.before_fit and self.statuses.get(node_info.name).plugin != self.fit_name:
            plugins = [*self.before_fit, *plugins]
        state, pod = self.state, self.pod
        for p in plugins:
            try:
                status: Status | None = p.filter(state, pod, node_info)
            except Exception:
                return False
            if status is not None and status.code is not Code.Success:
                return False
        return True
