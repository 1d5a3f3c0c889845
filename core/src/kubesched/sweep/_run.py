"""Running every run of a sweep: here one after the other, in worker processes on this
machine's cores (the default), or on a Dask cluster; the results always in the sweep's
order, so the document is the same whichever ran it and in whatever order runs finished."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from kubesched.report import REPORT_VERSION
from kubesched.simulate._fields import FieldValidation
from kubesched.sweep._spec import SweepSpec
from kubesched.sweep._task import Task, TaskResult, bundle, run_task

__all__ = ["Progress", "sweep"]

Progress = Callable[[TaskResult], None]
"""Called once per run as it finishes (in any order): a progress bar's step."""


def sweep(
    spec: SweepSpec,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    validate: FieldValidation = "strict",
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run every run of `spec` and collect the sweep document (`SweepReport`).

    `jobs` worker processes on this machine (None: one per core this process may use; 1:
    in this process), or, with `scheduler` (a Dask scheduler's address,
    `tcp://host:8786`), on that cluster's workers, which get the input files' contents
    rather than their paths. The first error of any run (a KubeschedError naming the
    file) is raised here."""
    tasks = [Task(run, spec.until, spec.scenario, validate) for run in spec.runs()]
    if scheduler is not None:
        from kubesched.sweep._dask import run_on_dask  # the optional `dask` extra

        done = run_on_dask(tasks, bundle(sorted(_inputs(spec))), scheduler)
    elif jobs == 1 or len(tasks) == 1:
        done = (run_task(t) for t in tasks)
    else:
        done = _run_in_processes(tasks, jobs or _cores())
    results: dict[int, TaskResult] = {}
    for result in done:
        results[result.index] = result
        if progress is not None:
            progress(result)
    return _document(spec, [results[t.run.index] for t in tasks])


def _cores() -> int:
    """The cores this process may run on (its CPU affinity: a taskset's or cpuset's
    share), not every core of the machine."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _inputs(spec: SweepSpec) -> set[str]:
    """Every path a run reads: the clusters, the configuration files, the scenario."""
    paths = {p for c in spec.clusters for p in c.paths}
    paths |= {c for c in spec.configs if os.path.isfile(c)}
    if spec.scenario is not None:
        paths.add(spec.scenario)
    return paths


def _run_in_processes(tasks: list[Task], workers: int) -> Iterator[TaskResult]:
    # spawn, not fork: the parent has threads (the progress bar's), which fork copies badly
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(tasks)), mp_context=context) as pool:
        futures = [pool.submit(run_task, t) for t in tasks]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            for future in futures:
                future.cancel()


def _document(spec: SweepSpec, results: list[TaskResult]) -> dict[str, Any]:
    """The sweep document: a run per result, with how many pods it placed elsewhere than
    the first configuration did on the same cluster and seed."""
    runs = spec.runs()
    baseline: dict[tuple[str, int], dict[str, str]] = {}
    documents = []
    for run, result in zip(runs, results, strict=True):
        key = (run.cluster.label, run.seed)
        base = baseline.setdefault(key, result.placements)
        moved = sum(
            1
            for pod in base.keys() | result.placements.keys()
            if base.get(pod) != result.placements.get(pod)
        )
        documents.append(
            {
                "cluster": run.cluster.label,
                "config": run.variant.label,
                "seed": run.seed,
                "placedDifferently": moved,
                **result.metrics,
            }
        )
    labels = {r.variant.label: None for r in runs}
    return {
        "version": REPORT_VERSION,
        "clusters": [{"name": c.label, "paths": list(c.paths)} for c in spec.clusters],
        "configs": list(labels),
        "seeds": list(spec.seeds),
        "until": spec.until,
        "scenario": spec.scenario,
        "runs": documents,
        "warnings": sorted({w for r in results for w in r.warnings}),
    }
