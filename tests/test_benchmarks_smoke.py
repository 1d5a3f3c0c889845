"""Smoke tests for benchmarks/: the runner on a tiny instance of each workload, the sampling
rules, and the RESULTS.md writer. No assertion depends on how fast the machine is."""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from kubesched_bench import (
    BenchmarkError,
    Size,
    Workload,
    get_workload,
    percentile,
    record,
    row_notes,
    run_workload,
    throughput_samples,
)
from kubesched_bench.sweep import growth_rows, node_counts
from kubesched_bench.templates import (
    INIT_NAMESPACE,
    MEASURED_NAMESPACE,
    ZONE_LABEL,
)

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


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
    assert "| 2 cores |" in first


def test_record_adds_rows_to_the_simulate_table_not_the_sections_after_it(
    tmp_path: Path,
) -> None:
    result = run_workload(get_workload("SchedulingBasic").build(Size(5, 0, 5)))
    path = tmp_path / "RESULTS.md"
    record(result, path, datetime.date(2025, 1, 2))
    run_table = "\n## run mode\n\n| date | size |\n|---|---|\n| 2025-01-01 | 5 |\n"
    path.write_text(path.read_text(encoding="utf-8") + run_table, encoding="utf-8")
    row = record(result, path, datetime.date(2025, 1, 3))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines.index(row) < lines.index("## run mode")
    assert lines[lines.index(row) - 1].startswith("| 2025-01-02 | SchedulingBasic")
    assert lines[-1] == "| 2025-01-01 | 5 |"


# -- the other upstream workloads, tiny ---------------------------------------------------


def _zone_of(workload: Workload) -> dict[str, str]:
    return {n.metadata.name: n.metadata.labels.get(ZONE_LABEL, "") for n in workload.nodes}


def _measured(placements: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in placements.items() if k.startswith(MEASURED_NAMESPACE + "/")}


def test_pod_anti_affinity_puts_each_green_pod_on_its_own_node() -> None:
    # upstream's 5Nodes case is 5 / 1 / 4: every node ends with exactly one pod
    workload = get_workload("SchedulingPodAntiAffinity").build(Size(5, 1, 4))
    result = run_workload(workload)
    assert (result.bound, result.pods) == (4, 4)
    nodes = list(result.placements.values())
    assert len(nodes) == 5 and "" not in nodes
    assert sorted(nodes) == sorted(n.metadata.name for n in workload.nodes)


def test_pod_anti_affinity_leaves_a_pod_without_a_free_host_unbound() -> None:
    workload = get_workload("SchedulingPodAntiAffinity").build(Size(3, 1, 3))
    with pytest.raises(BenchmarkError, match="only 2 of 3 measured pods"):
        run_workload(workload)


def test_pod_affinity_binds_every_pod_in_the_one_zone() -> None:
    workload = get_workload("SchedulingPodAffinity").build(Size(5, 5, 10))
    assert set(_zone_of(workload).values()) == {"zone1"}
    result = run_workload(workload)
    assert (result.bound, result.pods) == (10, 10)
    assert result.attempts == {"scheduled": 10, "unschedulable": 0, "error": 0}


def test_topology_spreading_keeps_the_zone_skew_within_max_skew() -> None:
    workload = get_workload("TopologySpreading").build(Size(6, 10, 30))
    zone_of = _zone_of(workload)
    assert sorted(zone_of.values()) == ["moon-1", "moon-1", "moon-2", "moon-2", "moon-3", "moon-3"]
    result = run_workload(workload)
    assert (result.bound, result.pods) == (30, 30)
    per_zone = Counter(zone_of[n] for n in _measured(result.placements).values())
    assert set(per_zone) <= {"moon-1", "moon-2", "moon-3"}
    counts = [per_zone.get(z, 0) for z in ("moon-1", "moon-2", "moon-3")]
    assert max(counts) - min(counts) <= 5  # maxSkew of pod-with-topology-spreading.yaml


def test_preemption_basic_counts_measured_binds_and_victims() -> None:
    # upstream's 5Nodes case: 4 low-priority pods (900m) fill each node to 3.6 cpu; each
    # high-priority pod (3 cpu) needs 3 of them preempted on a node of its own
    workload = get_workload("PreemptionBasic").build(Size(5, 20, 5))
    result = run_workload(workload)
    assert (result.bound, result.pods) == (5, 5)
    assert result.victims == 15
    # the first attempt of each fails and nominates; the second binds
    assert result.attempts == {"scheduled": 5, "unschedulable": 5, "error": 0}
    measured = _measured(result.placements)
    assert len(set(measured.values())) == 5
    left = [k for k in result.placements if k.startswith(INIT_NAMESPACE + "/")]
    assert len(left) == 20 - 15
    assert result.throughput.average > 0
    assert len(result.throughput.samples) >= 1


def test_record_notes_load_and_victims(tmp_path: Path) -> None:
    result = run_workload(get_workload("PreemptionBasic").build(Size(1, 4, 1)))
    result.load_average = 2.0
    row = record(result, tmp_path / "RESULTS.md", datetime.date(2025, 1, 2), note="a | b")
    # the notes cell (the cost columns follow it)
    assert "| load 2.00 (loaded); 3 preemption victims; a / b |" in row
    result.load_average = 0.5
    assert row_notes(result).startswith("load 0.50; ")


def test_json_has_cost_memory_and_load_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code = _run_py().main(["--nodes", "10", "--init-pods", "5", "--pods", "20", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cycle_ms_per_pod"] > 0
    # one attempt per pod here: the cycle cost per pod is the mean attempt latency
    assert out["cycle_ms_per_pod"] == pytest.approx(out["attempt_latency"]["average"])
    assert out["cpu_ms_per_pod"] > 0
    assert out["peak_rss_mib"] > 1
    for key in ("load_average", "load_average_end"):
        assert out[key] is None or out[key] >= 0


def test_record_row_has_the_cost_columns(tmp_path: Path) -> None:
    result = run_workload(get_workload("SchedulingBasic").build(Size(5, 2, 10)))
    path = tmp_path / "RESULTS.md"
    row = record(result, path)
    header = path.read_text(encoding="utf-8").splitlines()[-3]
    names = [c.strip() for c in header.strip("|").split("|")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert len(cells) == len(names)
    by_name = dict(zip(names, cells, strict=True))
    assert float(by_name["cycle ms/pod"]) == pytest.approx(result.cycle_ms_per_pod, abs=1e-3)
    assert float(by_name["CPU ms/pod"]) > 0
    assert float(by_name["peak RSS MiB"]) > 1
    assert by_name["load at end"] == "-" or float(by_name["load at end"]) >= 0


def test_sweep_runs_each_node_count(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--sweep", "5,10", "--init-pods", "2", "--pods", "10", "--json"]
    assert _run_py().main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["nodes"] for r in out] == [5, 10]
    assert all(r["bound"] == 10 and r["cycle_ms_per_pod"] > 0 for r in out)
    assert _run_py().main(["--sweep", "5,10", "--nodes", "5"]) == 2


@pytest.mark.parametrize("text", ["10,5", "0,5", "5,5", "a", ""])
def test_sweep_wants_increasing_positive_counts(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        node_counts(text)


def test_sweep_growth_is_relative_to_the_first_size_and_per_1000_nodes() -> None:
    def run(nodes: int, cycle: float) -> dict[str, object]:
        return {
            "nodes": nodes,
            "throughput": {"average": 100.0},
            "cycle_ms_per_pod": cycle,
            "cpu_ms_per_pod": cycle,
            "attempt_latency": {"p50": 1.0, "p99": 2.0},
            "peak_rss_mib": 100.0,
            "load_average": None,
        }

    rows = growth_rows([run(500, 1.0), run(1500, 1.5), run(5500, 3.5)])
    assert [r[0] for r in rows] == ["500", "1500", "5500"]
    assert [r[-2] for r in rows] == ["1.00x", "1.50x", "3.50x"]
    # +0.5 ms over 1000 nodes, then +2 ms over 4000 nodes: 500 µs per 1000 nodes both times
    assert [r[-1] for r in rows] == ["-", "500.0", "500.0"]
