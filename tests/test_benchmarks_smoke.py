"""Smoke tests for benchmarks/: the runner on a tiny SchedulingBasic, the sampling rules, and
the RESULTS.md writer. No assertion depends on how fast the machine is."""

from __future__ import annotations

import datetime
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from kubesched_bench import (  # noqa: E402
    BenchmarkError,
    Size,
    get_workload,
    percentile,
    record,
    run_workload,
    throughput_samples,
)


def _run_py() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run", BENCHMARKS / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_json_binds_every_measured_pod(capsys: pytest.CaptureFixture[str]) -> None:
    code = _run_py().main(["--nodes", "20", "--init-pods", "30", "--pods", "30", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert {
        "workload",
        "nodes",
        "init_pods",
        "pods",
        "bound",
        "wall_seconds",
        "throughput",
        "attempt_latency",
        "attempts",
        "placement",
    } <= set(out)
    assert (out["workload"], out["nodes"], out["init_pods"], out["pods"]) == (
        "SchedulingBasic",
        20,
        30,
        30,
    )
    assert out["bound"] == 30
    assert out["attempts"] == {"scheduled": 30, "unschedulable": 0, "error": 0}
    assert set(out["throughput"]) >= {"average", "perc50", "perc90", "perc99", "samples"}
    assert out["throughput"]["average"] > 0
    # only the measured phase's cycles are counted
    assert out["attempt_latency"]["count"] == 30
    assert set(out["attempt_latency"]) >= {"p50", "p90", "p99"}


def test_same_seed_same_placement() -> None:
    spec = get_workload("SchedulingBasic")
    size = Size(10, 20, 20)
    a = run_workload(spec.build(size, 3), seed=3)
    b = run_workload(spec.build(size, 3), seed=3)
    assert a.placement == b.placement
    assert a.bound == b.bound == 20


def test_pods_that_cannot_fit_end_the_run_with_an_error() -> None:
    # one default node holds 40 default pods (cpu 4 / 100m)
    workload = get_workload("SchedulingBasic").build(Size(1, 0, 45))
    with pytest.raises(BenchmarkError, match="only 40 of 45 measured pods"):
        run_workload(workload)


def test_default_templates_match_upstream() -> None:
    w = get_workload("SchedulingBasic").build(Size(2, 1, 3))
    assert [len(w.nodes), len(w.init_pods), len(w.pods)] == [2, 1, 3]
    node = w.nodes[0]
    assert {k: str(v) for k, v in node.allocatable.items()} == {
        "cpu": "4",
        "memory": str(32 * 2**30),
        "pods": "110",
    }
    (container,) = w.pods[0].spec.containers
    assert {k: str(v) for k, v in container.resources.requests.items()} == {
        "cpu": "1/10",
        "memory": str(500 * 2**20),
    }
    assert len({p.metadata.name for p in [*w.init_pods, *w.pods]}) == 4


@pytest.mark.parametrize(
    ("stamps", "end", "expected"),
    [
        # three whole seconds; the partial fourth is dropped
        ([0.1, 0.2, 1.5, 2.1, 2.2, 2.3, 3.1], 3.5, [2.0, 1.0, 3.0]),
        # an empty second is merged into the next one that bound something (upstream)
        ([0.5, 2.5, 2.6], 3.0, [1.0, 1.0, 1.0]),
        # shorter than one interval: the whole run is one sample
        ([0.1, 0.2], 0.5, [4.0]),
        ([], 0.5, []),
    ],
)
def test_throughput_samples(stamps: list[float], end: float, expected: list[float]) -> None:
    assert throughput_samples(stamps, 0.0, end) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("p", "expected"),
    [(50, 5.0), (90, 9.0), (99, 10.0), (100, 10.0), (1, 1.0)],
)
def test_percentile_is_nearest_rank(p: float, expected: float) -> None:
    assert percentile([float(i) for i in range(1, 11)], p) == expected


def test_record_writes_header_once_then_rows(tmp_path: Path) -> None:
    result = run_workload(get_workload("SchedulingBasic").build(Size(5, 0, 5)))
    path = tmp_path / "RESULTS.md"
    day = datetime.date(2025, 1, 2)
    first = record(result, path, day)
    record(result, path, day)
    text = path.read_text()
    assert text.count("# Benchmark results") == 1
    assert text.count(first) == 2
    assert first.startswith("| 2025-01-02 | SchedulingBasic | 5 / 0 / 5 |")
    assert first.endswith("| 2 cores |")
