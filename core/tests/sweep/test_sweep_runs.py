"""A sweep in worker processes gives what the same runs give one by one, in the sweep's
order (clusters, then configurations, then seeds), whatever order they finished in."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.sweep import SweepReport, SweepSpec, TaskResult, sweep

Expected = dict[tuple[str, str, int], tuple[dict[str, Any], dict[str, str | None]]]


@pytest.fixture(scope="module")
def in_processes(spec: SweepSpec) -> tuple[dict[str, Any], list[int]]:
    finished: list[int] = []

    def progress(result: TaskResult) -> None:
        finished.append(result.index)

    return sweep(spec, jobs=2, progress=progress), finished


def test_a_2x2x2_sweep_in_processes_equals_the_runs_one_by_one(
    in_processes: tuple[dict[str, Any], list[int]], one_by_one: Expected
) -> None:
    document, _ = in_processes
    SweepReport.model_validate(document)
    keys = [(r["cluster"], r["config"], r["seed"]) for r in document["runs"]]
    assert keys == [
        (cluster, config, seed)
        for cluster in ("manifests", "basic")
        for config in ("least-allocated.config.yaml", "most-allocated.config.yaml")
        for seed in (0, 7)
    ]
    for run in document["runs"]:
        metrics, _ = one_by_one[(run["cluster"], run["config"], run["seed"])]
        labels = {"cluster", "config", "seed", "placedDifferently"}
        assert {k: v for k, v in run.items() if k not in labels} == metrics


def test_pods_placed_differently_count_against_the_first_config_per_cluster_and_seed(
    in_processes: tuple[dict[str, Any], list[int]], one_by_one: Expected
) -> None:
    document, _ = in_processes
    for run in document["runs"]:
        _, placed = one_by_one[(run["cluster"], run["config"], run["seed"])]
        _, base = one_by_one[(run["cluster"], "least-allocated.config.yaml", run["seed"])]
        moved = sum(1 for pod in base if base[pod] != placed[pod])
        assert run["placedDifferently"] == moved
    # bin-packing's example: MostAllocated moves pods LeastAllocated spread (its README)
    most = [r for r in document["runs"] if r["cluster"] == "manifests" and r["config"][0] == "m"]
    assert all(r["placedDifferently"] > 0 for r in most)


def test_the_progress_hears_of_every_run_once_and_the_document_does_not_depend_on_jobs(
    spec: SweepSpec, in_processes: tuple[dict[str, Any], list[int]]
) -> None:
    document, finished = in_processes
    assert sorted(finished) == list(range(8))
    assert sweep(spec, jobs=1) == document
