"""`Handle.report_cluster_event`: a change a plugin sees in its own state (an assumption
undone by Unreserve, with nothing written to the API) requeues the pods it rejected, as an
informer event would, with the queueing hints applied; without it they stay in the
unschedulable pool (until its 5-minute flush)."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from sched_harness import make_simulation

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.config import ResolvedProfile
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    FilterPlugin,
    NodeInfo,
    PostBindPlugin,
    PreBindPlugin,
    QueueingHint,
    ReservePlugin,
    Snapshot,
    Status,
)
from kubesched.runtime import Framework
from kubesched.testing import make_node, make_pod

TOKEN = "Token"
"""The resource name of the in-test plugin's own state (no API kind behind it)."""


class OneToken(FilterPlugin, ReservePlugin, EnqueueExtensions):
    """One token in memory: Reserve takes it, Unreserve gives it back (and, when
    `report` is set, says so through the Handle). Filter rejects pods while another pod
    holds it."""

    name = "OneToken"
    report: ClassVar[bool] = True
    hint: ClassVar[QueueingHint] = QueueingHint.Queue
    seen: ClassVar[list[tuple[Any, Any]]] = []

    def __init__(self, args: Any, handle: Any) -> None:
        super().__init__(args, handle)
        self.holder: str | None = None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if self.holder is not None and self.holder != pod.key:
            return Status.unschedulable(f"the token is held by {self.holder}")
        return None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.holder = pod.key
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        if self.holder != pod.key:
            return
        self.holder = None
        if self.report:
            self.handle.report_cluster_event(
                ClusterEvent(TOKEN, ActionType.UpdateOther), pod.key, None
            )

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(TOKEN, ActionType.Update), self._hint)]

    def _hint(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        self.seen.append((old, new))
        return self.hint


class FailFirstPreBind(PreBindPlugin):
    """Pod `a`'s first PreBind fails after 10 virtual seconds (an API error, say)."""

    name = "FailFirstPreBind"
    failed: ClassVar[set[str]] = set()

    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if pod.metadata.name != "a" or pod.key in self.failed:
            return None
        self.failed.add(pod.key)
        await asyncio.sleep(10)
        return Status.as_error("the storage backend is down")


class BindTimes(PostBindPlugin):
    name = "BindTimes"
    at: ClassVar[dict[str, float]] = {}

    async def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.at[pod.metadata.name] = self.handle.clock.now()


def _run(report: bool, hint: QueueingHint = QueueingHint.Queue) -> Any:
    OneToken.report, OneToken.hint = report, hint
    OneToken.seen.clear()
    FailFirstPreBind.failed.clear()
    BindTimes.at.clear()
    objs: list[Any] = [
        make_node("n1").alloc(cpu="4").obj(),
        make_pod("a").req(cpu="1").priority(10).obj(),
        make_pod("b").req(cpu="1").obj(),
    ]
    return make_simulation(objs, [OneToken, FailFirstPreBind, BindTimes], until=60).run()


def test_reported_unreserve_requeues_the_pod_it_rejected_at_once() -> None:
    result = _run(report=True)
    # b was rejected while a held the token; a's PreBind failed at t=10 and gave it back
    assert result.pod("b").status == "Bound"
    assert 10 <= BindTimes.at["b"] < 12
    assert result.pod("a").status == "Unschedulable"
    assert ("default/a", None) in OneToken.seen  # the hint saw the reported objects


def test_without_the_report_the_pod_stays_in_the_pool() -> None:
    result = _run(report=False)
    # nothing moved b (it waits for the 5-minute flush); a's own retry after its error
    # backoff took the token back
    assert result.pod("b").status == "Unschedulable"
    assert OneToken.seen == []
    assert result.pod("a").status == "Bound" and BindTimes.at["a"] >= 11


def test_the_hint_decides_as_for_an_informer_event() -> None:
    result = _run(report=True, hint=QueueingHint.QueueSkip)
    assert result.pod("b").status == "Unschedulable"
    assert OneToken.seen  # offered to the hint, which said QueueSkip


def test_framework_forwards_reports_to_its_reporter_and_ignores_them_without_one() -> None:
    spec = ResolvedProfile("p", {"Filter": []}, {}, {})

    class Recorder:
        def event(self, *args: Any) -> None: ...

    fwk = Framework(
        spec,
        {},
        cluster=None,
        clock=VirtualClock(),
        snapshot=Snapshot(),
        event_recorder=Recorder(),
    )
    event = ClusterEvent(TOKEN, ActionType.UpdateOther)
    fwk.report_cluster_event(event, 1, 2)  # no scheduler: nothing happens
    got: list[tuple[ClusterEvent, Any, Any]] = []
    fwk.event_reporter = lambda e, old, new: got.append((e, old, new))
    fwk.report_cluster_event(event, 1, 2)
    assert got == [(event, 1, 2)]
