"""Message table: what the framework itself says when a pod is not scheduled.

Each row is a scenario that makes the framework produce one upstream text, run end to end
on the memory cluster, and the exact string a user then reads: the PodScheduled condition
(status, reason, message) and the FailedScheduling event. The strings are copied from
kube-scheduler v1.34 (kubernetes/kubernetes):

- pkg/scheduler/framework/runtime/framework.go: the runners' error wrappings
  (`running PreFilter plugin %q: %w`, `running %q filter plugin: %w`, ...), the PreFilter
  result texts (`node(s) didn't satisfy plugin %v` / `... plugin(s) %v simultaneously`),
  Permit's Wait status (`waiting on permit for pod: %w` cannot be reached: a waiting pod
  is only ever allowed or rejected);
- pkg/scheduler/framework/runtime/waiting_pods_map.go: `rejected due to timeout after
  waiting %v at plugin %v`;
- pkg/scheduler/framework/types.go: FitError.Error (`0/%v nodes are available:`, the
  histogram sorted as strings, ` %v.` after PreFilter or Filter, ` %v` for PostFilter);
- pkg/scheduler/schedule_one.go: ErrNoNodesAvailable, the absent-nodes status after a
  PreFilterResult (`node(s) didn't satisfy plugin(s) %v`), the one-node FitError of a
  Reserve/Permit rejection, handleSchedulingFailure (reason Unschedulable for rejections,
  SchedulerError otherwise; the event truncated to 1024 characters, the condition not),
  `Successfully assigned %v/%v to %v`, `skip schedule deleting pod: %v/%v`.

A plugin that raises (Go plugins cannot) and the choices the README lists under
"Differences from kube-scheduler, on purpose" are asserted as kubesched documents them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import ClassVar

import pytest
from _scenarios import Cordon, CpuFit, Sort, config, nodes, run_scenario

from kubesched.api import K8sModel, Pod
from kubesched.framework import (
    ActionType,
    BindPlugin,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    NoArgs,
    NodeInfo,
    NodeScore,
    NodeToStatus,
    PermitPlugin,
    Plugin,
    PodInfo,
    PostFilterPlugin,
    PostFilterResult,
    PreBindPlugin,
    PreFilterPlugin,
    PreFilterResult,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
    Status,
    WaitingPod,
)
from kubesched.testing import PluginHarness, Scenario, make_node, make_pod

# -- in-test plugins, one behaviour each ---------------------------------------------------


class _PreFilterSays(PreFilterPlugin):
    """PreFilter answers `result` and `status`, whatever the pod."""

    result: ClassVar[PreFilterResult | None] = None
    status: ClassVar[Status | None] = None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        return self.result, self.status


class Unwelcome(_PreFilterSays):
    name = "Unwelcome"
    status = Status.unschedulable("pod is not welcome")


class AlsoUnwelcome(_PreFilterSays):
    name = "AlsoUnwelcome"
    status = Status.unschedulable("second says no")


class Closed(_PreFilterSays):
    name = "Closed"
    status = Status.unresolvable("the shop is closed")


class NarrowB(_PreFilterSays):
    name = "NarrowB"
    result = PreFilterResult.of(["n1"])


class NarrowA(_PreFilterSays):
    name = "NarrowA"
    result = PreFilterResult.of(["n0"])


class NarrowToNothing(_PreFilterSays):
    name = "NarrowToNothing"
    result = PreFilterResult.of([])


class BrokenPreFilter(_PreFilterSays):
    name = "BrokenPreFilter"
    status = Status.as_error("boom")


class RaisingPreFilter(PreFilterPlugin):
    name = "RaisingPreFilter"

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        raise ValueError("bad input")


class _FilterSays(FilterPlugin):
    """Filter answers `status` on every node."""

    status: ClassVar[Status | None] = None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return self.status


class BrokenFilter(_FilterSays):
    name = "BrokenFilter"
    status = Status.as_error("boom")


class CpuAndMemory(_FilterSays):
    name = "CpuAndMemory"
    status = Status.unschedulable("Insufficient cpu", "Insufficient memory")


class Postponed(_FilterSays):
    name = "Postponed"
    status = Status.pending("waiting for the device driver")


class Verbose(_FilterSays):
    name = "Verbose"
    status = Status.unschedulable("x" * 1100)


class BrokenPreScore(PreScorePlugin):
    name = "BrokenPreScore"

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        return Status.as_error("boom")


class _ScoreSays(ScorePlugin):
    """Score answers `points` and `status` on every node."""

    points: ClassVar[int] = 0
    status: ClassVar[Status | None] = None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return self.points, self.status


class Flat(_ScoreSays):
    name = "Flat"


class BrokenScore(_ScoreSays):
    name = "BrokenScore"
    status = Status.as_error("boom")


class TooHigh(_ScoreSays):
    name = "TooHigh"
    points = 101


class BrokenNormalize(_ScoreSays):
    name = "BrokenNormalize"

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        return Status.as_error("boom")


class _ReserveSays(ReservePlugin):
    """Reserve answers `status`; Unreserve does nothing."""

    status: ClassVar[Status | None] = None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return self.status

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None


class FullReservations(_ReserveSays):
    name = "FullReservations"
    status = Status.unschedulable("no room in the reservation book")


class BrokenReserve(_ReserveSays):
    name = "BrokenReserve"
    status = Status.as_error("boom")


class _PermitSays(PermitPlugin):
    """Permit answers `status` with `timeout`."""

    status: ClassVar[Status | None] = None
    timeout: ClassVar[float] = 0.0

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return self.status, self.timeout


class Refuse(_PermitSays):
    name = "Refuse"
    status = Status.unschedulable("permit says no")


class BrokenPermit(_PermitSays):
    name = "BrokenPermit"
    status = Status.as_error("boom")


class _Waiter(_PermitSays):
    """Holds every pod at Permit for `timeout` seconds."""

    name = "Waiter"
    status = Status.wait()


class Wait10s(_Waiter):
    timeout = 10.0


class Wait1500ms(_Waiter):
    timeout = 1.5


class Wait100ms(_Waiter):
    timeout = 0.1


class WaitAnHour(_Waiter):
    timeout = 3600.0


class Usher(PermitPlugin):
    """Holds pod `first`; pod `second` turns the waiting pods away and goes through."""

    name = "Usher"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        if pod.metadata.name == "first":
            return Status.wait(), 60.0

        def turn_away(wp: WaitingPod) -> None:
            wp.reject(self.name, f"make way for {pod.metadata.name}")

        self.handle.iterate_over_waiting_pods(turn_away)
        return None, 0.0


class VolumeNotReady(PreBindPlugin, EnqueueExtensions):
    """Registers a Node/Add only, as a volume plugin would: with none registered it would be
    requeued by every event, its own status write included, and retried at once."""

    name = "VolumeNotReady"

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(EventResource.Node, ActionType.Add))]

    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return Status.unschedulable("volume not ready")


class BrokenPreBind(PreBindPlugin):
    name = "BrokenPreBind"

    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return Status.as_error("boom")


class _PostFilter(PostFilterPlugin):
    status: ClassVar[Status] = Status.unschedulable()

    def post_filter(
        self, state: CycleState, pod: Pod, statuses: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        return None, self.status


class NoVictims(_PostFilter):
    name = "NoVictims"
    status = Status.unschedulable("no victims here")


class NothingToEvict(_PostFilter):
    name = "NothingToEvict"
    status = Status.unschedulable("nothing to evict")


class Silent(_PostFilter):
    name = "Silent"
    status = Status.unschedulable()


class BrokenPostFilter(_PostFilter):
    name = "BrokenPostFilter"
    status = Status.as_error("boom")


# -- the table: scheduling-cycle failures ---------------------------------------------------

UNSCHEDULABLE = "Unschedulable"
SCHEDULER_ERROR = "SchedulerError"


def _big(name: str = "p", cpu: str = "2") -> Pod:
    return make_pod(name).req(cpu=cpu).obj()


def _cordoned(n: int) -> list[K8sModel]:
    return [make_node(f"c{i}").alloc(cpu="8", pods=110).unschedulable().obj() for i in range(n)]


Row = tuple[list[K8sModel], list[type[Plugin]], str, str]

SCHEDULING_CYCLE: dict[str, Row] = {
    # schedule_one.go ErrNoNodesAvailable; the status is UnschedulableAndUnresolvable
    "no nodes": ([_big()], [], UNSCHEDULABLE, "no nodes available to schedule pods"),
    # types.go FitError.Error: "%v %v" entries sorted as strings ("10 ..." before "2 ...")
    "histogram sorted as strings": (
        [*nodes(10, cpu="1"), *_cordoned(2), _big()],
        [Cordon, CpuFit],
        UNSCHEDULABLE,
        "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) were unschedulable.",
    ),
    # types.go: every reason of a node's status counts (Status.Reasons)
    "every reason of a node counts": (
        [*nodes(2), _big()],
        [CpuAndMemory],
        UNSCHEDULABLE,
        "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory.",
    ),
    # types.go: a PreFilter rejection is the whole message, nodes are not listed
    "PreFilter rejection": (
        [*nodes(3), _big()],
        [Unwelcome, CpuFit],
        UNSCHEDULABLE,
        "0/3 nodes are available: pod is not welcome.",
    ),
    # framework.go RunPreFilterPlugins: Unschedulable lets the others run, the last counts
    "PreFilter rejections: the last Unschedulable": (
        [*nodes(3), _big()],
        [Unwelcome, AlsoUnwelcome],
        UNSCHEDULABLE,
        "0/3 nodes are available: second says no.",
    ),
    # framework.go: UnschedulableAndUnresolvable returns at once
    "PreFilter rejection: UnschedulableAndUnresolvable stops": (
        [*nodes(3), _big()],
        [Closed, Unwelcome],
        UNSCHEDULABLE,
        "0/3 nodes are available: the shop is closed.",
    ),
    # schedule_one.go findNodesThatFitPod: nodes outside the PreFilterResult
    "PreFilterResult leaves nodes out": (
        [*nodes(3, cpu="1"), _big()],
        [NarrowA, CpuFit],
        UNSCHEDULABLE,
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
        "[NarrowA].",
    ),
    # framework.go: one plugin's result left no node
    "PreFilterResult empty, one plugin": (
        [*nodes(3), _big()],
        [NarrowToNothing],
        UNSCHEDULABLE,
        "0/3 nodes are available: node(s) didn't satisfy plugin NarrowToNothing.",
    ),
    # framework.go: results intersected to nothing; names sorted (sets.List)
    "PreFilterResults disjoint": (
        [*nodes(3), _big()],
        [NarrowB, NarrowA],
        UNSCHEDULABLE,
        "0/3 nodes are available: node(s) didn't satisfy plugin(s) [NarrowA NarrowB] "
        "simultaneously.",
    ),
    "PreFilter error": (
        [*nodes(2), _big()],
        [BrokenPreFilter],
        SCHEDULER_ERROR,
        'running PreFilter plugin "BrokenPreFilter": boom',
    ),
    # kubesched (DESIGN.md "Plugin API"): an exception is an Error status naming the plugin
    "plugin raises": (
        [*nodes(2), _big()],
        [RaisingPreFilter],
        SCHEDULER_ERROR,
        'running PreFilter plugin "RaisingPreFilter": plugin RaisingPreFilter raised '
        "ValueError: bad input",
    ),
    "Filter error": (
        [*nodes(2), _big()],
        [BrokenFilter],
        SCHEDULER_ERROR,
        'running "BrokenFilter" filter plugin: boom',
    ),
    "PreScore error": (
        [*nodes(2), _big()],
        [BrokenPreScore, Flat],
        SCHEDULER_ERROR,
        'running PreScore plugin "BrokenPreScore": boom',
    ),
    "Score error": (
        [*nodes(2), _big()],
        [BrokenScore],
        SCHEDULER_ERROR,
        'running Score plugins: plugin "BrokenScore" failed with: boom',
    ),
    "NormalizeScore error": (
        [*nodes(2), _big()],
        [BrokenNormalize],
        SCHEDULER_ERROR,
        'running Normalize on Score plugins: plugin "BrokenNormalize" failed with: boom',
    ),
    "score out of range": (
        [*nodes(2), _big()],
        [TooHigh],
        SCHEDULER_ERROR,
        'applying score defaultWeights on Score plugins: plugin "TooHigh" returns an invalid '
        "score 101, it should in the range of [0, 100] after normalizing",
    ),
    # schedule_one.go schedulingCycle: a Reserve rejection is a FitError over the host
    "Reserve rejection": (
        [*nodes(1), _big()],
        [FullReservations],
        UNSCHEDULABLE,
        "0/1 nodes are available: 1 no room in the reservation book.",
    ),
    "Reserve error": (
        [*nodes(1), _big()],
        [BrokenReserve],
        SCHEDULER_ERROR,
        'running Reserve plugin "BrokenReserve": boom',
    ),
    "Permit rejection": (
        [*nodes(1), _big()],
        [Refuse],
        UNSCHEDULABLE,
        "0/1 nodes are available: 1 permit says no.",
    ),
    "Permit error": (
        [*nodes(1), _big()],
        [BrokenPermit],
        SCHEDULER_ERROR,
        'running Permit plugin "BrokenPermit": boom',
    ),
    # types.go: PostFilter's message follows the histogram's full stop, with none of its own
    "PostFilter message appended": (
        [*nodes(2, cpu="1"), _big()],
        [CpuFit, NoVictims],
        UNSCHEDULABLE,
        "0/2 nodes are available: 2 Insufficient cpu. no victims here",
    ),
    # framework.go RunPostFilterPlugins: every Unschedulable plugin's reasons, joined ", "
    "PostFilter messages joined": (
        [*nodes(2, cpu="1"), _big()],
        [CpuFit, NoVictims, NothingToEvict],
        UNSCHEDULABLE,
        "0/2 nodes are available: 2 Insufficient cpu. no victims here, nothing to evict",
    ),
    # types.go: an Unschedulable PostFilter without reasons adds nothing
    "PostFilter without a message": (
        [*nodes(2, cpu="1"), _big()],
        [CpuFit, Silent],
        UNSCHEDULABLE,
        "0/2 nodes are available: 2 Insufficient cpu.",
    ),
    # framework.go: a PostFilter error is the error's text; the pod stays Unschedulable
    "PostFilter error": (
        [*nodes(2, cpu="1"), _big()],
        [CpuFit, BrokenPostFilter],
        UNSCHEDULABLE,
        "0/2 nodes are available: 2 Insufficient cpu. boom",
    ),
    # types.go: PostFilter runs after a PreFilter rejection too
    "PreFilter rejection, then PostFilter": (
        [*nodes(3), _big()],
        [Unwelcome, NoVictims],
        UNSCHEDULABLE,
        "0/3 nodes are available: pod is not welcome. no victims here",
    ),
}

BINDING_CYCLE: dict[str, Row] = {
    # waiting_pods_map.go: Go's time.Duration.String of the (capped) timeout
    "Permit timeout 10s": (
        [*nodes(1), _big()],
        [Wait10s],
        UNSCHEDULABLE,
        "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin Waiter.",
    ),
    "Permit timeout 1.5s": (
        [*nodes(1), _big()],
        [Wait1500ms],
        UNSCHEDULABLE,
        "0/1 nodes are available: 1 rejected due to timeout after waiting 1.5s at plugin Waiter.",
    ),
    "Permit timeout 100ms": (
        [*nodes(1), _big()],
        [Wait100ms],
        UNSCHEDULABLE,
        "0/1 nodes are available: 1 rejected due to timeout after waiting 100ms at plugin Waiter.",
    ),
    # framework.go maxTimeout: a Permit wait is capped at 15 minutes
    "Permit timeout capped": (
        [*nodes(1), _big()],
        [WaitAnHour],
        UNSCHEDULABLE,
        "0/1 nodes are available: 1 rejected due to timeout after waiting 15m0s at plugin Waiter.",
    ),
    # README "Differences ... on purpose": a PreBind rejection is a FitError (v1.31)
    "PreBind rejection": (
        [*nodes(1), _big()],
        [VolumeNotReady],
        UNSCHEDULABLE,
        "0/1 nodes are available: 1 volume not ready.",
    ),
    "PreBind error": (
        [*nodes(1), _big()],
        [BrokenPreBind],
        SCHEDULER_ERROR,
        'running PreBind plugin "BrokenPreBind": boom',
    ),
}


@pytest.mark.parametrize(
    ("objects", "plugins", "reason", "message"),
    [pytest.param(*row, id=name) for name, row in {**SCHEDULING_CYCLE, **BINDING_CYCLE}.items()],
)
def test_failure_message(
    objects: list[K8sModel], plugins: list[type[Plugin]], reason: str, message: str
) -> None:
    run = run_scenario(objects, plugins)
    assert run.condition("p") == ("False", reason, message)
    assert set(run.events("p")) == {message}
    assert run.message("p") == message


# -- binding-cycle texts that need more than one pod ---------------------------------------


def test_waiting_pod_rejected_by_another_plugin_call() -> None:
    """framework.go WaitOnPermit returns the rejection; schedule_one.go bindingCycle makes
    it a one-node FitError."""
    objs = [*nodes(2), make_pod("first").req(cpu="1").obj(), make_pod("second").obj()]
    run = run_scenario(objs, [Usher])
    # then `first` is retried, waits again and times out: its first failure is the one
    assert run.events("first")[0] == "0/1 nodes are available: 1 make way for second."
    assert run.pod("second").spec.node_name


class NoSeat(BindPlugin):
    name = "NoSeat"

    async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return Status.unschedulable("no seat left")


class BrokenBind(BindPlugin):
    name = "BrokenBind"

    async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return Status.as_error("boom")


@pytest.mark.parametrize(
    ("binder", "reason", "message"),
    [
        (NoSeat, UNSCHEDULABLE, "no seat left"),
        (BrokenBind, SCHEDULER_ERROR, 'running Bind plugin "BrokenBind": boom'),
    ],
)
def test_bind_failure_is_the_plugin_status(binder: type[Plugin], reason: str, message: str) -> None:
    """framework.go RunBindPlugins: a rejection is returned as is (no FitError), anything
    else is `running Bind plugin %q: %w`."""
    run = run_scenario([*nodes(1), _big()], [binder], config(Sort.name, binder.name))
    assert run.condition("p") == ("False", reason, message)
    assert set(run.events("p")) == {message}


class BrokenAddPod(PreFilterPlugin):
    """Fine at PreFilter; its AddPod extension fails."""

    name = "BrokenAddPod"

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        return None, None

    def pre_filter_extensions(self) -> BrokenAddPod:
        return self

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return Status.as_error("boom")

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        return None


def test_add_pod_extension_error() -> None:
    """framework.go RunPreFilterExtensionAddPod, reached through a pod of higher priority
    nominated to a node (RunFilterPluginsWithNominatedPods)."""
    nominee = make_pod("nominee").req(cpu="100").priority(100).nominated("n0").obj()
    run = run_scenario([*nodes(2), nominee, _big()], [BrokenAddPod, CpuFit])
    message = 'running AddPod on PreFilter plugin "BrokenAddPod": boom'
    assert run.condition("p") == ("False", SCHEDULER_ERROR, message)
    assert set(run.events("p")) == {message}


def test_pending_is_a_rejection() -> None:
    """schedule_one.go handleSchedulingFailure: Pending is rejected (reason Unschedulable)."""
    run = run_scenario([*nodes(2), _big()], [Postponed])
    message = "0/2 nodes are available: 2 waiting for the device driver."
    assert run.condition("p") == ("False", UNSCHEDULABLE, message)


def test_event_truncated_condition_not() -> None:
    """schedule_one.go truncateMessage: the event keeps 1024 characters ending in ` ...`
    (validation.NoteLengthLimit); the condition keeps the whole message."""
    run = run_scenario([*nodes(1), _big()], [Verbose])
    message = "0/1 nodes are available: 1 " + "x" * 1100 + "."
    assert run.condition("p") == ("False", UNSCHEDULABLE, message)
    assert set(run.events("p")) == {message[:1020] + " ..."}


def test_scheduled_event() -> None:
    """schedule_one.go finishBinding: `Successfully assigned %v/%v to %v`."""
    run = run_scenario([*nodes(1), _big()], [CpuFit])
    assert run.events("p", reason="Scheduled") == ["Successfully assigned default/p to n0"]
    assert run.events("p") == []


def test_deleting_pod_is_skipped_with_an_event() -> None:
    """schedule_one.go skipPodSchedule: `skip schedule deleting pod: %v/%v`."""
    pod = _big()
    meta = pod.metadata.model_copy(update={"deletion_timestamp": datetime.now(UTC)})
    run = run_scenario([*nodes(1), pod.model_copy(update={"metadata": meta})], [CpuFit])
    assert run.events("p") == ["skip schedule deleting pod: default/p"]
    assert run.condition("p") is None


def test_pod_of_another_scheduler() -> None:
    """Upstream never queues a pod whose schedulerName no profile has (eventhandlers.go
    responsibleForPod), so nothing is written on it; `kubesched simulate` says why it is
    pending (examples/basic/README.md)."""
    run = run_scenario([*nodes(1), make_pod("p").scheduler("other").obj()], [CpuFit])
    assert run.condition("p") is None
    assert run.events("p") == []
    assert run.message("p") == 'no profile for schedulerName "other": pod left to another scheduler'


def test_permit_wait_status() -> None:
    """framework.go RunPermitPlugins: the Wait status a waiting pod's cycle ends with."""

    async def permit() -> Status:
        harness = PluginHarness(Wait10s, NoArgs(), Scenario(nodes(1), [], _big()))
        return harness.framework.run_permit_plugins(CycleState(), harness.pod, "n0")

    status = asyncio.run(permit())
    assert status.code is Code.Wait
    assert status.message() == 'one or more plugins asked to wait and no plugin rejected pod "p"'
