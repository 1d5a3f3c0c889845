"""scheduler_perf-style benchmarks for kubesched (not a distribution: `benchmarks/run.py`
puts this folder's parent on sys.path).

Layers: templates, spec → workloads (the objects; gangs, volumes) → observers, checks,
stats → runner (cluster, scheduler, measurement) → result → report.
"""

from kubesched_bench.errors import BenchmarkError, MissingPackageError
from kubesched_bench.report import format_row, record, render_table, row_notes, to_json
from kubesched_bench.result import BenchmarkResult
from kubesched_bench.runner import run_workload
from kubesched_bench.stats import (
    LatencySummary,
    QuorumSummary,
    ThroughputSummary,
    percentile,
    throughput_samples,
)
from kubesched_bench.workloads import (
    WORKLOADS,
    Gang,
    Requirement,
    Size,
    Workload,
    WorkloadSpec,
    get_workload,
)

__all__ = [
    "WORKLOADS",
    "BenchmarkError",
    "BenchmarkResult",
    "Gang",
    "LatencySummary",
    "MissingPackageError",
    "QuorumSummary",
    "Requirement",
    "Size",
    "ThroughputSummary",
    "Workload",
    "WorkloadSpec",
    "format_row",
    "get_workload",
    "percentile",
    "record",
    "render_table",
    "row_notes",
    "run_workload",
    "throughput_samples",
    "to_json",
]
