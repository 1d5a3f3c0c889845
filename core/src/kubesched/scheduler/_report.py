"""What a run reports about its attempts, kept by an observer of the loop.

`SchedulingReport` watches the loop's observation points (`_observers`) and keeps each
pod's last attempt (`records`), counters and latencies for benchmarks (`stats`), the
explanations of the pods asked for (`explain`, `explanations`) and how many cluster changes
the handlers have seen (`cluster_changes`), which `kubesched simulate` and the benchmarks
read. The loop itself keeps none of this.

What it keeps is its `Retention`'s choice: `kubesched simulate` keeps every pod's record
and every latency for its report (`KEEP_ALL`); `kubesched run`, which never stops, drops a
pod's record once its delete is seen and keeps only the latest latencies (`RUN_RETENTION`;
its Prometheus histograms have the whole distribution), so its memory stays flat.
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

__all__ = [
    "KEEP_ALL",
    "RUN_RETENTION",
    "AttemptRecord",
    "Retention",
    "SchedulerStats",
    "SchedulingReport",
]


@dataclass(frozen=True)
class Retention:
    """What a report keeps of a long run."""

    deleted_pods: bool = True
    """Keep a pod's record after its delete is seen (False: dropped then, and a pod gone
    mid-attempt gets no new record)."""
    latencies: int | None = None
    """Keep at least this many of the latest attempt latencies and fewer than twice as
    many (None: all of them)."""


KEEP_ALL = Retention()
"""Everything, for `kubesched simulate`'s report and the benchmarks."""

RUN_RETENTION = Retention(deleted_pods=False, latencies=4096)
"""Bounded, for `kubesched run`: the records of the pods alive, the latest latencies."""


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

    def __init__(self, clock: Clock, retention: Retention = KEEP_ALL) -> None:
        self.clock = clock
        self.retention = retention
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
        if not self.retention.deleted_pods:
            # only an attempt's start makes a record: a pod deleted mid-attempt stays gone
            return self.records.get(pod.metadata.uid) or AttemptRecord(fwk.profile_name)
        return self.records.setdefault(pod.metadata.uid, AttemptRecord(fwk.profile_name))

    def attempt_started(self, qpi: QueuedPodInfo, fwk: Framework, state: CycleState) -> None:
        pod = qpi.pod
        record = self.records.setdefault(pod.metadata.uid, AttemptRecord(fwk.profile_name))
        record.attempts += 1
        record.changes_at_start = self.cluster_changes
        self._started = time.perf_counter()
        if pod.key in self.explain:
            # taken from this very cycle: its state, snapshot and nominated pods
            self._explainer = CycleExplainer(fwk, pod, record.attempts, self.clock.now(), state)

    def cycle_ended(self, pod: Pod, result: ScheduleResult | None, status: Status) -> None:
        latencies = self.stats.attempt_latencies
        latencies.append(time.perf_counter() - self._started)
        keep = self.retention.latencies
        if keep is not None and len(latencies) >= 2 * keep:
            del latencies[: len(latencies) - keep]  # amortized: once every `keep` attempts
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

    def pod_deleted(self, pod: Pod) -> None:
        if not self.retention.deleted_pods:
            self.records.pop(pod.metadata.uid, None)

    def cluster_changed(self) -> None:
        self.cluster_changes += 1
