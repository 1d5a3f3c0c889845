"""What one run measured: `BenchmarkResult`, and its `--json` form (`as_dict`)."""

from __future__ import annotations

import platform
from dataclasses import dataclass, field
from typing import Any

from kubesched_bench.stats import LatencySummary, QuorumSummary, ThroughputSummary

__all__ = ["BenchmarkResult"]


@dataclass
class BenchmarkResult:
    """Everything one run measured; `as_dict()` is the `--json` output."""

    workload: str
    nodes: int
    init_pods: int
    pods: int
    seed: int
    bound: int
    wall_seconds: float
    create_seconds: float
    init_seconds: float
    throughput: ThroughputSummary
    latency: LatencySummary
    attempts: dict[str, int]
    plugins: dict[str, list[str]]
    left_out: list[str]
    placement: str
    """sha256 of every pod's `namespace/name=node`, sorted: equal seeds give equal digests."""
    victims: int = 0
    """Pods deleted by preemption during the measured phase."""
    load_average: float | None = None
    """The machine's 1-minute load average when the run started (None where unknown)."""
    load_average_end: float | None = None
    """The 1-minute load average when the measured phase ended."""
    cpu_ms_per_pod: float = 0.0
    """This process's CPU time over the measured phase per measured pod: steadier than
    wall-clock figures on a shared machine."""
    peak_rss_mib: float = 0.0
    """Peak resident set size of the process so far (getrusage ru_maxrss), in MiB."""
    python: str = field(default_factory=platform.python_version)
    profile: str = "default"
    """The scheduler profile, in a few words (`default`, `default + Coscheduling`)."""
    gang_size: int = 0
    """Pods per gang (gang workloads only)."""
    time_to_quorum: QuorumSummary | None = None
    """Gang workloads: every gang's time to quorum (all gangs bound whole, or the run
    failed)."""
    claims: int = 0
    """Claims the workload checks (volume workloads only)."""
    claims_bound: int = 0
    """Of those, claims bound at the end (all of them, or the run failed)."""
    placements: dict[str, str] = field(default_factory=dict, repr=False)
    """Every pod left at the end (`namespace/name`) and its node ("" if unbound); not in
    the JSON, where `placement` stands for it."""

    @property
    def cycle_ms_per_pod(self) -> float:
        """Wall-clock ms of the measured phase's scheduling cycles (every attempt, PreFilter
        to Permit) per measured pod: the scheduler's own cost, without binding and pod
        creation."""
        return self.latency.average_ms * self.latency.count / self.pods if self.pods else 0.0

    def as_dict(self) -> dict[str, Any]:
        t, lat, q = self.throughput, self.latency, self.time_to_quorum
        return {
            "workload": self.workload,
            "nodes": self.nodes,
            "init_pods": self.init_pods,
            "pods": self.pods,
            "seed": self.seed,
            "bound": self.bound,
            "wall_seconds": self.wall_seconds,
            "create_seconds": self.create_seconds,
            "init_seconds": self.init_seconds,
            "throughput": {
                "unit": "pods/s",
                "average": t.average,
                "perc50": t.perc50,
                "perc90": t.perc90,
                "perc99": t.perc99,
                "samples": t.samples,
            },
            "attempt_latency": {
                "unit": "ms",
                "count": lat.count,
                "average": lat.average_ms,
                "p50": lat.p50_ms,
                "p90": lat.p90_ms,
                "p99": lat.p99_ms,
                "max": lat.max_ms,
            },
            "time_to_quorum": None
            if q is None
            else {
                "unit": "ms",
                "definition": (
                    "wall clock from creating the gang's first member to binding its "
                    "minMember-th member"
                ),
                "gangs": q.gangs,
                "gang_size": self.gang_size,
                "p50": q.p50_ms,
                "p90": q.p90_ms,
                "p99": q.p99_ms,
                "max": q.max_ms,
                "per_gang": dict(q.per_gang_ms),
            },
            "claims": None
            if not self.claims
            else {"total": self.claims, "bound": self.claims_bound},
            "attempts": dict(self.attempts),
            "profile": self.profile,
            "plugins": {k: list(v) for k, v in self.plugins.items()},
            "left_out": list(self.left_out),
            "victims": self.victims,
            "placement": self.placement,
            "cycle_ms_per_pod": self.cycle_ms_per_pod,
            "cpu_ms_per_pod": self.cpu_ms_per_pod,
            "peak_rss_mib": self.peak_rss_mib,
            "load_average": self.load_average,
            "load_average_end": self.load_average_end,
            "python": self.python,
        }
