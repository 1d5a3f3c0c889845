"""The scheduling loop's observation points: what a report, metrics or a trace can watch.

The loop (`_scheduler`) and the informer handlers (`_event_handlers`) call these methods at
fixed points and do nothing else for reports: attempt records, statistics, explanations
(`_report.SchedulingReport`) and `kubesched run`'s metrics (`kubesched.run`) are observers.
Upstream records its metrics inline at the same points (schedule_one.go ScheduleOne,
schedulingCycle, bindingCycle, handleSchedulingFailure; eventhandlers.go).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched.framework import CycleState, NominatingInfo, QueuedPodInfo, Status
from kubesched.runtime import Framework

if TYPE_CHECKING:
    from kubesched.scheduler._algorithm import ScheduleResult

__all__ = ["ObserverList", "SchedulerObserver"]


class SchedulerObserver:
    """The observation points, each a no-op: override those you need."""

    def pod_popped(self, qpi: QueuedPodInfo) -> None:
        """The loop took `qpi` from the queue (before deciding whether to try it)."""

    def attempt_started(self, qpi: QueuedPodInfo, fwk: Framework, state: CycleState) -> None:
        """A scheduling cycle of `qpi` begins in profile `fwk` with `state`."""

    def host_selected(self, pod: Pod) -> None:
        """The node search of the current cycle found a host (upstream's
        SchedulingAlgorithmLatency ends here)."""

    def cycle_ended(self, pod: Pod, result: ScheduleResult | None, status: Status) -> None:
        """The scheduling cycle of `pod` is over: assumed (success) or failed."""

    def binding_started(self, pod: Pod, fwk: Framework, waiting: bool) -> None:
        """`pod`'s binding cycle starts; `waiting`: it waits at Permit first."""

    def pod_bound(self, pod: Pod, node: str, fwk: Framework) -> None:
        """`pod` was bound to `node` (before PostBind)."""

    def attempt_failed(
        self, pod: Pod, fwk: Framework, status: Status, nominating: NominatingInfo | None
    ) -> None:
        """An attempt of `pod` failed (scheduling or binding cycle) with `status`."""

    def pod_deleted(self, pod: Pod) -> None:
        """The handlers saw `pod` deleted (or terminal): it will not be tried again."""

    def cluster_changed(self) -> None:
        """An informer event or a plugin-reported change reached the handlers."""

    def event_handled(self, ev: WatchEvent, seconds: float) -> None:
        """An informer handler took `seconds` for `ev`."""


class ObserverList(SchedulerObserver):
    """Several observers as one, called in order."""

    def __init__(self, observers: Iterable[SchedulerObserver] = ()) -> None:
        self.observers = list(observers)

    def pod_popped(self, qpi: QueuedPodInfo) -> None:
        for o in self.observers:
            o.pod_popped(qpi)

    def attempt_started(self, qpi: QueuedPodInfo, fwk: Framework, state: CycleState) -> None:
        for o in self.observers:
            o.attempt_started(qpi, fwk, state)

    def host_selected(self, pod: Pod) -> None:
        for o in self.observers:
            o.host_selected(pod)

    def cycle_ended(self, pod: Pod, result: ScheduleResult | None, status: Status) -> None:
        for o in self.observers:
            o.cycle_ended(pod, result, status)

    def binding_started(self, pod: Pod, fwk: Framework, waiting: bool) -> None:
        for o in self.observers:
            o.binding_started(pod, fwk, waiting)

    def pod_bound(self, pod: Pod, node: str, fwk: Framework) -> None:
        for o in self.observers:
            o.pod_bound(pod, node, fwk)

    def attempt_failed(
        self, pod: Pod, fwk: Framework, status: Status, nominating: NominatingInfo | None
    ) -> None:
        for o in self.observers:
            o.attempt_failed(pod, fwk, status, nominating)

    def pod_deleted(self, pod: Pod) -> None:
        for o in self.observers:
            o.pod_deleted(pod)

    def cluster_changed(self) -> None:
        for o in self.observers:
            o.cluster_changed()

    def event_handled(self, ev: WatchEvent, seconds: float) -> None:
        for o in self.observers:
            o.event_handled(ev, seconds)

    @property
    def times_events(self) -> bool:
        """Whether some observer wants handler durations (else nobody times them)."""
        return any(type(o).event_handled is not SchedulerObserver.event_handled for o in self)

    def __iter__(self) -> Iterator[SchedulerObserver]:
        return iter(self.observers)
