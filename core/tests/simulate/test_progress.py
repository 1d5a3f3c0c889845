"""Progress of a run: the simulation reports 0 of the pods its profiles will try once every
object is in the cluster, then each decided pod; the command shows `Loading manifests` until
then and `Scheduling` with decided / total pods and the time left after, on a terminal only."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TimeElapsedColumn, TimeRemainingColumn
from test_report_sections import MANIFESTS, objects, run

from kubesched.cli._main import main
from kubesched.cli._simulate import PhaseProgress
from kubesched.simulate import Simulation


def test_the_simulation_reports_zero_first_then_each_decided_pod(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[int, int]] = []
    build = Simulation.__init__

    def with_progress(self: Simulation, *args: Any, **kwargs: Any) -> None:
        build(self, *args, **kwargs, progress=lambda done, total: calls.append((done, total)))

    monkeypatch.setattr(Simulation, "__init__", with_progress)
    run()

    pods = sum(1 for o in objects() if o.kind == "Pod")
    assert calls[0] == (0, pods)
    # 2 of the 3 pods fit the node; the third is decided (unschedulable) too
    assert calls[-1] == (pods, pods)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_phases_loading_then_scheduling() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=120)
    with Progress(console=console, transient=True) as bar:
        progress = PhaseProgress(bar)
        assert [(t.description, t.total) for t in bar.tasks] == [("Loading manifests", None)]

        progress(0, 20)
        progress(7, 20)
        assert [(t.description, t.completed, t.total) for t in bar.tasks] == [("Scheduling", 7, 20)]


def test_the_display_has_a_spinner_elapsed_time_and_eta() -> None:
    kinds = {type(c) for c in PhaseProgress.columns().columns}
    assert {SpinnerColumn, TimeElapsedColumn, TimeRemainingColumn} <= kinds


@pytest.mark.parametrize(
    ("flag", "shown"), [(None, True), ("--progress", True), ("--no-progress", False)]
)
def test_progress_only_on_a_terminal_and_not_with_no_progress(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flag: str | None,
    shown: bool,
) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(MANIFESTS, encoding="utf-8")
    args = ["simulate", str(path), *([flag] if flag else [])]

    assert main(args) == 0  # stderr is a pipe here: no progress whatever the flag
    assert capsys.readouterr().err == ""

    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich treats stderr as a terminal
    assert main(args) == 0
    err = capsys.readouterr().err
    assert ("Loading manifests" in err and "Scheduling" in err) is shown
    assert (err == "") is not shown
