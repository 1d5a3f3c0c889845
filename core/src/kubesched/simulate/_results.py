"""What a simulation produced: one record per pod and node, and a summary.

The JSON form (`SimulationResult.to_json_dict`) is a stable interface for programs:

    {"pods": [{"namespace", "name", "schedulerName", "node", "status", "message",
               "attempts", "nominatedNode", "preemptedBy", "preemptedAt"}],
     "nodes": [{"name", "allocatable": {...}, "requested": {...}, "pods"}],
     "summary": {"pods", "bound", "unschedulable", "waiting", "pending", "preempted",
                 "terminating", "nodes", "virtualSeconds", "seed", "attempts"},
     "skipped": [{"file", "document", "apiVersion", "kind", "reason"}],
     "explanations": {"ns/pod": {...}},   (only with --explain)
     "sections": {"<key>": <payload>}}     (only when a hook module contributes one)

`status` is one of Bound, Unschedulable, Waiting, Pending; `node` is null when unplaced;
`message` carries the reason a pod is not bound (empty when bound); a pod held by scheduling
gates is Pending with the API server's condition message, `Scheduling is blocked due to
non-empty scheduling gates`. CPU is in millicores, other resources in base units.

`sections` holds what installed hook modules report beside the pods (the
`kubesched_report_sections` hook, `ReportSection`), each payload under its section's key,
keys sorted. kubesched-coscheduling adds `podGroups` (a list with one object per
PodGroup; its package README documents the fields).

Two more statuses come from preemption. A pod it evicted is listed after it has left the
cluster: `Preempted`, with `node` null, `preemptedBy` the preemptor's `namespace/name`,
`preemptedAt` the virtual seconds of its eviction, and the message `preempted by <ns/name>
on node <node> at <t>s`. A pod still being deleted when the run ends (its grace period, 30 s
by default, still running, say with `--until`) is `Terminating` on its node, its message
followed by `; terminating until <t>s` (or `being deleted; terminating until <t>s` when no
preemption is known). `preemptedBy` and `preemptedAt` are null for every other pod.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from kubesched.scheduler import Explanation
from kubesched.simulate._sections import ReportSection

__all__ = ["NodeAllocation", "PodOutcome", "PodResult", "SimulationResult"]

PodOutcome = Literal["Bound", "Unschedulable", "Waiting", "Pending", "Preempted", "Terminating"]


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

    def to_json_dict(self) -> dict[str, Any]:
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

    def count(self, status: PodOutcome) -> int:
        return sum(1 for p in self.pods if p.status == status)

    @property
    def summary(self) -> dict[str, Any]:
        return {
            "pods": len(self.pods),
            "bound": self.count("Bound"),
            "unschedulable": self.count("Unschedulable"),
            "waiting": self.count("Waiting"),
            "pending": self.count("Pending"),
            "preempted": self.count("Preempted"),
            "terminating": self.count("Terminating"),
            "nodes": len(self.nodes),
            "virtualSeconds": round(self.virtual_seconds, 3),
            "seed": self.seed,
            "attempts": self.attempts,
        }

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

    def to_json_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "pods": [p.to_json_dict() for p in self.pods],
            "nodes": [n.to_json_dict() for n in self.nodes],
            "summary": self.summary,
            "skipped": self.skipped,
        }
        if self.explanations:
            data["explanations"] = {k: e.to_json_dict() for k, e in self.explanations.items()}
        if self.sections:
            data["sections"] = {s.key: s.payload for s in self.sections}
        return data
