"""One run of a sweep as a task a worker process (or a Dask worker elsewhere) carries out:
what it needs is in the task (paths, or the files' contents when the worker may not see
this machine's files), and what it returns is plain data, so the same task gives the same
result in any process on any machine with the same packages."""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubesched._errors import KubeschedError
from kubesched.compare import placements, run_metrics
from kubesched.report import ClusterWatch
from kubesched.simulate import simulate
from kubesched.simulate._fields import FieldValidation
from kubesched.sweep._spec import Run

__all__ = ["Bundle", "Task", "TaskResult", "bundle", "run_task"]

_ONE_AT_A_TIME = threading.Lock()
"""A worker with several threads (a Dask worker's --nthreads) runs one simulation at a
time: runs are CPU-bound Python, so threads add nothing but would share a process."""


@dataclass(frozen=True)
class Bundle:
    """Input files by the path this machine knows them by, with their contents: a worker
    on another machine writes them into a folder of its own and reads them there."""

    files: dict[str, bytes]
    """Path → contents, for every file under the inputs (folders walked)."""
    folders: tuple[str, ...] = ()
    """The inputs that are folders, as given."""


@dataclass(frozen=True)
class Task:
    """A run (`Run`) and what every run shares."""

    run: Run
    until: float | None
    scenario: str | None
    validate: FieldValidation


@dataclass(frozen=True)
class TaskResult:
    """A run's metrics (`RunMetrics` without its labels), where each pod ended, and the
    warnings it printed (`--validate warn`)."""

    index: int
    metrics: dict[str, Any]
    placements: dict[str, str]
    warnings: list[str] = field(default_factory=list)


def bundle(paths: list[str]) -> Bundle:
    """The files under `paths` (files, folders walked) with their contents."""
    files: dict[str, bytes] = {}
    folders = []
    for path in paths:
        root = Path(path)
        if root.is_dir():
            folders.append(path)
        found = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for file in found:
            files[os.fspath(file)] = file.read_bytes()
    return Bundle(files, tuple(folders))


def run_task(task: Task, files: Bundle | None = None) -> TaskResult:
    """Simulate one run: on this machine's files, or, given their contents (`files`), in
    a temporary copy of them (errors and warnings then name the original paths)."""
    with _ONE_AT_A_TIME:
        if files is None:
            return _simulate(task, lambda p: p)
        with tempfile.TemporaryDirectory(prefix="kubesched-sweep-") as folder:
            local = _materialize(files, folder)
            back = {v: k for k, v in local.items()}
            try:
                result = _simulate(task, lambda p: local.get(p, p))
            except KubeschedError as error:
                for key, value in vars(error).items():
                    if isinstance(value, str):
                        setattr(error, key, _original(value, back))
                raise
            warnings = [_original(w, back) for w in result.warnings]
            return TaskResult(result.index, result.metrics, result.placements, warnings)


def _simulate(task: Task, where: Callable[[str], str]) -> TaskResult:
    run = task.run
    warnings: list[str] = []
    watch = ClusterWatch()
    config = run.variant.config
    result = simulate(
        [where(p) for p in run.cluster.paths],
        config=None if config is None else where(config),
        seed=run.seed,
        until=task.until,
        scenario=None if task.scenario is None else where(task.scenario),
        validate=task.validate,
        warn=warnings.append,
        observers=[watch],
    )
    return TaskResult(run.index, run_metrics(result, watch.cluster), placements(result), warnings)


def _materialize(files: Bundle, folder: str) -> dict[str, str]:
    """Write the bundle under `folder`, each path at its own place below it (so a folder's
    files keep their layout and their order); original path → the copy's path, for its
    files and its folders."""
    root = Path(folder)
    local = {f: os.fspath(root / _relative(f)) for f in files.folders}
    for original, contents in files.files.items():
        copy = root / _relative(original)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(contents)
        local[original] = os.fspath(copy)
    return local


def _relative(path: str) -> Path:
    """`path` as a relative path that stays below the folder it is joined to."""
    parts = Path(path).parts
    if Path(path).anchor:
        parts = parts[1:]
    return Path(*("__up__" if p == ".." else p for p in parts))


def _original(text: str, back: dict[str, str]) -> str:
    """`text` (an error's field, a warning) naming the user's files, not their copies."""
    for copy in sorted(back, key=len, reverse=True):
        text = text.replace(copy, back[copy])
    return text
