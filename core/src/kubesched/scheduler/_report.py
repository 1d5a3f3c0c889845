"""What a run reports about its attempts, kept by an observer of the loop.

`SchedulingReport` watches the loop's observation points (`_observers`) and keeps each
pod's last attempt (`records`), counters and latencies for benchmarks (`stats`), the
explanations of the pods asked for (`explain`, `explanations`) and how many cluster changes
the handlers have seen (`cluster_changes`), which `kubesched simulate` and the benchmarks
read. The loop itself keeps none of this.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kubesched.api import Pod
from kubesched.clock import Clock
from kubesched.framework import CycleState, NominatingInfo, NominatingMode, QueuedPodInfo, Status
from kubesched.runtime import Framework
from kubesched.scheduler._algorithm import ScheduleResult
from kubesched.scheduler._attempt_error import AttemptError, attempt_error
from kubesched.scheduler._explain import Explanation
from kubesched.scheduler._explain_cycle import CycleExplainer
from kubesched.scheduler._observers import SchedulerObserver

__all__ = ["AttemptRecord", "SchedulerStats", "SchedulingReport"]


@dataclass
class AttemptRecord:
    """The last outcome of a pod's scheduling attempts (for reports)."""

    profile: str
    attempts: int = 0
    result: str = ""  # "scheduled" | "unschedulable" | "error" | "waiting"
    node: str = ""
    message: str = ""
    nominated_node: str = ""
    changes_at_start: int = 0
    """`SchedulingReport.cluster_changes` when the last attempt began."""
    error: AttemptError | None = None
    """Where the last attempt's Error status came from (result "error" only)."""


@dataclass
class SchedulerStats:
    """Counters and real-time latencies of scheduling attempts (for benchmarks)."""

    attempts: dict[str, int] = field(
        default_factory=lambda: {"scheduled": 0, "unschedulable": 0, "error": 0}
    )
    attempt_latencies: list[float] = field(default_factory=list)
    """Wall-clock seconds each scheduling cycle took (not virtual time)."""


class SchedulingReport(SchedulerObserver):
    """Attempt records, statistics and explanations, fed by the loop's observation points."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.records: dict[str, AttemptRecord] = {}
        self.stats = SchedulerStats()
        self.cluster_changes = 0
        """How many cluster events the handlers have seen (tells a simulation whether a
        retry could have a different outcome)."""
        self.explain: set[str] = set()
        """Pod keys (`namespace/name`) whose attempts are explained plugin by plugin."""
        self.explanations: dict[str, Explanation] = {}
        """The last explanation of each explained pod."""
        self._started = 0.0
        self._explainer: CycleExplainer | None = None

    def _record(self, pod: Pod, fwk: Framework) -> AttemptRecord:
        return self.records.setdefault(pod.metadata.uid, AttemptRecord(fwk.profile_name))

    def attempt_started(self, qpi: QueuedPodInfo, fwk: Framework, state: CycleState) -> None:
        pod = qpi.pod
        record = self._record(pod, fwk)
        record.attempts += 1
        record.changes_at_start = self.cluster_changes
        self._started = time.perf_counter()
        if pod.key in self.explain:
            # taken from this very cycle: its state, snapshot and nominated pods
            self._explainer = CycleExplainer(fwk, pod, record.attempts, self.clock.now(), state)

    def cycle_ended(self, pod: Pod, result: ScheduleResult | None, status: Status) -> None:
        self.stats.attempt_latencies.append(time.perf_counter() - self._started)
        explainer, self._explainer = self._explainer, None
        if explainer is not None:
            self.explanations[pod.key] = explainer.finish(result, status)

    def binding_started(self, pod: Pod, fwk: Framework, waiting: bool) -> None:
        self._record(pod, fwk).result = "waiting" if waiting else "binding"

    def pod_bound(self, pod: Pod, node: str, fwk: Framework) -> None:
        record = self.records.get(pod.metadata.uid)
        if record is not None:
            record.result, record.node, record.message = "scheduled", node, ""
        self.stats.attempts["scheduled"] += 1

    def attempt_failed(
        self, pod: Pod, fwk: Framework, status: Status, nominating: NominatingInfo | None
    ) -> None:
        rejected = status.is_rejected
        self.stats.attempts["unschedulable" if rejected else "error"] += 1
        record = self._record(pod, fwk)
        record.result = "unschedulable" if rejected else "error"
        record.message = status.message()
        record.node = ""
        record.error = None
        if not rejected:
            plugin = fwk.plugins.get(status.plugin) if status.plugin else None
            record.error = attempt_error(status, plugin, with_traceback=pod.key in self.explain)
        if nominating is not None and nominating.mode is NominatingMode.Override:
            record.nominated_node = nominating.nominated_node_name

    def cluster_changed(self) -> None:
        self.cluster_changes += 1
