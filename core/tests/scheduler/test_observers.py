"""The loop's observation points: what an observer given to the scheduler is told, in
which order, and the report (`sched.report`) kept from the same points."""

from __future__ import annotations

from sched_harness import CpuFit, make_simulation

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched.framework import CycleState, NominatingInfo, QueuedPodInfo, Status
from kubesched.runtime import Framework
from kubesched.scheduler import ObserverList, ScheduleResult, SchedulerObserver
from kubesched.simulate import Simulation
from kubesched.testing import make_node, make_pod


class Recorder(SchedulerObserver):
    def __init__(self) -> None:
        self.seen: list[tuple[str, ...]] = []
        self.changes = 0

    def pod_popped(self, qpi: QueuedPodInfo) -> None:
        self.seen.append(("popped", qpi.pod.metadata.name))

    def attempt_started(self, qpi: QueuedPodInfo, fwk: Framework, state: CycleState) -> None:
        self.seen.append(("started", qpi.pod.metadata.name, fwk.profile_name))

    def host_selected(self, pod: Pod) -> None:
        self.seen.append(("host", pod.metadata.name))

    def cycle_ended(self, pod: Pod, result: ScheduleResult | None, status: Status) -> None:
        host = result.suggested_host if result is not None else "-"
        self.seen.append(("ended", pod.metadata.name, host, str(status.code)))

    def binding_started(self, pod: Pod, fwk: Framework, waiting: bool) -> None:
        self.seen.append(("binding", pod.metadata.name, str(waiting)))

    def pod_bound(self, pod: Pod, node: str, fwk: Framework) -> None:
        self.seen.append(("bound", pod.metadata.name, node))

    def attempt_failed(
        self, pod: Pod, fwk: Framework, status: Status, nominating: NominatingInfo | None
    ) -> None:
        self.seen.append(("failed", pod.metadata.name, str(status.code)))

    def cluster_changed(self) -> None:
        self.changes += 1


def _run(observer: SchedulerObserver) -> Simulation:
    objects = [
        make_node("n0").alloc(cpu="1", memory="4Gi", pods=10).obj(),
        make_pod("a").req(cpu="1").obj(),
        make_pod("b").req(cpu="1").priority(-1).obj(),
    ]
    sim = make_simulation(objects, [CpuFit])
    sim.observers = [observer]
    sim.run()
    return sim


def test_the_loop_tells_each_point_in_order() -> None:
    rec = Recorder()
    sim = _run(rec)
    of = {n: [s for s in rec.seen if s[1] == n] for n in ("a", "b")}
    assert of["a"] == [
        ("popped", "a"),
        ("started", "a", "default-scheduler"),
        ("host", "a"),
        ("ended", "a", "n0", "Success"),
        ("binding", "a", "False"),
        ("bound", "a", "n0"),
    ]
    assert of["b"][:4] == [
        ("popped", "b"),
        ("started", "b", "default-scheduler"),
        ("ended", "b", "-", "Unschedulable"),
        ("failed", "b", "Unschedulable"),
    ]
    # the report is fed by the same points
    assert sim.scheduler is not None
    report = sim.scheduler.report
    assert report.cluster_changes == rec.changes > 0
    records = {r.result: r for r in report.records.values()}
    assert records["scheduled"].node == "n0"
    assert records["unschedulable"].attempts == sum(1 for s in of["b"] if s[0] == "started")
    assert report.stats.attempts["scheduled"] == 1


def test_handlers_are_timed_only_for_an_observer_that_wants_it() -> None:
    class Timing(SchedulerObserver):
        def __init__(self) -> None:
            self.events: list[str] = []

        def event_handled(self, ev: WatchEvent, seconds: float) -> None:
            assert seconds >= 0
            self.events.append(f"{ev.kind}/{ev.type}")

    assert not ObserverList([Recorder()]).times_events
    timing = Timing()
    assert ObserverList([Recorder(), timing]).times_events
    _run(timing)
    assert timing.events[:3] == ["Node/ADDED", "Pod/ADDED", "Pod/ADDED"]
    assert "Pod/MODIFIED" in timing.events  # a's binding
