"""scheduler_perf-style benchmarks for kubesched (not a distribution: `benchmarks/run.py`
puts this folder's parent on sys.path).

Layers: workloads (the objects) → runner (cluster, scheduler, measurement) → report.
"""

from kubesched_bench.report import format_row, record, render_table, row_notes, to_json
from kubesched_bench.runner import (
    BenchmarkError,
    BenchmarkResult,
    LatencySummary,
    ThroughputSummary,
    percentile,
    run_workload,
    throughput_samples,
)
from kubesched_bench.workloads import WORKLOADS, Size, Workload, WorkloadSpec, get_workload

__all__ = [
    "WORKLOADS",
    "BenchmarkError",
    "BenchmarkResult",
    "LatencySummary",
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
