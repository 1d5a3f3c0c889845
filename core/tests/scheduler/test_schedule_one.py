"""Scheduling and binding cycles end to end, in the spirit of upstream schedule_one_test.go.

Each test runs the real Scheduler on the memory cluster in virtual time with small test
plugins, then checks where pods went, their conditions, events and the cache.
"""

from __future__ import annotations

import itertools
from typing import Any, ClassVar

import pytest
from sched_harness import BASE, Cordon, CpuFit, condition, config_for, simulate

from kubesched.api import SCHEDULING_GATED_MESSAGE, Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    NodeInfo,
    NodeToStatus,
    PermitPlugin,
    PostBindPlugin,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreFilterResult,
    ReservePlugin,
    ScorePlugin,
    Status,
)
from kubesched.scheduler import num_feasible_nodes_to_find
from kubesched.testing import make_node, make_pod


def nodes(n: int, cpu: str = "4", prefix: str = "n") -> list[Any]:
    return [
        make_node(f"{prefix}{i}").alloc(cpu=cpu, memory="8Gi", pods=110).obj() for i in range(n)
    ]


# -- the FitError message and the PodScheduled condition -------------------------------


def test_unschedulable_pod_gets_upstream_message_and_condition() -> None:
    objs = [
        *nodes(3, cpu="1"),
        make_node("c1").alloc(cpu="8").unschedulable().obj(),
        make_node("c2").alloc(cpu="8").unschedulable().obj(),
        make_pod("big").req(cpu="2").obj(),
    ]
    result, sim = simulate(objs, [Cordon, CpuFit])
    msg = "0/5 nodes are available: 2 node(s) were unschedulable, 3 Insufficient cpu."
    assert result.pod("big").status == "Unschedulable"
    assert result.pod("big").message == msg
    assert condition(sim, "big") == ("False", "Unschedulable", msg)
    events = [(e.reason, e.message) for e in sim.cluster.events()]
    assert ("FailedScheduling", msg) in events


def test_no_nodes_available() -> None:
    result, sim = simulate([make_pod("p").obj()], [])
    assert result.pod("p").status == "Unschedulable"
    assert condition(sim, "p") == ("False", "Unschedulable", "no nodes available to schedule pods")


def test_bound_pod_gets_scheduled_event_and_condition() -> None:
    result, sim = simulate([*nodes(1), make_pod("p").req(cpu="1").obj()], [CpuFit])
    assert result.pod("p").node == "n0"
    assert condition(sim, "p") is not None and condition(sim, "p")[0] == "True"  # type: ignore[index]
    assert ("Scheduled", "Successfully assigned default/p to n0") in [
        (e.reason, e.message) for e in sim.cluster.events()
    ]


# -- percentageOfNodesToScore and round robin ------------------------------------------


@pytest.mark.parametrize(
    ("n", "pct", "expected"),
    [
        (50, 0, 50), (99, 0, 99), (100, 0, 100), (200, 0, 100), (250, 0, 120),
        (500, 0, 230), (1000, 0, 420), (2000, 0, 680), (5000, 0, 500), (6000, 0, 300),
        (15000, 0, 750), (500, 30, 150), (5000, 1, 100), (500, 100, 500),
    ],
)  # fmt: skip
def test_num_feasible_nodes_to_find(n: int, pct: int, expected: int) -> None:
    assert num_feasible_nodes_to_find(pct, n) == expected


SEEN: list[list[str]] = []


class Recorder(FilterPlugin):
    name = "Recorder"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not SEEN or state.get("recorder-cycle") is None:
            state.write("recorder-cycle", True)
            SEEN.append([])
        SEEN[-1].append(node_info.name)
        return None


class Zero(ScorePlugin):
    name = "Zero"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, None]:
        return 0, None


def test_filter_stops_at_enough_feasible_nodes_and_resumes_round_robin() -> None:
    SEEN.clear()
    objs = [*nodes(200), make_pod("a").obj(), make_pod("b").obj()]
    cfg = config_for([*BASE, Recorder, Zero], percentageOfNodesToScore=30)
    result, _ = simulate(objs, [Recorder, Zero], config=cfg)
    assert result.count("Bound") == 2
    # 30% of 200 = 60, raised to the minimum of 100; the second cycle starts where the first stopped
    assert [len(s) for s in SEEN] == [100, 100]
    assert set(SEEN[0]).isdisjoint(SEEN[1])


def test_without_score_plugins_one_feasible_node_is_enough() -> None:
    # the first feasible node is taken and the next cycle starts right after it (Filter may
    # have answered for a chunk of nodes past it; those answers do not count)
    SEEN.clear()
    result, _ = simulate([*nodes(10), make_pod("a").obj(), make_pod("b").obj()], [Recorder])
    assert [p.node for p in result.pods] == ["n0", "n1"]
    assert [s[0] for s in SEEN] == ["n0", "n1"]  # one node processed, so b's cycle starts at n1


# -- ties --------------------------------------------------------------------------------


def placements(seed: int) -> list[str | None]:
    objs = [*nodes(4), *[make_pod(f"p{i}").obj() for i in range(8)]]
    result, _ = simulate(objs, [Zero], seed=seed)
    return [p.node for p in result.pods]


def test_ties_are_broken_at_random_with_a_seed() -> None:
    assert placements(1) == placements(1)
    runs = {tuple(placements(s)) for s in range(6)}
    assert len(runs) > 1  # seeds change the choice among equal nodes
    chosen = [n for s in range(6) for n in placements(s)]
    assert set(chosen) == {"n0", "n1", "n2", "n3"}  # every tied node gets picked


# -- PreFilter ---------------------------------------------------------------------------


class OnlyN2(PreFilterPlugin):
    name = "OnlyN2"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Any) -> tuple[Any, None]:
        return PreFilterResult.of(["n2", "missing"]), None


def test_pre_filter_result_narrows_candidate_nodes() -> None:
    SEEN.clear()
    result, _ = simulate([*nodes(4), make_pod("p").obj()], [OnlyN2, Recorder, Zero])
    assert result.pod("p").node == "n2"
    assert SEEN == [["n2"]]


class Nowhere(PreFilterPlugin):
    name = "Nowhere"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Any) -> tuple[Any, None]:
        return PreFilterResult.of([]), None


def test_empty_pre_filter_result_is_unschedulable() -> None:
    result, _ = simulate([*nodes(3), make_pod("p").obj()], [Nowhere])
    assert result.pod("p").message == (
        "0/3 nodes are available: node(s) didn't satisfy plugin Nowhere."
    )


class RejectAll(PreFilterPlugin):
    name = "RejectAll"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Any) -> tuple[None, Status]:
        return None, Status.unschedulable("pod is not welcome")


def test_pre_filter_rejection_is_reported_once_for_all_nodes() -> None:
    result, _ = simulate([*nodes(3), make_pod("p").obj()], [RejectAll])
    assert result.pod("p").message == "0/3 nodes are available: pod is not welcome."


# -- PostFilter --------------------------------------------------------------------------

POST_FILTER_CALLS: list[str] = []


class Nominator(PostFilterPlugin):
    name = "Nominator"

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[PostFilterResult, Status]:
        POST_FILTER_CALLS.append(pod.metadata.name)
        return PostFilterResult.nominate("n1"), Status.unschedulable("preemption: nothing to do")


def test_post_filter_runs_only_when_no_node_fits_and_nominates() -> None:
    POST_FILTER_CALLS.clear()
    objs = [
        *nodes(2, cpu="1"),
        make_pod("fits").req(cpu="1").obj(),
        make_pod("big").req(cpu="3").obj(),
    ]
    result, sim = simulate(objs, [CpuFit, Nominator])
    assert result.pod("fits").status == "Bound"
    assert POST_FILTER_CALLS and set(POST_FILTER_CALLS) == {"big"}
    big = sim.cluster.get("Pod", "big", "default")
    assert big.status.nominated_node_name == "n1"
    # v1.34 FitError.Error appends the PostFilter message as it is, with no full stop
    assert result.pod("big").message == (
        "0/2 nodes are available: 2 Insufficient cpu. preemption: nothing to do"
    )


# -- Reserve, Permit, binding ------------------------------------------------------------

LOG: list[str] = []


class Reserver(ReservePlugin):
    name = "Reserver"

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        LOG.append(f"reserve {pod.metadata.name}")

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        LOG.append(f"unreserve {pod.metadata.name}")


class Denier(PermitPlugin):
    name = "Denier"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        if pod.metadata.name.startswith("deny"):
            return Status.unschedulable("denied"), 0
        return None, 0


def test_permit_rejection_unreserves_and_forgets() -> None:
    LOG.clear()
    objs = [*nodes(1), make_pod("deny-me").req(cpu="1").obj(), make_pod("ok").req(cpu="1").obj()]
    result, sim = simulate(objs, [CpuFit, Reserver, Denier])
    assert result.pod("ok").status == "Bound"
    assert result.pod("deny-me").message == "0/1 nodes are available: 1 denied."
    assert LOG[:2] == ["reserve deny-me", "unreserve deny-me"]
    sched = sim.scheduler
    assert sched is not None
    assert [p.pod.metadata.name for p in sched.cache.dump()["n0"].pods] == ["ok"]


class Gate(PermitPlugin):
    """Holds pods named hold-* until a pod named release-* reaches Permit."""

    name = "Gate"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        if pod.metadata.name.startswith("hold"):
            return Status.wait(), 30
        if pod.metadata.name.startswith("release"):
            self.handle.iterate_over_waiting_pods(lambda wp: wp.allow(self.name))
        return None, 0


def test_waiting_pod_binds_when_allowed() -> None:
    objs = [*nodes(1), make_pod("hold").obj(), make_pod("release").obj()]
    result, _ = simulate(objs, [Gate])
    assert result.pod("hold").status == "Bound"
    assert result.pod("release").status == "Bound"


def test_permit_timeout_rejects_with_upstream_message(monkeypatch: pytest.MonkeyPatch) -> None:
    LOG.clear()
    # rejected at t=30; the pod's own status update requeues it after a 1 s backoff (with
    # SchedulerPopFromBackoffQ on, it would go straight back to Permit)
    monkeypatch.setenv("KUBESCHED_FEATURE_GATES", "SchedulerPopFromBackoffQ=false")
    result, sim = simulate([*nodes(1), make_pod("hold").obj()], [Gate, Reserver], until=30.5)
    assert result.pod("hold").status == "Unschedulable"
    msg = "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin Gate."
    assert result.pod("hold").message == msg
    assert LOG[:2] == ["reserve hold", "unreserve hold"]
    assert sim.scheduler is not None and sim.scheduler.cache.dump()["n0"].pods == []


class NoBind(PreBindPlugin):
    name = "NoBind"

    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return Status.as_error("volume not ready") if pod.metadata.name == "bad" else None


def test_pre_bind_error_unreserves_and_reports_scheduler_error() -> None:
    LOG.clear()
    objs = [*nodes(1), make_pod("bad").obj(), make_pod("good").obj()]
    result, sim = simulate(objs, [NoBind, Reserver], until=0.5)
    assert result.pod("good").status == "Bound"
    cond = condition(sim, "bad")
    assert cond == ("False", "SchedulerError", 'running PreBind plugin "NoBind": volume not ready')
    assert "unreserve bad" in LOG


POST_BOUND: list[str] = []


class AfterBind(PostBindPlugin):
    name = "AfterBind"

    async def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        POST_BOUND.append(f"{pod.metadata.name}@{node_name}")


def test_post_bind_runs_after_success() -> None:
    POST_BOUND.clear()
    simulate([*nodes(1), make_pod("p").obj()], [AfterBind])
    assert POST_BOUND == ["p@n0"]


# -- plugins that raise ------------------------------------------------------------------


class Explodes(FilterPlugin):
    name = "Explodes"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if pod.metadata.name == "boom":
            raise KeyError("missing")
        return None


def test_plugin_exception_fails_only_that_pod() -> None:
    objs = [*nodes(2), make_pod("boom").obj(), make_pod("fine").obj()]
    result, sim = simulate(objs, [Explodes], until=0.5)
    assert result.pod("fine").status == "Bound"
    cond = condition(sim, "boom")
    assert cond is not None and cond[:2] == ("False", "SchedulerError")
    assert "plugin Explodes raised KeyError" in cond[2]
    assert 'running "Explodes" filter plugin' in cond[2]


# -- requeueing --------------------------------------------------------------------------


class NeedsLabel(FilterPlugin, EnqueueExtensions):
    """Only nodes labelled ready=yes; a node label change may help."""

    name = "NeedsLabel"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        assert node_info.node is not None
        if node_info.node.metadata.labels.get("ready") != "yes":
            return Status.unschedulable("node(s) not ready")
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.Node, ActionType.Add))]


class AddsNodeLater(ReservePlugin):
    """When `trigger` is reserved, create a ready node (a cluster event during the run)."""

    name = "AddsNodeLater"
    created: ClassVar[bool] = False

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None


def test_matching_cluster_event_moves_rejected_pod_back() -> None:
    import asyncio

    from sched_harness import make_simulation

    # an outside actor's timer does not keep a simulation alive: run for a fixed time
    sim = make_simulation(
        [make_node("plain").alloc(cpu="4").obj(), make_pod("p").obj()], [NeedsLabel], until=120
    )

    async def add_node_later() -> None:
        await asyncio.sleep(60)
        await sim.cluster.create(make_node("ready").alloc(cpu="4").label(ready="yes").obj())

    sim.loop.call_soon(lambda: sim.loop.create_task(add_node_later()))
    result = sim.run()
    assert result.pod("p").node == "ready"
    assert result.pod("p").attempts == 2  # once at t=0, once when the node came


class Gated(PreEnqueuePlugin):
    name = "Gated"

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if pod.spec.scheduling_gates:
            return Status.unresolvable("gated")
        return None


def test_pre_enqueue_keeps_gated_pods_out_of_the_cycle() -> None:
    result, _ = simulate(
        [*nodes(1), make_pod("g").gates("wait").obj(), make_pod("free").obj()], [Gated]
    )
    assert result.pod("free").status == "Bound"
    assert result.pod("g").status == "Pending"
    # the pod shows the condition the API server set on create, never a PreEnqueue message
    assert result.pod("g").message == SCHEDULING_GATED_MESSAGE
    assert result.pod("g").attempts == 0


class Flaky(FilterPlugin):
    """Errors on the first three attempts of each pod."""

    name = "Flaky"
    attempts: ClassVar[dict[str, list[float]]] = {}

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        seen = Flaky.attempts.setdefault(pod.metadata.name, [])
        if state.get("flaky") is None:
            state.write("flaky", True)
            seen.append(self.handle.clock.now())
        if len(seen) <= 3:
            return Status.as_error("try again")
        return None


@pytest.mark.parametrize(
    ("gates", "expected"),
    [
        ("SchedulerPopFromBackoffQ=false", [1.0, 2.0, 4.0]),
        # v1.34 default: a backoff ends with its 1 s window (1 s from t=0 is released at 2)
        ("", [2.0, 3.0, 5.0]),
    ],
)
def test_errors_back_off_exponentially(
    gates: str, expected: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBESCHED_FEATURE_GATES", gates)
    Flaky.attempts.clear()
    result, _ = simulate([*nodes(1), make_pod("p").obj()], [Flaky], until=60)
    assert result.pod("p").status == "Bound"
    times = Flaky.attempts["p"]
    gaps = [round(b - a, 6) for a, b in itertools.pairwise(times)]
    assert gaps == expected


def test_unschedulable_pool_is_retried_after_five_minutes() -> None:
    result, _ = simulate(
        [make_node("plain").alloc(cpu="4").obj(), make_pod("p").obj()], [NeedsLabel], until=601
    )
    # attempted at t=0, flushed back at t=300 and t=600
    assert result.pod("p").attempts == 3


# -- nominated pods ----------------------------------------------------------------------


def test_nominated_node_is_tried_first() -> None:
    SEEN.clear()
    objs = [*nodes(5), make_pod("p").nominated("n3").obj()]
    result, _ = simulate(objs, [Recorder, Zero])
    assert result.pod("p").node == "n3"
    assert SEEN == [["n3"]]


def test_higher_priority_nominated_pod_holds_its_room() -> None:
    objs = [
        *nodes(1, cpu="2"),
        make_pod("low").req(cpu="1").priority(1).obj(),
    ]
    from sched_harness import make_simulation

    sim = make_simulation(objs, [CpuFit])

    async def nominate() -> None:
        # a higher-priority pod nominated to n0 (as preemption would) but not yet bound
        assert sim.scheduler is not None
        from kubesched.framework import NominatingInfo, PodInfo

        high = make_pod("high").req(cpu="2").priority(100).obj()
        sim.scheduler.queue.add_nominated_pod(PodInfo(high), NominatingInfo("n0"))

    sim.loop.call_soon(lambda: sim.loop.create_task(nominate()))
    result = sim.run()
    assert result.pod("low").status == "Unschedulable"
    assert result.pod("low").message == "0/1 nodes are available: 1 Insufficient cpu."
