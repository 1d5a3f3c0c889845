"""The Filter runners of a Framework: one node, many nodes in one call per plugin, and
the two passes with nominated pods (upstream framework.go RunFilterPlugins and
RunFilterPluginsWithNominatedPods)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Container, Mapping, Sequence
from functools import cached_property
from typing import Protocol

from kubesched.api import Pod
from kubesched.framework import (
    Code,
    CycleState,
    FilterPlugin,
    NodeInfo,
    PodInfo,
    PreFilterPlugin,
    Status,
)
from kubesched.runtime._nominated_copies import NominatedCopies
from kubesched.runtime._plugin_status import SUCCESS, raised, wrap_error

__all__ = ["FilterNote", "FilterRunners", "PodNominator"]

_FilterNodes = Callable[[CycleState, Pod, Sequence[NodeInfo]], Sequence[Status | None]]

FilterNote = Callable[[FilterPlugin, Status | None, BaseException | None], None]
"""Told one Filter plugin's answer on a node: its status, or the exception it raised."""


class PodNominator(Protocol):
    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]: ...

    def has_nominated_pods(self) -> bool: ...

    def nodes_with_nominated_pods(self) -> Collection[str]:
        """The names of the nodes some pod is nominated to (read at once, not kept)."""
        ...

    def nominated_pods_by_node(self) -> Mapping[str, Sequence[PodInfo]]:
        """node name -> its nominated pods (read at once, not kept); a node's sequence is
        replaced, never changed, when its pods change."""
        ...


class FilterRunners:
    """Mixed into Framework, which sets the attributes below."""

    filter_plugins: list[FilterPlugin]
    pre_filter_plugins: list[PreFilterPlugin]
    nominator: PodNominator | None
    _batch_filters: dict[str, _FilterNodes]

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod: Pod, pod_to_add: PodInfo, node_info: NodeInfo
    ) -> Status:
        raise NotImplementedError  # Framework's

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """The node's status: the first non-success stops (rejections keep their code)."""
        skip = state.skip_filter_plugins
        for p in self.filter_plugins:
            if skip and p.name in skip:
                continue
            try:
                s = p.filter(state, pod, node_info)
            except Exception as exc:
                s = raised(p, exc)
            if s is not None and s.code is not Code.Success:
                if s.is_rejected:
                    return s.with_plugin(p.name)
                return wrap_error(f'running "{p.name}" filter plugin', p.name, s)
        return SUCCESS

    def note_filter_plugins(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        note: FilterNote,
        only: Container[str] | None = None,
    ) -> None:
        """`run_filter_plugins`'s recording mode (`kubesched simulate --explain`): every
        Filter plugin it would run on the node runs (those in `only`, when given), none
        stopping the others, and `note(plugin, status, error)` is told each answer: `error`
        when the plugin raised (which `run_filter_plugins` makes an Error status)."""
        skip = state.skip_filter_plugins
        for p in self.filter_plugins:
            if p.name in skip or (only is not None and p.name not in only):
                continue
            try:
                s = p.filter(state, pod, node_info)
            except Exception as exc:
                note(p, None, exc)
            else:
                note(p, s, None)

    def run_filter_plugins_on_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status]:
        """`run_filter_plugins_with_nominated_pods` of each node, in the order given, with
        one call per plugin for the whole of `nodes` rather than one per node and plugin.

        Plugin by plugin in profile order, each sees the nodes every earlier plugin let
        through: through `filter_nodes` when it has it (BatchFilterPlugin), else `filter`
        node by node. A node's status is its first failing plugin's, attributed or wrapped
        exactly as `run_filter_plugins` does. Nodes with nominated pods take the per-node
        path (upstream's two passes, node by node: the reference the fast path's
        `filter_nodes_with_nominated_pods` is held to). Every node is evaluated: the
        caller decides which answers count."""
        nominator = self.nominator
        if nominator is not None and nominator.has_nominated_pods():
            names = nominator.nodes_with_nominated_pods()
            nominated = [n.name in names for n in nodes]
            if any(nominated):
                others = [n for n, has in zip(nodes, nominated, strict=True) if not has]
                batched = iter(self._filter_nodes_batched(state, pod, others))
                return [
                    self.run_filter_plugins_with_nominated_pods(state, pod, n)
                    if has
                    else next(batched)
                    for n, has in zip(nodes, nominated, strict=True)
                ]
        return self._filter_nodes_batched(state, pod, nodes)

    def filter_nodes_with_nominated_pods(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status]:
        """`run_filter_plugins_with_nominated_pods` of each node, in the order given (the
        fast path's way with nodes that have nominated pods).

        When no PreFilter extension runs this cycle (no plugin that ran PreFilter has
        AddPod/RemovePod), adding the nominated pods leaves the cycle state as it is: each
        pass then takes one call per plugin for all the nodes (the first on copies of the
        nodes with their pods added, the second on the nodes that passed it or had none
        added), and the state is not copied per node. Otherwise node by node."""
        if self._pre_filter_extensions_run(state):
            return [self.run_filter_plugins_with_nominated_pods(state, pod, n) for n in nodes]
        out: list[Status] = [SUCCESS] * len(nodes)
        added_at: list[int] = []
        added: list[NodeInfo] = []
        copies = self._nominated_copies
        if self.nominator is not None and len(copies) > 64:
            nominated = self.nominator.nodes_with_nominated_pods()
            if len(copies) > 2 * len(nominated) + 64:
                copies.keep_only(nominated)
        by_node = self.nominator.nominated_pods_by_node() if self.nominator is not None else {}
        priority, uid = pod.priority, pod.metadata.uid
        for i, info in enumerate(nodes):
            listed = by_node.get(info.name)
            if not listed or info.node is None:
                continue
            # upstream addGENominatedPods: a copy with the pods of equal or higher priority
            # (not the pod itself), AddPod extensions (none here) on a copy of the state
            # (unchanged, so shared: Filter does not write it)
            copy = copies.with_nominated(info, listed, priority, uid)
            if copy is not None:
                added_at.append(i)
                added.append(copy)
        for i, status in zip(added_at, self._filter_nodes_batched(state, pod, added), strict=True):
            out[i] = status
        again = [i for i, status in enumerate(out) if status.is_success]
        plain = self._filter_nodes_batched(state, pod, [nodes[i] for i in again])
        for i, status in zip(again, plain, strict=True):
            out[i] = status
        return out

    @cached_property
    def _nominated_copies(self) -> NominatedCopies:
        return NominatedCopies()

    def _pre_filter_extensions_run(self, state: CycleState) -> bool:
        """Whether adding or removing a pod runs some PreFilter extension this cycle (as
        `run_pre_filter_extension_add_pod` does: plugins not skipped, with extensions)."""
        skip = state.skip_filter_plugins
        return any(
            p.name not in skip and p.pre_filter_extensions() is not None
            for p in self.pre_filter_plugins
        )

    def _filter_nodes_batched(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status]:
        statuses: list[Status] = [SUCCESS] * len(nodes)
        live = list(nodes)
        live_index = list(range(len(nodes)))
        skip = state.skip_filter_plugins
        for p in self.filter_plugins:
            if not live:
                break
            if skip and p.name in skip:
                continue
            answers = self._filter_one_plugin(p, state, pod, live)
            if answers.count(None) == len(answers):
                continue  # the usual case: every node passed
            still: list[NodeInfo] = []
            still_index: list[int] = []
            for i, info, s in zip(live_index, live, answers, strict=True):
                if s is None or s.code is Code.Success:
                    still.append(info)
                    still_index.append(i)
                elif s.is_rejected:
                    statuses[i] = s.with_plugin(p.name)
                else:
                    statuses[i] = wrap_error(f'running "{p.name}" filter plugin', p.name, s)
            live, live_index = still, still_index
        return statuses

    def _filter_one_plugin(
        self, p: FilterPlugin, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> list[Status | None]:
        """One plugin's answer for each node: `filter_nodes` when it has it (node by node
        when that raises), else `filter` on each node; an exception is an Error."""
        batch = self._batch_filters.get(p.name)
        if batch is not None:
            try:
                answers = batch(state, pod, nodes)
                if not isinstance(answers, list):
                    answers = list(answers)
            except Exception:
                pass  # `filter` node by node says which node fails, and how
            else:
                if len(answers) == len(nodes):
                    return answers
                wrong = Status.as_error(
                    f"filter_nodes returned {len(answers)} statuses for {len(nodes)} nodes"
                )
                return [wrong] * len(nodes)
        out: list[Status | None] = []
        filter_ = p.filter
        for info in nodes:
            try:
                out.append(filter_(state, pod, info))
            except Exception as exc:
                out.append(raised(p, exc))
        return out

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status:
        """Filter twice when pods of equal or higher priority are nominated to the node:
        once as if they were there, once without them; both must pass."""
        nominator = self.nominator
        if (
            nominator is None
            or not nominator.has_nominated_pods()
            or not nominator.nominated_pods_for_node(node_info.name)
        ):
            return self.run_filter_plugins(state, pod, node_info)
        status = SUCCESS
        pods_added = False
        for i in range(2):
            state_to_use, info_to_use = state, node_info
            if i == 0:
                pods_added, state_to_use, info_to_use, err = self.add_nominated_pods(
                    pod, state, node_info
                )
                if err is not None:
                    return err
            elif not pods_added or not status.is_success:
                break
            status = self.run_filter_plugins(state_to_use, pod, info_to_use)
            if not status.is_success and not status.is_rejected:
                return status
        return status

    def nominated_pods_to_add(self, pod: Pod, node_info: NodeInfo) -> list[PodInfo]:
        """The pods nominated to the node that Filter counts for `pod`: those of equal or
        higher priority, other than `pod` itself (upstream addGENominatedPods)."""
        if self.nominator is None or node_info.node is None:
            return []
        priority, uid = pod.priority, pod.metadata.uid
        return [
            pi
            for pi in self.nominator.nominated_pods_for_node(node_info.name)
            # Pod.priority, read without the property call (once per node and cycle)
            if (pi.pod.spec.priority or 0) >= priority and pi.pod.metadata.uid != uid
        ]

    def add_nominated_pods(
        self, pod: Pod, state: CycleState, node_info: NodeInfo
    ) -> tuple[bool, CycleState, NodeInfo, Status | None]:
        """Filter's first pass inputs on the node (upstream addGENominatedPods): whether
        any nominated pod counts, and a cloned state and NodeInfo with those pods added
        (AddPod extensions run), or the AddPod extension's error."""
        # upstream clones first; cloning only when some nominated pod counts gives the
        # same answers (Filter plugins do not write the state), cheaper
        counted = self.nominated_pods_to_add(pod, node_info)
        if not counted:
            return False, state, node_info, None
        info_out = node_info.clone()
        state_out = state.clone()
        for pi in counted:
            info_out.add_pod_info(pi)
            s = self.run_pre_filter_extension_add_pod(state_out, pod, pi, info_out)
            if not s.is_success:
                return False, state, node_info, s
        return True, state_out, info_out, None
