"""The generic preemption evaluator driven by a policy of its own, with no built-in plugin.

Upstream: pkg/scheduler/framework/preemption/preemption_test.go (TestSelectCandidate's
pickOneNodeForPreemption criteria, TestDryRunPreemption's offset and candidate count,
TestPrepareCandidate's evictions). DefaultPreemption's own behaviour is tested in
kubesched-builtin; here the evaluator is checked through `PreemptionInterface` alone, as a
third-party (e.g. gang) preemption plugin would use it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.clock import VirtualTimeLoop
from kubesched.framework import (
    Code,
    CycleState,
    NodeInfo,
    NodeToStatus,
    PostFilterPlugin,
    PostFilterResult,
    Status,
)
from kubesched.framework.preemption import (
    DISRUPTION_TARGET,
    PREEMPTION_BY_SCHEDULER,
    Candidate,
    Evaluator,
    ScoreFunc,
    Victims,
    pick_one_node_for_preemption,
)
from kubesched.testing import PluginHarness, Scenario, make_node, make_pod

EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def pod(name: str, prio: int, node: str = "", start: int | None = None) -> Pod:
    builder = make_pod(name).priority(prio)
    if node:
        builder = builder.node(node)
    p = builder.obj()
    if start is not None:
        p.status.start_time = EPOCH + timedelta(seconds=start)
    return p


# -- pickOneNodeForPreemption ------------------------------------------------------------


def victims(*pods: Pod, violations: int = 0) -> Victims:
    return Victims(list(pods), violations)


PICK_CASES: list[tuple[str, dict[str, Victims], str]] = [
    (
        "fewest PDB violations first",
        {
            "a": victims(pod("a1", 1), violations=1),
            "b": victims(pod("b1", 5), pod("b2", 5)),
        },
        "b",
    ),
    (
        "then the lowest priority of the most important victim",
        {"a": victims(pod("a1", 5)), "b": victims(pod("b1", 3), pod("b2", 3))},
        "b",
    ),
    (
        "then the smallest sum of priorities (negative ones offset, so fewer pods win)",
        {"a": victims(pod("a1", 3), pod("a2", -5), pod("a3", -5)), "b": victims(pod("b1", 3))},
        "b",
    ),
    (
        "then the fewest victims",
        {"a": victims(pod("a1", 3), pod("a2", 0)), "b": victims(pod("b1", 3))},
        "b",
    ),
    (
        "then the latest start of the highest-priority victims",
        {
            "a": victims(pod("a1", 3, start=10)),
            "b": victims(pod("b1", 3, start=20)),
        },
        "b",
    ),
    (
        "a tie left goes to the first node",
        {"a": victims(pod("a1", 3, start=10)), "b": victims(pod("b1", 3, start=10))},
        "a",
    ),
]


@pytest.mark.parametrize(
    ("nodes_to_victims", "want"),
    [pytest.param(v, w, id=name) for name, v, w in PICK_CASES],
)
def test_pick_one_node_default_criteria(nodes_to_victims: dict[str, Victims], want: str) -> None:
    assert pick_one_node_for_preemption(nodes_to_victims, None, EPOCH) == want


def _upstream_pick(nodes_to_victims: dict[str, Victims], now: datetime) -> str:
    """pickOneNodeForPreemption as upstream writes it: each score function in turn keeps
    the nodes of the highest score; one left wins, else the first of the last ones."""

    def start(node: str) -> float:
        pods = nodes_to_victims[node].pods
        top = max(p.priority for p in pods)
        return min((p.status.start_time or now).timestamp() for p in pods if p.priority == top)

    funcs: list[ScoreFunc] = [
        lambda node: -nodes_to_victims[node].num_pdb_violations,
        lambda node: -nodes_to_victims[node].pods[0].priority,
        lambda node: -sum(p.priority + 2**31 for p in nodes_to_victims[node].pods),
        lambda node: -len(nodes_to_victims[node].pods),
        start,
    ]
    candidates = list(nodes_to_victims)
    for f in funcs:
        best = max(f(n) for n in candidates)
        candidates = [n for n in candidates if f(n) == best]
        if len(candidates) == 1:
            break
    return candidates[0]


@settings(max_examples=300, deadline=None)
@given(
    nodes=st.lists(
        st.tuples(
            st.lists(
                st.tuples(st.integers(-2, 2), st.one_of(st.none(), st.integers(0, 3))),
                min_size=1,
                max_size=4,
            ),
            st.integers(0, 2),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_pick_one_node_default_criteria_as_upstream_loops_over_them(
    nodes: list[tuple[list[tuple[int, int | None]], int]],
) -> None:
    """The default criteria compared as one key agree with upstream's loop, ties and their
    order included (most victims lists here are ordered most important first, not all)."""
    nodes_to_victims = {
        f"n{i}": victims(
            *(pod(f"n{i}-{j}", prio, start=start) for j, (prio, start) in enumerate(pods)),
            violations=violations,
        )
        for i, (pods, violations) in enumerate(nodes)
    }
    now = EPOCH + timedelta(seconds=2)
    assert pick_one_node_for_preemption(nodes_to_victims, None, now) == _upstream_pick(
        nodes_to_victims, now
    )


def test_pick_one_node_custom_score_funcs_replace_the_defaults() -> None:
    nodes = {"a": victims(pod("a1", 1)), "b": victims(pod("b1", 9), pod("b2", 9))}
    most_victims: ScoreFunc = lambda node: len(nodes[node].pods)  # noqa: E731
    assert pick_one_node_for_preemption(nodes, [most_victims], EPOCH) == "b"
    assert pick_one_node_for_preemption({}, None, EPOCH) == ""


# -- the evaluator with a policy of its own ------------------------------------------------


class EvictLower(PostFilterPlugin):
    """A policy: every lower-priority pod on a node is a victim; a node without one is
    Unschedulable. The dry run starts at `offset` and looks for `wanted` candidates."""

    name: ClassVar[str] = "EvictLower"
    offset = 0
    wanted = 10
    eligible = (True, "")

    def __init__(self, args: Any, handle: Any) -> None:
        super().__init__(args, handle)
        self.evaluator = Evaluator(self.name, handle, self)
        self.visited: list[str] = []

    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        return self.evaluator.preempt(state, pod, filtered_node_status_map)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return self.offset, self.wanted

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        return {c.name: c.victims for c in candidates}

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status | None
    ) -> tuple[bool, str]:
        return self.eligible

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, pdbs: Sequence[Any]
    ) -> tuple[list[Pod], int, Status]:
        self.visited.append(node_info.name)
        lower = [p.pod for p in node_info.pods if p.pod.priority < pod.priority]
        if not lower:
            return [], 0, Status.unschedulable("nothing to evict")
        return sorted(lower, key=lambda p: -p.priority), 0, Status()

    def ordered_score_funcs(self, nodes_to_victims: Mapping[str, Victims]) -> list[ScoreFunc]:
        return []


def harness(existing: list[Pod], nodes: int = 3) -> PluginHarness:
    names = [f"n{i}" for i in range(nodes)]
    scenario = Scenario(
        nodes=[make_node(n).alloc(cpu="1", pods=10).obj() for n in names],
        existing=existing,
        pod=pod("preemptor", 100),
    )
    return PluginHarness(EvictLower, EvictLower.Args(), scenario)


def unschedulable_everywhere(h: PluginHarness) -> NodeToStatus:
    statuses = NodeToStatus()
    for info in h.nodes:
        statuses.set(info.name, Status.unschedulable("Insufficient cpu"))
    return statuses


def preempt(h: PluginHarness, statuses: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
    """post_filter inside a running loop, then the evictions it started, to the end."""
    plugin = h.plugin
    assert isinstance(plugin, EvictLower)

    async def main() -> tuple[PostFilterResult | None, Status | None]:
        result = plugin.post_filter(CycleState(), h.pod, statuses)
        await asyncio.gather(*plugin.evaluator.tasks)
        return result

    loop = VirtualTimeLoop(h.clock)
    try:
        result, status = loop.run_until_complete(main())
    finally:
        loop.close()
    return result, status if status is not None else Status()


def test_nominates_the_best_node_and_evicts_its_victims() -> None:
    h = harness([pod("low", 1, node="n1", start=0), pod("mid", 50, node="n2", start=0)])
    result, status = preempt(h, unschedulable_everywhere(h))
    assert status.is_success
    assert result is not None and result.nominating_info is not None
    assert result.nominating_info.nominated_node_name == "n1"
    low, mid = (h.cluster.get("Pod", name, "default") for name in ("low", "mid"))
    # deleted: gone, or terminating for its grace period as on a real cluster
    assert low is None or low.metadata.deletion_timestamp is not None
    assert mid is not None and mid.metadata.deletion_timestamp is None
    assert h.recorder.events == [
        (
            "Preempted",
            "Preempting",
            "Preempted by pod uid-preemptor on node n1",
            "default/low",
        )
    ]
    assert h.recorder.related == ["default/preemptor"]


def test_victims_get_the_disruption_target_condition_before_deletion(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    h = harness([pod("low", 1, node="n1", start=0)])
    seen: list[Any] = []
    plugin = h.plugin
    assert isinstance(plugin, EvictLower)
    update, delete = h.cluster.update_pod_condition, h.cluster.delete

    async def spy_update(current: Pod, condition: Any, *rest: Any) -> Any:
        seen.append((current.metadata.name, condition.type, condition.reason))
        return await update(current, condition, *rest)

    async def spy_delete(kind: str, name: str, *rest: Any) -> Any:
        seen.append((kind, name, "deleted"))
        return await delete(kind, name, *rest)

    monkeypatch.setattr(h.cluster, "update_pod_condition", spy_update)
    monkeypatch.setattr(h.cluster, "delete", spy_delete)
    preempt(h, unschedulable_everywhere(h))
    assert seen == [
        ("low", DISRUPTION_TARGET, PREEMPTION_BY_SCHEDULER),
        ("Pod", "low", "deleted"),
    ]


def test_an_ineligible_pod_keeps_its_nomination() -> None:
    h = harness([pod("low", 1, node="n1")])
    plugin = h.plugin
    assert isinstance(plugin, EvictLower)
    plugin.eligible = (False, "not eligible here")
    result, status = preempt(h, unschedulable_everywhere(h))
    assert result is None
    assert (status.code, status.message()) == (Code.Unschedulable, "not eligible here")
    assert plugin.visited == []


def test_no_candidate_clears_the_nomination_with_a_fit_error() -> None:
    # nodes Filter found UnschedulableAndUnresolvable are not tried, the rest fail the
    # dry run: the message is a FitError over every node (upstream preemption.go)
    h = harness([], nodes=3)
    statuses = unschedulable_everywhere(h)
    statuses.set("n0", Status.unresolvable("node(s) didn't match Pod's node affinity"))
    result, status = preempt(h, statuses)
    assert result is not None and result.nominating_info is not None
    assert result.nominating_info.nominated_node_name == ""
    assert status.code is Code.Unschedulable
    assert status.message() == (
        "0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 nothing to evict."
    )


def test_dry_run_starts_at_the_offset_and_stops_with_enough_candidates() -> None:
    h = harness([pod(f"low{i}", 1, node=f"n{i}") for i in range(4)], nodes=4)
    plugin = h.plugin
    assert isinstance(plugin, EvictLower)
    plugin.offset, plugin.wanted = 2, 2
    result, status = preempt(h, unschedulable_everywhere(h))
    assert status.is_success
    assert plugin.visited == ["n2", "n3"]
    assert result is not None and result.nominating_info is not None
    assert result.nominating_info.nominated_node_name in {"n2", "n3"}


class EvictLowerRulingOut(EvictLower):
    """EvictLower with `rules_out_node`: a node without a lower-priority pod gives no
    victims, and says so without its dry run."""

    name: ClassVar[str] = "EvictLowerRulingOut"

    def __init__(self, args: Any, handle: Any) -> None:
        super().__init__(args, handle)
        self.ruled_out: list[str] = []

    def rules_out_node(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> bool:
        if any(p.pod.priority < pod.priority for p in node_info.pods):
            return False
        self.ruled_out.append(node_info.name)
        return True


def ruling_out_harness(existing: list[Pod], nodes: int) -> PluginHarness:
    h = harness(existing, nodes)
    return PluginHarness(EvictLowerRulingOut, EvictLowerRulingOut.Args(), h.scenario)


def test_a_ruled_out_node_is_not_dry_run_while_candidates_are_found() -> None:
    h = ruling_out_harness([pod("low", 1, node="n2")], nodes=4)
    plugin = h.plugin
    assert isinstance(plugin, EvictLowerRulingOut)
    plugin.offset, plugin.wanted = 1, 1
    result, status = preempt(h, unschedulable_everywhere(h))
    assert status.is_success
    assert result is not None and result.nominating_info is not None
    assert result.nominating_info.nominated_node_name == "n2"
    assert (plugin.ruled_out, plugin.visited) == (["n1"], ["n2"])


def test_ruled_out_nodes_are_dry_run_for_the_message_when_no_node_is_a_candidate() -> None:
    # the same FitError, node statuses and visit order as without the rule
    plain, ruling = harness([], nodes=3), ruling_out_harness([], nodes=3)
    answers = []
    for h in (plain, ruling):
        plugin = h.plugin
        assert isinstance(plugin, EvictLower)
        plugin.offset = 1
        statuses = unschedulable_everywhere(h)
        result, status = preempt(h, statuses)
        assert result is not None and result.nominating_info is not None
        answers.append((result.nominating_info.nominated_node_name, status))
    assert answers[0] == answers[1]
    assert answers[1][1].message() == "0/3 nodes are available: 3 nothing to evict."
    assert isinstance(ruling.plugin, EvictLowerRulingOut)
    assert ruling.plugin.ruled_out == ["n1", "n2", "n0"]
    assert ruling.plugin.visited == ["n1", "n2", "n0"]


def test_dry_run_statuses_keep_the_visit_order_with_ruled_out_nodes() -> None:
    h = ruling_out_harness([], nodes=3)
    plugin = h.plugin
    assert isinstance(plugin, EvictLowerRulingOut)
    infos = sorted(h.nodes, key=lambda n: n.name)
    candidates, statuses, errors = plugin.evaluator.dry_run_preemption(
        CycleState(), h.pod, infos, [], 2, 1
    )
    assert (candidates, errors) == ([], [])
    assert [name for name, _ in statuses.items()] == ["n2", "n0", "n1"]


class EvictLowerQuickly(EvictLower):
    """EvictLower with `quick_dry_run`: it answers the victims of nodes holding one
    lower-priority pod, rules out nodes holding none, and leaves the others (several such
    pods) to the dry run. It also has `rules_out_node`, which must not be asked."""

    name: ClassVar[str] = "EvictLowerQuickly"

    def __init__(self, args: Any, handle: Any) -> None:
        super().__init__(args, handle)
        self.quick: list[str] = []
        self.given_statuses: list[NodeToStatus] = []

    def quick_dry_run(
        self, state: CycleState, pod: Pod, pdbs: Sequence[Any], statuses: NodeToStatus
    ) -> Any:
        self.given_statuses.append(statuses)

        def answer(node_info: NodeInfo) -> Victims | bool:
            self.quick.append(node_info.name)
            lower = [p.pod for p in node_info.pods if p.pod.priority < pod.priority]
            if len(lower) == 1:
                return Victims(lower, 0)
            return not lower

        return answer

    def rules_out_node(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> bool:
        raise AssertionError("rules_out_node asked with a quick dry run")


def quick_harness(existing: list[Pod], nodes: int) -> PluginHarness:
    h = harness(existing, nodes)
    return PluginHarness(EvictLowerQuickly, EvictLowerQuickly.Args(), h.scenario)


def test_quick_answers_are_candidates_and_ruled_out_nodes_are_skipped() -> None:
    existing = [pod("one", 1, node="n1"), pod("two-a", 1, node="n2"), pod("two-b", 2, node="n2")]
    h = quick_harness(existing, nodes=4)
    plugin = h.plugin
    assert isinstance(plugin, EvictLowerQuickly)
    plugin.offset, plugin.wanted = 0, 2
    statuses = unschedulable_everywhere(h)
    infos = sorted(h.nodes, key=lambda n: n.name)
    candidates, node_statuses, errors = plugin.evaluator.dry_run_preemption(
        CycleState(), h.pod, infos, [], 0, 2, statuses=statuses
    )
    assert [(c.name, [p.metadata.name for p in c.victims.pods]) for c in candidates] == [
        ("n1", ["one"]),
        ("n2", ["two-b", "two-a"]),
    ]
    # n0 ruled out, n1 answered: neither dry-run; n2 left to the dry run; then enough
    assert (plugin.quick, plugin.visited) == (["n0", "n1", "n2"], ["n2"])
    assert plugin.given_statuses == [statuses]
    assert (len(node_statuses), errors) == (0, [])


def test_nodes_ruled_out_quickly_are_dry_run_when_no_node_is_a_candidate() -> None:
    h = quick_harness([], nodes=3)
    plugin = h.plugin
    assert isinstance(plugin, EvictLowerQuickly)
    plugin.offset = 1
    result, status = preempt(h, unschedulable_everywhere(h))
    assert result is not None and result.nominating_info is not None
    assert result.nominating_info.nominated_node_name == ""
    assert status.message() == "0/3 nodes are available: 3 nothing to evict."
    assert (plugin.quick, plugin.visited) == (["n1", "n2", "n0"], ["n1", "n2", "n0"])
