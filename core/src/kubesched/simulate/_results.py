"""What a simulation produced: one record per pod and node, and a summary.

The JSON form (`SimulationResult.to_json_dict`) is a stable interface for programs:

    {"pods": [{"namespace", "name", "schedulerName", "node", "status", "message",
               "attempts", "nominatedNode", "preemptedBy", "preemptedAt", "error",
               "createdAt", "boundAt", "finishedAt", "latencySeconds"}],
     "nodes": [{"name", "allocatable": {...}, "requested": {...}, "pods"}],
     "summary": {"pods", "bound", "unschedulable", "error", "waiting", "pending",
                 "preempted", "terminating", ["succeeded", "failed",] "nodes",
                 "virtualSeconds", "seed", "attempts"},
     "skipped": [{"apiVersion", "kind", "count", "file", "document", "reason"}],
     "explanations": {"ns/pod": {...}},   (only with --explain)
     "sections": {"<key>": <payload>},    (only when a hook module contributes one)
     "checkpoints": [{...}],              (only with --scenario)
     "timeline": {"points": [{...}], "latency": {...}}}

`status` is one of Bound, Unschedulable, Error, Waiting, Pending, Preempted, Terminating,
Succeeded, Failed; `node` is null when unplaced; `message` carries the reason a pod is not
bound (empty when bound); a pod held by scheduling gates is Pending with the API server's
condition message, `Scheduling is blocked due to non-empty scheduling gates`. CPU is in
millicores, other resources in base units.

`Error` is a pod whose last attempt ended in an Error status rather than a rejection: a
plugin raised (or returned an Error). Its message is its PodScheduled condition's, reason
SchedulerError, in upstream's words (`running "X" filter plugin: ...`), and `error` says
more: `{"plugin", "exception", "location", "traceback"}`, the plugin the status names, the
exception's type name, the `file:line` in the plugin's code it was raised at, and the
formatted traceback (only for pods named by --explain, else ""). `error` is null for every
other pod.

`skipped` has one entry per apiVersion and kind of the objects left out because no installed
package registers their kind (a cluster dump holds thousands of ConfigMaps): how many
(`count`), why (`reason`), and the `file` and `document` of the first one.

`sections` holds what installed hook modules report beside the pods (the
`kubesched_report_sections` hook, `ReportSection`), each payload under its section's key,
keys sorted. kubesched-coscheduling adds `podGroups` (a list with one object per
PodGroup; its package README documents the fields); the core's workload controllers add
`workloads` when the cluster holds Deployments, ReplicaSets, StatefulSets, DaemonSets or
Jobs: one object per workload (a ReplicaSet of a Deployment counts as its Deployment),
`{"kind", "namespace", "name", "desired", "pods", "bound", "succeeded", "failed",
"message"}`, `desired` the replicas (a Job's completions, null for a work queue; a
DaemonSet's eligible nodes), `pods` and `bound` its active pods and those bound, `message`
why it is short of pods (its controller's last FailedCreate Event, or the ordinal an
OrderedReady StatefulSet waits behind) or how a Job ended (`Complete: ...`, `Failed: ...`).

`checkpoints` holds the state at each `checkpoint` step of a scenario (`--scenario`), in
step order: `{"name", "step", "at", "pods", "bound", "pending", "terminating",
"succeeded", "failed", "nodes", "placements": {"ns/name": node}, "pendingPods": [...]}`
(see `kubesched.simulate._scenario.Checkpoint`); the pods and summary are the state at the
end of the run, after the last step.

`timeline` is the run over virtual time (`kubesched.simulate._timeline`): `points` has one
entry per virtual instant at which the counts changed, in time order, the state once that
instant's changes were made: `{"at", "pods", "bound", "pending", "terminating",
"succeeded", "failed", "nodes"}`, counted as a checkpoint counts. `latency` is the
scheduling latency (created → bound) of every pod the run's scheduler bound, deleted ones
included: `{"pods", "p50", "p90", "p99", "max"}` in seconds, nearest-rank percentiles, null
when no pod was bound. Each pod's `createdAt`, `boundAt` and `finishedAt` are the virtual
seconds at which it was created, bound and finished (null: not yet), and `latencySeconds`
is `boundAt - createdAt` for a pod the scheduler bound (null for one that is not bound, or
that was created already bound, spec.nodeName in its manifest). All are on the virtual
clock, so a run's timeline is as deterministic as its placements.

With `--summary`, the JSON is `{"summary", "reasons", "skipped"}` and, with a scenario,
`checkpoints` with their counts only (no `placements` nor `pendingPods`).

A pod that ran and finished (the pod lifecycle: `simulation.kubesched.io/duration`, see
`kubesched.workloads`) is `Succeeded` or `Failed` on the node it ran on, with an empty
message; the summary then counts `succeeded` and `failed` (both keys are left out when no
pod finished, so such a run reports exactly as before). Finished pods are not among the
`reasons` pods are not bound.

Two more statuses come from preemption. A pod it evicted is listed after it has left the
cluster: `Preempted`, with `node` null, `preemptedBy` the preemptor's `namespace/name`,
`preemptedAt` the virtual seconds of its eviction, and the message `preempted by <ns/name>
on node <node> at <t>s`. A pod still being deleted when the run ends (its grace period, 30 s
by default, still running, say with `--until`) is `Terminating` on its node, its message
followed by `; terminating until <t>s` (or `being deleted; terminating until <t>s` when no
preemption is known). `preemptedBy` and `preemptedAt` are null for every other pod.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from kubesched.hookspecs import ReportSection
from kubesched.scheduler import AttemptError, Explanation
from kubesched.simulate._manifests import SkippedObject
from kubesched.simulate._scenario import Checkpoint
from kubesched.simulate._timeline import PodTimes, TimelinePoint, latency_summary

__all__ = [
    "PLACED",
    "POD_OUTCOMES",
    "NodeAllocation",
    "PodOutcome",
    "PodResult",
    "SimulationResult",
    "group_skipped",
]

PodOutcome = Literal[
    "Bound",
    "Unschedulable",
    "Error",
    "Waiting",
    "Pending",
    "Preempted",
    "Terminating",
    "Succeeded",
    "Failed",
]
POD_OUTCOMES: tuple[PodOutcome, ...] = get_args(PodOutcome)
PLACED: frozenset[PodOutcome] = frozenset({"Bound", "Succeeded", "Failed"})
"""Outcomes of a pod the scheduler placed: bound, or bound and since finished."""


@dataclass(frozen=True)
class PodResult:
    namespace: str
    name: str
    scheduler_name: str
    node: str | None
    status: PodOutcome
    message: str = ""
    attempts: int = 0
    nominated_node: str | None = None
    preempted_by: str | None = None
    """The preemptor's `namespace/name`, for a pod evicted by preemption."""
    preempted_at: float | None = None
    """Virtual seconds at which it was evicted."""
    error: AttemptError | None = None
    """Where the Error status of an `Error` pod's last attempt came from."""
    times: PodTimes | None = None
    """When it was created, bound and finished (None: not watched, so all null)."""

    @property
    def latency(self) -> float | None:
        """Seconds from creation to binding by the scheduler (None: not bound by it)."""
        return self.times.latency if self.times is not None else None

    def to_json_dict(self) -> dict[str, Any]:
        error = self.error
        return {
            "namespace": self.namespace,
            "name": self.name,
            "schedulerName": self.scheduler_name,
            "node": self.node,
            "status": self.status,
            "message": self.message,
            "attempts": self.attempts,
            "nominatedNode": self.nominated_node,
            "preemptedBy": self.preempted_by,
            "preemptedAt": None if self.preempted_at is None else round(self.preempted_at, 3),
            "error": None
            if error is None
            else {
                "plugin": error.plugin,
                "exception": error.exception,
                "location": error.location,
                "traceback": error.traceback,
            },
            **_times_json(self.times),
        }


def _times_json(times: PodTimes | None) -> dict[str, float | None]:
    def seconds(value: float | None) -> float | None:
        return None if value is None else round(value, 3)

    if times is None:
        return dict.fromkeys(("createdAt", "boundAt", "finishedAt", "latencySeconds"))
    return {
        "createdAt": seconds(times.created),
        "boundAt": seconds(times.bound),
        "finishedAt": seconds(times.finished),
        "latencySeconds": seconds(times.latency),
    }


@dataclass(frozen=True)
class NodeAllocation:
    name: str
    allocatable: dict[str, int]
    requested: dict[str, int]
    pods: int

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "allocatable": self.allocatable,
            "requested": self.requested,
            "pods": self.pods,
        }


@dataclass
class SimulationResult:
    pods: list[PodResult]
    nodes: list[NodeAllocation]
    virtual_seconds: float
    seed: int
    attempts: int
    skipped: list[dict[str, Any]] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)
    explanations: dict[str, Explanation] = field(default_factory=dict)
    """Pod key → the explanation of its last attempt (only pods asked for)."""
    sections: list[ReportSection] = field(default_factory=list)
    """What hook modules reported beside the pods (`kubesched_report_sections`), by key."""
    objects: int = 0
    """How many objects the manifests held that were loaded (skipped ones not counted)."""
    files: list[str] = field(default_factory=list)
    """The manifest files read."""
    checkpoints: list[Checkpoint] | None = None
    """The state at each checkpoint of the scenario, in step order (None: no scenario)."""
    timeline: list[TimelinePoint] = field(default_factory=list)
    """The pod and node counts at each virtual instant they changed."""
    latencies: list[float] = field(default_factory=list)
    """The scheduling latency of every pod the run's scheduler bound, deleted ones
    included, in seconds (sorted)."""

    @property
    def latency(self) -> dict[str, Any]:
        """`{"pods", "p50", "p90", "p99", "max"}` of `latencies` (see latency_summary)."""
        return latency_summary(self.latencies)

    def count(self, status: PodOutcome) -> int:
        return sum(1 for p in self.pods if p.status == status)

    @property
    def summary(self) -> dict[str, Any]:
        return {
            "pods": len(self.pods),
            "bound": self.count("Bound"),
            "unschedulable": self.count("Unschedulable"),
            "error": self.count("Error"),
            "waiting": self.count("Waiting"),
            "pending": self.count("Pending"),
            "preempted": self.count("Preempted"),
            "terminating": self.count("Terminating"),
            **self._finished(),
            "nodes": len(self.nodes),
            "virtualSeconds": round(self.virtual_seconds, 3),
            "seed": self.seed,
            "attempts": self.attempts,
        }

    def _finished(self) -> dict[str, int]:
        """`succeeded` and `failed`, only when some pod finished (the pod lifecycle), so a
        run without finishing pods reports exactly as before."""
        counts = {"succeeded": self.count("Succeeded"), "failed": self.count("Failed")}
        return counts if any(counts.values()) else {}

    def pod(self, name: str, namespace: str = "default") -> PodResult:
        """The result of one pod (KeyError when there is none)."""
        for p in self.pods:
            if p.name == name and p.namespace == namespace:
                return p
        raise KeyError(f"{namespace}/{name}")

    def section(self, key: str) -> ReportSection:
        """The report section with this key (KeyError when no hook module gave one)."""
        for section in self.sections:
            if section.key == key:
                return section
        raise KeyError(key)

    def reasons(self) -> list[dict[str, Any]]:
        """Pods not bound (nor finished after running), counted by status and message, most
        frequent first (then by status and message): `[{"status", "message", "count"}]`."""
        counts: dict[tuple[PodOutcome, str], int] = {}
        for p in self.pods:
            if p.status not in PLACED:
                counts[p.status, p.message] = counts.get((p.status, p.message), 0) + 1

        def order(item: tuple[tuple[PodOutcome, str], int]) -> tuple[int, int, str]:
            (status, message), n = item
            return -n, POD_OUTCOMES.index(status), message

        return [
            {"status": s, "message": m, "count": n}
            for (s, m), n in sorted(counts.items(), key=order)
        ]

    def to_json_dict(
        self, *, only: Collection[str] = (), summary_only: bool = False
    ) -> dict[str, Any]:
        """The JSON report. `only` keeps the pods of these statuses (the summary still
        counts every pod); `summary_only` gives `{"summary", "reasons", "skipped"}`, the
        summary with `reasons()`, for runs too big to list (and the checkpoints' counts,
        with a scenario)."""
        if summary_only:
            brief: dict[str, Any] = {
                "summary": self.summary,
                "reasons": self.reasons(),
                "skipped": self.skipped,
            }
            if self.checkpoints is not None:
                brief["checkpoints"] = [c.to_json_dict(placements=False) for c in self.checkpoints]
            return brief
        pods = [p for p in self.pods if not only or p.status in only]
        data: dict[str, Any] = {
            "pods": [p.to_json_dict() for p in pods],
            "nodes": [n.to_json_dict() for n in self.nodes],
            "summary": self.summary,
            "skipped": self.skipped,
        }
        if self.explanations:
            data["explanations"] = {k: e.to_json_dict() for k, e in self.explanations.items()}
        if self.sections:
            data["sections"] = {s.key: s.payload for s in self.sections}
        if self.checkpoints is not None:
            data["checkpoints"] = [c.to_json_dict() for c in self.checkpoints]
        data["timeline"] = {
            "points": [p.to_json_dict() for p in self.timeline],
            "latency": self.latency,
        }
        return data


def group_skipped(skipped: Sequence[SkippedObject]) -> list[dict[str, Any]]:
    """The JSON `skipped` list: one entry per apiVersion and kind, in the order each was
    first met, with how many objects and the first one's file and document."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for s in skipped:
        group = groups.get((s.api_version, s.kind))
        if group is None:
            groups[s.api_version, s.kind] = {
                "apiVersion": s.api_version,
                "kind": s.kind,
                "count": 1,
                "file": s.file,
                "document": s.document,
                "reason": s.reason,
            }
        else:
            group["count"] += 1
    return list(groups.values())
