"""The garbage collector while a scheduler runs: frozen initial state, fewer collections.

The counterpart of tuning Go's GOGC for a long-running scheduler. After the informers'
initial load, nearly every object alive (nodes, pods, the cache's NodeInfos, plugins) lives
as long as the scheduler, yet CPython's cyclic collector would walk them all again at every
full collection, and a scheduling cycle allocates enough short-lived objects to trigger a
young collection every few hundred allocations. So, for as long as a scheduler runs:

- `gc.freeze()` moves what exists after the load into the permanent generation, which
  collections skip (reference counting still frees it when released);
- the thresholds are raised (`THRESHOLDS`): young collections every 20,000 net
  allocations rather than 700, and older generations less often.

Both are process-wide; they are undone (`gc.unfreeze()`, the previous thresholds) when the
last running scheduler stops, so frozen objects become collectable again (tests and
embedders that run many schedulers in one process keep no garbage for good).

The initial load itself (`initial_load_gc`: `kubesched run`'s informers listing every node
and pod) runs with the raised thresholds too, without freezing: nearly all it decodes
survives, so CPython's default thresholds would walk the growing heap again and again
(five full collections, ~0.4 s, while listing 5000 nodes and 5000 pods); the scheduler
freezes it once scheduling starts.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

__all__ = ["THRESHOLDS", "initial_load_gc", "scheduling_gc"]

THRESHOLDS: Final = (20_000, 50, 100)
"""`gc.set_threshold` while a scheduler runs (CPython's default is (700, 10, 10))."""

_running = 0
"""Schedulers running (what exists when the first starts is frozen)."""
_raised = 0
"""Blocks holding the raised thresholds (loads and running schedulers)."""
_saved: tuple[int, int, int] = gc.get_threshold()


@contextmanager
def _raised_thresholds() -> Iterator[None]:
    """`THRESHOLDS` until the block ends (the first block to start and the last to end
    decide, whatever their kinds and order)."""
    global _raised, _saved
    if _raised == 0:
        _saved = gc.get_threshold()
        gc.set_threshold(*THRESHOLDS)
    _raised += 1
    try:
        yield
    finally:
        _raised -= 1
        if _raised == 0:
            gc.set_threshold(*_saved)


@contextmanager
def initial_load_gc() -> Iterator[None]:
    """Raise the collection thresholds while a cache is first filled (nothing frozen)."""
    with _raised_thresholds():
        yield


@contextmanager
def scheduling_gc() -> Iterator[None]:
    """Freeze what exists now and raise the collection thresholds until the block ends
    (nested or concurrent schedulers: the first to start and the last to stop decide)."""
    global _running
    with _raised_thresholds():
        if _running == 0:
            gc.freeze()
        _running += 1
        try:
            yield
        finally:
            _running -= 1
            if _running == 0:
                gc.unfreeze()
