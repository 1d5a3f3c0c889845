"""The runner rules of upstream framework.go, one test (or table) per rule.

Upstream: pkg/scheduler/framework/runtime/framework_test.go.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from kubesched.api import Pod
from kubesched.clock import VirtualTimeLoop
from kubesched.framework import (
    BindPlugin,
    Code,
    CycleState,
    FilterPlugin,
    NodeInfo,
    NodeScore,
    NodeToStatus,
    PermitPlugin,
    PodInfo,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
    Status,
)
from kubesched.runtime import Framework
from kubesched.testing import make_node, make_pod

FrameworkFactory = Callable[..., Framework]

CALLS: list[str] = []


@pytest.fixture(autouse=True)
def _reset_calls() -> None:
    CALLS.clear()


def pod() -> Pod:
    return make_pod("p").req(cpu="1").obj()


def node(name: str = "n1") -> NodeInfo:
    return NodeInfo(make_node(name).alloc(cpu="4", memory="8Gi", pods=10).obj())


def pre_filter_plugin(
    name: str,
    status: Status | None = None,
    nodes: Sequence[str] | None = None,
    raises: bool = False,
) -> type[PreFilterPlugin]:
    class P(PreFilterPlugin):
        def pre_filter(
            self, state: CycleState, pod: Pod, infos: Sequence[NodeInfo]
        ) -> tuple[PreFilterResult | None, Status | None]:
            CALLS.append(f"{name}.pre_filter")
            if raises:
                raise ZeroDivisionError("boom")
            return (PreFilterResult.of(nodes) if nodes is not None else None), status

    P.name = name
    return P


def filter_plugin(name: str, status: Status | None = None) -> type[FilterPlugin]:
    class P(FilterPlugin):
        def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
            CALLS.append(f"{name}.filter")
            return status

    P.name = name
    return P


# -- PreFilter -------------------------------------------------------------------------


def test_pre_filter_skip_disables_that_plugins_filter(make_framework: FrameworkFactory) -> None:
    class SkipMe(PreFilterPlugin, FilterPlugin):
        name = "SkipMe"

        def pre_filter(self, *a: Any) -> tuple[None, Status]:
            return None, Status.skip()

        def filter(self, *a: Any) -> Status:
            CALLS.append("SkipMe.filter")
            return Status.unschedulable("should not run")

    fwk = make_framework({"PreFilter": [SkipMe], "Filter": [SkipMe, filter_plugin("Other")]})
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, pod(), [node()])
    assert status.is_success
    assert state.skip_filter_plugins == {"SkipMe"}
    assert fwk.run_filter_plugins(state, pod(), node()).is_success
    assert CALLS == ["Other.filter"]


def test_pre_filter_results_are_intersected(make_framework: FrameworkFactory) -> None:
    fwk = make_framework(
        {
            "PreFilter": [
                pre_filter_plugin("A", nodes=["n1", "n2", "n3"]),
                pre_filter_plugin("B", nodes=["n2", "n3", "n4"]),
                pre_filter_plugin("C"),
            ]
        }
    )
    result, status, plugins = fwk.run_pre_filter_plugins(CycleState(), pod(), [])
    assert status.is_success
    assert result is not None and result.node_names == {"n2", "n3"}
    assert plugins == {"A", "B"}  # upstream pluginsWithNodes


@pytest.mark.parametrize(
    ("plugins", "message"),
    [
        ([("A", ["n1"]), ("B", ["n2"])], "node(s) didn't satisfy plugin(s) [A B] simultaneously"),
        ([("A", [])], "node(s) didn't satisfy plugin A"),
    ],
)
def test_empty_pre_filter_intersection_is_unresolvable(
    make_framework: FrameworkFactory, plugins: list[tuple[str, list[str]]], message: str
) -> None:
    fwk = make_framework({"PreFilter": [pre_filter_plugin(n, nodes=ns) for n, ns in plugins]})
    _, status, rejectors = fwk.run_pre_filter_plugins(CycleState(), pod(), [])
    assert status.code is Code.UnschedulableAndUnresolvable
    assert status.message() == message
    assert rejectors == {n for n, _ in plugins}


def test_pre_filter_unresolvable_stops_but_unschedulable_continues(
    make_framework: FrameworkFactory,
) -> None:
    fwk = make_framework(
        {
            "PreFilter": [
                pre_filter_plugin("U1", Status.unschedulable("u1")),
                pre_filter_plugin("U2", Status.unschedulable("u2")),
                pre_filter_plugin("UUR", Status.unresolvable("stop")),
                pre_filter_plugin("Never"),
            ]
        }
    )
    _, status, rejectors = fwk.run_pre_filter_plugins(CycleState(), pod(), [])
    assert status.code is Code.UnschedulableAndUnresolvable
    assert status.plugin == "UUR"
    assert rejectors == {"U1", "U2", "UUR"}
    assert "Never.pre_filter" not in CALLS

    fwk = make_framework(
        {
            "PreFilter": [
                pre_filter_plugin("U1", Status.unschedulable("u1")),
                pre_filter_plugin("U2", Status.unschedulable("u2")),
            ]
        }
    )
    _, status, rejectors = fwk.run_pre_filter_plugins(CycleState(), pod(), [])
    assert status.code is Code.Unschedulable
    assert (status.plugin, status.message()) == ("U2", "u2")  # the most recent one
    assert rejectors == {"U1", "U2"}


def test_pre_filter_error_and_exception_name_the_plugin(make_framework: FrameworkFactory) -> None:
    fwk = make_framework({"PreFilter": [pre_filter_plugin("Bad", Status.as_error("nope"))]})
    _, status, _ = fwk.run_pre_filter_plugins(CycleState(), pod(), [])
    assert status.code is Code.Error
    assert status.message() == 'running PreFilter plugin "Bad": nope'

    fwk = make_framework({"PreFilter": [pre_filter_plugin("Raiser", raises=True)]})
    _, status, _ = fwk.run_pre_filter_plugins(CycleState(), pod(), [])
    assert status.code is Code.Error
    assert status.plugin == "Raiser"
    assert "plugin Raiser raised ZeroDivisionError: boom" in status.message()


class CountingState:
    """StateData with a counter, cloned by value."""

    def __init__(self, n: int = 0) -> None:
        self.n = n

    def clone(self) -> CountingState:
        return CountingState(self.n)


class Extended(PreFilterPlugin, FilterPlugin):
    """Filter rejects once the PreFilter state counts two or more pods."""

    name = "Extended"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Any) -> tuple[None, None]:
        state.write("count", CountingState(len(nodes[0].pods) if nodes else 0))
        return None, None

    def pre_filter_extensions(self) -> Extended:
        return self

    def add_pod(self, state: CycleState, p: Pod, info: PodInfo, node_info: NodeInfo) -> None:
        state.read("count").n += 1

    def remove_pod(self, state: CycleState, p: Pod, info: PodInfo, node_info: NodeInfo) -> None:
        state.read("count").n -= 1

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("too many") if state.read("count").n >= 2 else None


def test_pre_filter_extensions_add_and_remove_pod(make_framework: FrameworkFactory) -> None:
    fwk = make_framework({"PreFilter": [Extended], "Filter": [Extended]})
    n = node()
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod(), [n])
    other = PodInfo(make_pod("other").obj())
    clone = state.clone()
    assert fwk.run_pre_filter_extension_add_pod(clone, pod(), other, n).is_success
    assert fwk.run_pre_filter_extension_add_pod(clone, pod(), other, n).is_success
    assert fwk.run_filter_plugins(clone, pod(), n).code is Code.Unschedulable
    assert fwk.run_filter_plugins(state, pod(), n).is_success  # the original is untouched
    assert fwk.run_pre_filter_extension_remove_pod(clone, pod(), other, n).is_success
    assert fwk.run_filter_plugins(clone, pod(), n).is_success


# -- Filter ----------------------------------------------------------------------------


def test_filter_stops_at_first_failing_plugin(make_framework: FrameworkFactory) -> None:
    fwk = make_framework(
        {
            "Filter": [
                filter_plugin("Ok"),
                filter_plugin("No", Status.unschedulable("full")),
                filter_plugin("After"),
            ]
        }
    )
    status = fwk.run_filter_plugins(CycleState(), pod(), node())
    assert (status.code, status.plugin, status.message()) == (Code.Unschedulable, "No", "full")
    assert CALLS == ["Ok.filter", "No.filter"]


@pytest.mark.parametrize("returned", [Status.as_error("disk"), Status.wait(), Status.skip()])
def test_filter_non_rejection_becomes_error(
    make_framework: FrameworkFactory, returned: Status
) -> None:
    fwk = make_framework({"Filter": [filter_plugin("F", returned)]})
    status = fwk.run_filter_plugins(CycleState(), pod(), node())
    assert status.code is Code.Error
    assert status.message().startswith('running "F" filter plugin: ')


# -- PostFilter ------------------------------------------------------------------------


def post_filter_plugin(
    name: str, status: Status | None, nominate: str | None = None
) -> type[PostFilterPlugin]:
    class P(PostFilterPlugin):
        def post_filter(
            self, state: CycleState, pod: Pod, m: NodeToStatus
        ) -> tuple[PostFilterResult | None, Status | None]:
            CALLS.append(f"{name}.post_filter")
            return (PostFilterResult.nominate(nominate) if nominate else None), status

    P.name = name
    return P


def test_post_filter_first_success_wins(make_framework: FrameworkFactory) -> None:
    fwk = make_framework(
        {
            "PostFilter": [
                post_filter_plugin("A", Status.unschedulable("a")),
                post_filter_plugin("B", None, nominate="n2"),
                post_filter_plugin("C", None, nominate="n3"),
            ]
        }
    )
    result, status = fwk.run_post_filter_plugins(CycleState(), pod(), NodeToStatus())
    assert status.is_success
    assert result is not None and result.nominating_info is not None
    assert result.nominating_info.nominated_node_name == "n2"
    assert CALLS == ["A.post_filter", "B.post_filter"]


def test_post_filter_all_unschedulable_collects_reasons(make_framework: FrameworkFactory) -> None:
    fwk = make_framework(
        {
            "PostFilter": [
                post_filter_plugin("A", Status.unschedulable("a")),
                post_filter_plugin("B", Status.unschedulable("b")),
            ]
        }
    )
    _, status = fwk.run_post_filter_plugins(CycleState(), pod(), NodeToStatus())
    assert (status.code, status.plugin, status.message()) == (Code.Unschedulable, "A", "a, b")

    CALLS.clear()
    fwk = make_framework(
        {
            "PostFilter": [
                post_filter_plugin("U", Status.unresolvable("stop")),
                post_filter_plugin("Never", None),
            ]
        }
    )
    _, status = fwk.run_post_filter_plugins(CycleState(), pod(), NodeToStatus())
    assert status.code is Code.UnschedulableAndUnresolvable
    assert CALLS == ["U.post_filter"]


# -- PreScore / Score ------------------------------------------------------------------


def score_plugin(
    name: str,
    scores: dict[str, int],
    normalize: bool = False,
    pre_score: Status | None = None,
) -> type[ScorePlugin]:
    class P(PreScorePlugin, ScorePlugin):
        def pre_score(self, state: CycleState, pod: Pod, nodes: Any) -> Status | None:
            return pre_score

        def score(self, state: CycleState, pod: Pod, info: NodeInfo) -> tuple[int, None]:
            CALLS.append(f"{name}.score")
            return scores[info.name], None

    if normalize:

        def normalize_score(self: Any, state: CycleState, p: Pod, s: list[NodeScore]) -> None:
            top = max(x.score for x in s) or 1
            for x in s:
                x.score = x.score * 100 // top

        P.normalize_score = normalize_score  # type: ignore[method-assign]
    P.name = name
    return P


def test_scores_are_normalized_weighted_and_summed(make_framework: FrameworkFactory) -> None:
    a = score_plugin("A", {"n1": 10, "n2": 5}, normalize=True)
    b = score_plugin("B", {"n1": 0, "n2": 40})
    fwk = make_framework({"PreScore": [a, b], "Score": [a, b]}, weights={"A": 2, "B": 1})
    nodes = [node("n1"), node("n2")]
    state = CycleState()
    assert fwk.run_pre_score_plugins(state, pod(), nodes).is_success
    scores, status = fwk.run_score_plugins(state, pod(), nodes)
    assert status.is_success
    assert [(s.name, s.scores, s.total_score) for s in scores] == [
        ("n1", [("A", 200), ("B", 0)], 200),
        ("n2", [("A", 100), ("B", 40)], 140),
    ]


def test_pre_score_skip_disables_score(make_framework: FrameworkFactory) -> None:
    a = score_plugin("A", {"n1": 1}, pre_score=Status.skip())
    b = score_plugin("B", {"n1": 2})
    fwk = make_framework({"PreScore": [a, b], "Score": [a, b]})
    state = CycleState()
    fwk.run_pre_score_plugins(state, pod(), [node()])
    scores, _ = fwk.run_score_plugins(state, pod(), [node()])
    assert CALLS == ["B.score"]
    assert scores[0].scores == [("B", 2)]


def test_score_out_of_range_after_normalizing_is_an_error(
    make_framework: FrameworkFactory,
) -> None:
    fwk = make_framework({"Score": [score_plugin("Big", {"n1": 150})]})
    _, status = fwk.run_score_plugins(CycleState(), pod(), [node()])
    assert status.code is Code.Error
    assert status.message() == (
        'applying score defaultWeights on Score plugins: plugin "Big" returns an invalid '
        "score 150, it should in the range of [0, 100] after normalizing"
    )


def test_zero_weight_counts_as_one(make_framework: FrameworkFactory) -> None:
    fwk = make_framework({"Score": [score_plugin("A", {"n1": 7})]}, weights={"A": 0})
    scores, _ = fwk.run_score_plugins(CycleState(), pod(), [node()])
    assert scores[0].total_score == 7


# -- Reserve ---------------------------------------------------------------------------


def reserve_plugin(name: str, status: Status | None = None) -> type[ReservePlugin]:
    class P(ReservePlugin):
        def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
            CALLS.append(f"{name}.reserve")
            return status

        def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
            CALLS.append(f"{name}.unreserve")

    P.name = name
    return P


def test_reserve_stops_at_first_failure_and_unreserve_runs_all_in_reverse(
    make_framework: FrameworkFactory,
) -> None:
    fwk = make_framework(
        {
            "Reserve": [
                reserve_plugin("A"),
                reserve_plugin("B", Status.unschedulable("taken")),
                reserve_plugin("C"),
            ]
        }
    )
    status = fwk.run_reserve_plugins_reserve(CycleState(), pod(), "n1")
    assert (status.code, status.plugin) == (Code.Unschedulable, "B")
    fwk.run_reserve_plugins_unreserve(CycleState(), pod(), "n1")
    assert CALLS == ["A.reserve", "B.reserve", "C.unreserve", "B.unreserve", "A.unreserve"]


def test_unreserve_exception_does_not_escape(make_framework: FrameworkFactory) -> None:
    class Broken(ReservePlugin):
        name = "Broken"

        def reserve(self, *a: Any) -> None:
            return None

        def unreserve(self, *a: Any) -> None:
            raise RuntimeError("oops")

    fwk = make_framework({"Reserve": [Broken, reserve_plugin("A")]})
    fwk.run_reserve_plugins_unreserve(CycleState(), pod(), "n1")
    assert CALLS == ["A.unreserve"]


# -- Permit ----------------------------------------------------------------------------


def permit_plugin(name: str, status: Status | None, timeout: float = 0.0) -> type[PermitPlugin]:
    class P(PermitPlugin):
        def permit(
            self, state: CycleState, pod: Pod, node_name: str
        ) -> tuple[Status | None, float]:
            CALLS.append(f"{name}.permit")
            return status, timeout

    P.name = name
    return P


def run(coro: Any) -> Any:
    loop = VirtualTimeLoop()
    try:
        return loop.run_until_complete(coro)
    finally:
        loop.close()


def test_permit_rejection_wins_over_wait(make_framework: FrameworkFactory) -> None:
    fwk = make_framework(
        {
            "Permit": [
                permit_plugin("W", Status.wait(), 10),
                permit_plugin("R", Status.unschedulable("no")),
            ]
        }
    )

    async def go() -> Status:
        return fwk.run_permit_plugins(CycleState(), pod(), "n1")

    status = run(go())
    assert (status.code, status.plugin) == (Code.Unschedulable, "R")
    assert len(fwk.waiting_pods) == 0


def test_permit_waits_until_every_waiting_plugin_allows(make_framework: FrameworkFactory) -> None:
    fwk = make_framework(
        {"Permit": [permit_plugin("W1", Status.wait(), 10), permit_plugin("W2", Status.wait(), 20)]}
    )
    p = pod()

    async def go() -> tuple[Status, list[str]]:
        status = fwk.run_permit_plugins(CycleState(), p, "n1")
        assert status.code is Code.Wait
        assert status.message() == (
            'one or more plugins asked to wait and no plugin rejected pod "p"'
        )
        waiter = asyncio.ensure_future(fwk.wait_on_permit(p))
        wp = fwk.get_waiting_pod(p.metadata.uid)
        assert wp is not None
        assert sorted(wp.get_pending_plugins()) == ["W1", "W2"]
        seen: list[str] = []
        fwk.iterate_over_waiting_pods(lambda w: seen.append(w.pod.metadata.name))
        wp.allow("W1")
        await asyncio.sleep(1)
        assert not waiter.done()
        wp.allow("W2")
        return await waiter, seen

    status, seen = run(go())
    assert status.is_success
    assert seen == ["p"]
    assert fwk.get_waiting_pod(p.metadata.uid) is None


@pytest.mark.parametrize(
    ("timeout", "text"), [(10, "10s"), (0.1, "100ms"), (90, "1m30s"), (3600, "15m0s")]
)
def test_permit_timeout_rejects_with_upstream_message(
    make_framework: FrameworkFactory, timeout: float, text: str
) -> None:
    fwk = make_framework({"Permit": [permit_plugin("Gang", Status.wait(), timeout)]})
    p = pod()
    loop = VirtualTimeLoop()

    async def go() -> tuple[Status, float]:
        fwk.run_permit_plugins(CycleState(), p, "n1")
        start = loop.time()
        status = await fwk.wait_on_permit(p)
        return status, loop.time() - start

    try:
        status, waited = loop.run_until_complete(go())
    finally:
        loop.close()
    assert (status.code, status.plugin) == (Code.Unschedulable, "Gang")
    assert status.message() == f"rejected due to timeout after waiting {text} at plugin Gang"
    assert waited == pytest.approx(min(timeout, 900))  # capped at 15 minutes


def test_reject_waiting_pod_through_the_handle(make_framework: FrameworkFactory) -> None:
    fwk = make_framework({"Permit": [permit_plugin("W", Status.wait(), 60)]})
    p = pod()

    async def go() -> tuple[bool, Status, bool]:
        fwk.run_permit_plugins(CycleState(), p, "n1")
        waiter = asyncio.ensure_future(fwk.wait_on_permit(p))
        first = fwk.reject_waiting_pod(p.metadata.uid)
        status = await waiter
        return first, status, fwk.reject_waiting_pod(p.metadata.uid)

    first, status, second = run(go())
    assert first is True and second is False
    assert (status.code, status.message()) == (Code.Unschedulable, "removed")


# -- Bind / PreBind / PostBind ---------------------------------------------------------


def bind_plugin(name: str, status: Status | None) -> type[BindPlugin]:
    class P(BindPlugin):
        async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
            CALLS.append(f"{name}.bind")
            return status

    P.name = name
    return P


def test_bind_skip_falls_through_and_first_success_stops(
    make_framework: FrameworkFactory,
) -> None:
    fwk = make_framework(
        {"Bind": [bind_plugin("S", Status.skip()), bind_plugin("B", None), bind_plugin("X", None)]}
    )
    assert run(fwk.run_bind_plugins(CycleState(), pod(), "n1")).is_success
    assert CALLS == ["S.bind", "B.bind"]


def test_no_binder_binding_is_a_failure(make_framework: FrameworkFactory) -> None:
    fwk = make_framework(
        {"Bind": [bind_plugin("S1", Status.skip()), bind_plugin("S2", Status.skip())]}
    )
    status = run(fwk.run_bind_plugins(CycleState(), pod(), "n1"))
    assert status.code is Code.Skip
    assert not status.is_success


def test_bind_error_is_wrapped(make_framework: FrameworkFactory) -> None:
    fwk = make_framework({"Bind": [bind_plugin("B", Status.as_error("api down"))]})
    status = run(fwk.run_bind_plugins(CycleState(), pod(), "n1"))
    assert status.code is Code.Error
    assert status.message() == 'running Bind plugin "B": api down'


def test_post_bind_runs_in_order(make_framework: FrameworkFactory) -> None:
    def post_bind(name: str) -> type[PostBindPlugin]:
        class P(PostBindPlugin):
            async def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
                CALLS.append(f"{name}.post_bind")

        P.name = name
        return P

    fwk = make_framework({"PostBind": [post_bind("A"), post_bind("B")]})
    run(fwk.run_post_bind_plugins(CycleState(), pod(), "n1"))
    assert CALLS == ["A.post_bind", "B.post_bind"]
