"""The collector settings a running scheduler uses, and that they are undone after it."""

from __future__ import annotations

import gc

from kubesched.scheduler._gc import THRESHOLDS, initial_load_gc, scheduling_gc


def test_frozen_and_raised_while_running_then_restored() -> None:
    before = gc.get_threshold()
    frozen_before = gc.get_freeze_count()
    kept = [object() for _ in range(10)]
    with scheduling_gc():
        assert gc.get_threshold() == THRESHOLDS
        assert gc.get_freeze_count() >= frozen_before + len(kept)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_nested_schedulers_undo_once_the_last_stops() -> None:
    before = gc.get_threshold()
    with scheduling_gc():
        with scheduling_gc():
            assert gc.get_threshold() == THRESHOLDS
        assert gc.get_threshold() == THRESHOLDS
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_undone_when_the_loop_raises() -> None:
    before = gc.get_threshold()
    try:
        with scheduling_gc():
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_the_initial_load_runs_raised_but_unfrozen() -> None:
    before = gc.get_threshold()
    with initial_load_gc():
        assert gc.get_threshold() == THRESHOLDS
        assert gc.get_freeze_count() == 0  # frozen once scheduling starts
    assert gc.get_threshold() == before


def test_a_load_ending_while_a_scheduler_runs_keeps_its_tuning() -> None:
    before = gc.get_threshold()
    load = initial_load_gc()
    load.__enter__()
    with scheduling_gc():
        load.__exit__(None, None, None)
        assert gc.get_threshold() == THRESHOLDS
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
