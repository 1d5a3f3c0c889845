"""Contracts on the scheduling cycle's points, checked on generated pods and nodes:
PreFilter, Filter, PreFilterExtensions, PostFilter, PreScore, Score, Reserve, Permit, and
the vectorized Filter/Score forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesched.framework import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Code,
    CycleState,
    FilterPlugin,
    NodeToStatus,
    PermitPlugin,
    PodInfo,
    PostFilterPlugin,
    PostFilterResult,
    PreFilterPlugin,
    PreFilterResult,
    ReservePlugin,
    ScorePlugin,
    Status,
)
from kubesched.testing._contract_base import ContractBase, contract
from kubesched.testing._fingerprint import fingerprint
from kubesched.testing._harness import PluginHarness, status_of
from kubesched.testing._scenario import Scenario

__all__ = [
    "FilterContract",
    "PermitContract",
    "PostFilterContract",
    "PreFilterContract",
    "PreFilterExtensionsContract",
    "PreScoreContract",
    "ReserveContract",
    "ScoreContract",
    "VectorizedContract",
]

MAX_PERMIT_TIMEOUT = 15 * 60
"""Permit may hold a pod for at most 15 minutes (upstream maxTimeout)."""


def _inputs(h: PluginHarness) -> dict[str, Any]:
    """What Filter must leave as it found it: the pod, each node info, the snapshot, and
    the cluster (Filter writes nothing to the API)."""
    return {
        "the pod": fingerprint(h.pod),
        **{f"node info {n.name}": fingerprint(n) for n in h.nodes},
        "the snapshot": fingerprint(h.snapshot),
        "the cluster": h.cluster.resource_version,
    }


def _changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [key for key in before if before[key] != after.get(key)]


@contract("PreFilter")
class PreFilterContract(ContractBase):
    """PreFilter's Skip is an optimisation, not a different answer."""

    def test_pre_filter_skip_is_consistent(self) -> None:
        """PreFilter's Skip is deterministic and its Filter would reject no node after it"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            assert isinstance(h.plugin, PreFilterPlugin)
            answers = []
            for _ in range(2):
                result, raw = h.plugin.pre_filter(CycleState(), h.pod, h.nodes)
                assert result is None or isinstance(result, PreFilterResult), (
                    f"PreFilter returned {result!r} as its result"
                )
                status = status_of(raw)
                answers.append((status.code, None if result is None else result.node_names))
            assert answers[0] == answers[1], f"PreFilter answered {answers[0]}, then {answers[1]}"
            if answers[0][0] is not Code.Skip or not isinstance(h.plugin, FilterPlugin):
                return
            state = CycleState()
            h.plugin.pre_filter(state, h.pod, h.nodes)
            rejected = {
                n.name: s.message()
                for n in h.nodes
                if (s := status_of(h.plugin.filter(state, h.pod, n))).is_rejected
            }
            assert not rejected, (
                f"PreFilter returned Skip, so Filter does not run, yet Filter rejects {rejected}"
            )

        self.for_all(self.scenarios(), check)


@contract("Filter")
class FilterContract(ContractBase):
    """Filter reads; it never writes, and the same question gets the same answer."""

    def test_filter_does_not_mutate(self) -> None:
        """PreFilter and Filter never mutate the pod, node infos, snapshot or cluster"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            before = _inputs(h)
            h.filter_phase(CycleState())
            changed = _changed(before, _inputs(h))
            assert not changed, f"PreFilter/Filter changed {', '.join(changed)}"

        self.for_all(self.scenarios(), check)

    def test_filter_is_deterministic(self) -> None:
        """Filter gives the same answers for the same inputs"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            first = h.filter_phase(CycleState()).answers()
            again = h.filter_phase(CycleState()).answers()
            fresh = self.harness(scenario).filter_phase(CycleState()).answers()
            assert first == again, f"the same plugin answered {first}, then {again}"
            assert first == fresh, f"a new instance answered {fresh}, the first {first}"

        self.for_all(self.scenarios(), check)


@contract("PreFilterExtensions")
class PreFilterExtensionsContract(ContractBase):
    """AddPod and RemovePod keep PreFilter's state in step with the node."""

    def test_add_then_remove_pod_restores_filter(self) -> None:
        """PreFilterExtensions add_pod then remove_pod leaves Filter's answers as before"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            other = scenario.other
            assert isinstance(h.plugin, PreFilterPlugin)
            state = CycleState()
            phase = h.filter_phase(state)
            target = h.snapshot.get(other.spec.node_name) if other is not None else None
            if other is None or target is None or not phase.ran_filter:
                return
            ext = h.plugin.pre_filter_extensions()
            assert ext is not None
            trial_state, trial_node, info = state.clone(), target.clone(), PodInfo(other)
            trial_node.add_pod_info(info)
            added = status_of(ext.add_pod(trial_state, h.pod, info, trial_node))
            assert added.is_success, f"add_pod failed: {added!r}"
            trial_node.remove_pod(other)
            removed = status_of(ext.remove_pod(trial_state, h.pod, info, trial_node))
            assert removed.is_success, f"remove_pod failed: {removed!r}"
            if not isinstance(h.plugin, FilterPlugin):
                return
            after = {}
            for n in h.nodes_for(phase.result):
                node = trial_node if n.name == target.name else n
                s = status_of(h.plugin.filter(trial_state, h.pod, node))
                after[n.name] = (int(s.code), s.message())
            assert after == phase.answers(), (
                f"after adding and removing {other.key} on {target.name}, Filter answers "
                f"{after}; before it answered {phase.answers()}"
            )

        self.for_all(self.scenarios(), check)


@contract("PostFilter")
class PostFilterContract(ContractBase):
    """PostFilter answers with a result and a status, and leaves its inputs alone."""

    def test_post_filter_answers_without_mutating(self) -> None:
        """PostFilter returns (result, status) and does not mutate the pod or snapshot"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            assert isinstance(h.plugin, PostFilterPlugin)
            plugin = h.plugin
            state = CycleState()
            h.filter_phase(state)
            statuses = NodeToStatus()
            for n in h.nodes:
                statuses.set(n.name, Status.unschedulable("rejected by the conformance kit"))
            before = {"the pod": fingerprint(h.pod), "the snapshot": fingerprint(h.snapshot)}
            out = h.run_in_loop(lambda: plugin.post_filter(state, h.pod, statuses))
            assert isinstance(out, tuple) and len(out) == 2, f"PostFilter returned {out!r}"
            result, status = out
            assert result is None or isinstance(result, PostFilterResult), f"result {result!r}"
            assert status is None or isinstance(status, Status), f"status {status!r}"
            after = {"the pod": fingerprint(h.pod), "the snapshot": fingerprint(h.snapshot)}
            changed = _changed(before, after)
            assert not changed, f"PostFilter changed {', '.join(changed)}"
            info = result.nominating_info if result is not None else None
            if info is not None and info.nominated_node_name:
                assert h.snapshot.get(info.nominated_node_name) is not None, (
                    f"PostFilter nominated {info.nominated_node_name!r}, which is not a node"
                )

        self.for_all(self.scenarios(), check)


@contract("PreScore")
class PreScoreContract(ContractBase):
    """PreScore's Skip is an optimisation, not a different ranking."""

    def test_pre_score_skip_is_consistent(self) -> None:
        """PreScore's Skip is deterministic and its Score would rank all nodes alike"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            phases = []
            for _ in range(2):
                state = CycleState()
                nodes = h.feasible(h.filter_phase(state))
                if not nodes:
                    return
                phases.append(h.score_phase(state, nodes, force=True))
            codes = [p.pre_score.code for p in phases]
            assert codes[0] == codes[1], f"PreScore answered {codes[0]}, then {codes[1]}"
            skipped = phases[0]
            if skipped.pre_score.is_skip and skipped.complete:
                distinct = {s.name: s.score for s in skipped.scores}
                assert len(set(distinct.values())) <= 1, (
                    f"PreScore returned Skip, so Score does not run, yet Score ranks {distinct}"
                )

        self.for_all(self.scenarios(), check)


@contract("Score")
class ScoreContract(ContractBase):
    """Final scores lie in [0, 100]."""

    def test_score_in_range_after_normalize(self) -> None:
        """Score after NormalizeScore lies in [0, 100] on every feasible node"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            state = CycleState()
            nodes = h.feasible(h.filter_phase(state))
            if not nodes:
                return
            phase = h.score_phase(state, nodes)
            for value in phase.raw:
                assert isinstance(value, int) and not isinstance(value, bool), (
                    f"Score returned {value!r}, not an int"
                )
            if not phase.complete:
                return
            bad = {
                s.name: s.score
                for s in phase.scores
                if not isinstance(s.score, int) or not MIN_NODE_SCORE <= s.score <= MAX_NODE_SCORE
            }
            assert not bad, (
                f"scores out of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing: {bad}"
            )

        self.for_all(self.scenarios(), check)


@contract("Reserve")
class ReserveContract(ContractBase):
    """Unreserve undoes Reserve, and is safe to call at any time."""

    def _cycle(self, h: PluginHarness) -> tuple[CycleState, str] | None:
        """A state after PreFilter/Filter and a node the pod could be reserved on."""
        state = CycleState()
        nodes = h.feasible(h.filter_phase(state))
        return (state, nodes[0].name) if nodes else None

    def test_reserve_unreserve_restores_state(self) -> None:
        """Reserve then Unreserve leaves the plugin's state as before"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            assert isinstance(h.plugin, ReservePlugin)
            cycle = self._cycle(h)
            if cycle is None:
                return
            state, node = cycle
            before = self.plugin_state(h)
            h.plugin.reserve(state, h.pod, node)
            h.plugin.unreserve(state, h.pod, node)
            assert self.plugin_state(h) == before, (
                f"the plugin's state after Reserve and Unreserve on {node} differs from before"
            )

        self.for_all(self.scenarios(), check)

    def test_unreserve_is_idempotent(self) -> None:
        """Unreserve twice, or without Reserve, does not fail"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            assert isinstance(h.plugin, ReservePlugin)
            before = self.plugin_state(h)
            node = scenario.nodes[0].metadata.name
            h.plugin.unreserve(CycleState(), h.pod, node)
            assert self.plugin_state(h) == before, "Unreserve without Reserve changed state"
            cycle = self._cycle(h)
            if cycle is None:
                return
            state, node = cycle
            h.plugin.reserve(state, h.pod, node)
            h.plugin.unreserve(state, h.pod, node)
            h.plugin.unreserve(state, h.pod, node)

        self.for_all(self.scenarios(), check)


@contract("Permit")
class PermitContract(ContractBase):
    """Permit holds pods for a bounded time."""

    def test_permit_timeout_in_bounds(self) -> None:
        """Permit's timeout is a number, within 0..15 minutes when it says Wait"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            assert isinstance(h.plugin, PermitPlugin)
            state = CycleState()
            nodes = h.feasible(h.filter_phase(state))
            if not nodes:
                return
            node = nodes[0].name
            reserved = isinstance(h.plugin, ReservePlugin)
            if isinstance(h.plugin, ReservePlugin):
                h.plugin.reserve(state, h.pod, node)
            out = h.plugin.permit(state, h.pod, node)
            assert isinstance(out, tuple) and len(out) == 2, f"Permit returned {out!r}"
            status, timeout = status_of(out[0]), out[1]
            assert isinstance(timeout, int | float) and not isinstance(timeout, bool), (
                f"Permit's timeout {timeout!r} is not a number of seconds"
            )
            if status.is_wait:
                assert 0 <= timeout <= MAX_PERMIT_TIMEOUT, (
                    f"Permit waits {timeout}s; the limit is 0..{MAX_PERMIT_TIMEOUT}s (15 min)"
                )
            if reserved and isinstance(h.plugin, ReservePlugin):
                h.plugin.unreserve(state, h.pod, node)

        self.for_all(self.scenarios(), check)


@contract("VectorizedFilter")
class VectorizedFilterContract(ContractBase):
    def test_filter_vectorized_matches_filter(self) -> None:
        """the vectorized Filter equals Filter node by node"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            assert isinstance(h.plugin, FilterPlugin)
            state = CycleState()
            if not h.filter_phase(state).pre_filter.is_success:
                return
            per_node = [status_of(h.plugin.filter(state, h.pod, n)).is_success for n in h.nodes]
            vectorized: Callable[..., Any] = h.plugin.filter_vectorized  # type: ignore[attr-defined]
            whole = [bool(v) for v in vectorized(state, h.pod, h.snapshot.columns)]
            assert whole == per_node, f"vectorized {whole}, node by node {per_node}"

        self.for_all(self.scenarios(), check)


@contract("VectorizedScore")
class VectorizedScoreContract(ContractBase):
    def test_score_vectorized_matches_score(self) -> None:
        """the vectorized Score equals Score node by node"""

        def check(scenario: Scenario) -> None:
            h = self.harness(scenario)
            assert isinstance(h.plugin, ScorePlugin)
            state = CycleState()
            h.filter_phase(state)
            phase = h.score_phase(state, h.nodes)
            if not phase.pre_score.is_success or not phase.status.is_success:
                return
            vectorized: Callable[..., Any] = h.plugin.score_vectorized  # type: ignore[attr-defined]
            whole = [int(v) for v in vectorized(state, h.pod, h.snapshot.columns)]
            assert whole == phase.raw, f"vectorized {whole}, node by node {phase.raw}"

        self.for_all(self.scenarios(), check)


class VectorizedContract(VectorizedFilterContract, VectorizedScoreContract):
    """Where a plugin offers vectorized forms (`filter_vectorized`, `score_vectorized`
    over `Snapshot.columns`), they agree with the per-node forms."""
