"""`kubesched simulate --no-fast-path` (and KUBESCHED_FAST_PATH=0) keep the per-node
Filter/Score path: the same placements, for comparison and debugging (issue 14)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubesched.cli._main import main
from kubesched.scheduler import FAST_PATH_ENV, SchedulingAlgorithm, _factory, fast_path_enabled

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def simulate(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(["simulate", "--no-progress", "-o", "json", "--seed", "3", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize("example", ["basic", "taints", "node-affinity", "preemption"])
def test_no_fast_path_places_every_pod_where_the_fast_path_does(
    example: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(FAST_PATH_ENV, raising=False)
    used: list[bool] = []

    class Watched(SchedulingAlgorithm):
        def __init__(self, *args: object) -> None:
            super().__init__(*args)  # type: ignore[arg-type]
            used.append(self.fast_path)

    monkeypatch.setattr(_factory, "SchedulingAlgorithm", Watched)
    folder = str(EXAMPLES / example)
    fast = simulate(capsys, folder)
    assert simulate(capsys, "--no-fast-path", folder) == fast
    assert used == [True, False]
    assert '"node"' in fast


def test_the_environment_variable_turns_the_fast_path_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(FAST_PATH_ENV, raising=False)
    assert fast_path_enabled() and not fast_path_enabled(False)
    monkeypatch.setenv(FAST_PATH_ENV, "0")
    assert not fast_path_enabled() and fast_path_enabled(True)
    monkeypatch.setenv(FAST_PATH_ENV, "1")
    assert fast_path_enabled()


def test_no_fast_path_reaches_the_plugins_own_shortcuts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """InterPodAffinity counts on the snapshot's columns and DefaultPreemption makes its
    quick dry run only on the fast path: `--no-fast-path` reaches them through their
    handle, not only the node search, whatever the environment says."""
    from kubesched_builtin.defaultpreemption import plugin as preemption
    from kubesched_builtin.interpodaffinity import plugin as affinity

    monkeypatch.delenv(FAST_PATH_ENV, raising=False)
    calls: list[str] = []
    on_columns = affinity.InterPodAffinity._count_on_columns
    walk = affinity.incoming_affinity_counts
    quick = preemption.resources_only_dry_run

    def spy(name: str, call: Any) -> Any:
        def spied(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return call(*args, **kwargs)

        return spied

    monkeypatch.setattr(affinity.InterPodAffinity, "_count_on_columns", spy("columns", on_columns))
    monkeypatch.setattr(affinity, "incoming_affinity_counts", spy("walk", walk))
    monkeypatch.setattr(preemption, "resources_only_dry_run", spy("quick", quick))
    seen: dict[tuple[str, bool], set[str]] = {}
    for example in ("anti-affinity", "preemption"):
        for flags in ((), ("--no-fast-path",)):
            calls.clear()
            simulate(capsys, *flags, str(EXAMPLES / example))
            seen[example, not flags] = set(calls)
    assert seen["anti-affinity", True] >= {"columns"}
    assert "walk" not in seen["anti-affinity", True]
    assert seen["anti-affinity", False] >= {"walk"}
    assert "columns" not in seen["anti-affinity", False]
    assert "quick" in seen["preemption", True]
    assert "quick" not in seen["preemption", False]
