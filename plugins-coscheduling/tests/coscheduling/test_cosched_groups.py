"""The group table: reservation slots (oldest blocked group first) and backoff timers."""

from __future__ import annotations

import asyncio

from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched_coscheduling.coscheduling.groups import GroupTable


def table(limit: int = 1, woken: list[str] | None = None) -> GroupTable:
    sink = woken if woken is not None else []
    return GroupTable(VirtualClock(), limit, sink.append, "test")


def test_slots() -> None:
    t = table(limit=1)
    assert t.blocking_holder("a") is None
    t.acquire("a")
    assert t.blocking_holder("a") is None  # the holder itself
    assert t.blocking_holder("b") == "a"
    t.block("c")
    t.block("b")
    assert t.release("x") == []  # not a holder
    assert t.release("a") == ["c", "b"]
    assert t.holders() == [] and t.blocking_holder("b") is None
    assert t.release("a") == []


def test_no_limit() -> None:
    t = table(limit=0)
    t.acquire("a")
    assert t.blocking_holder("b") is None


def test_dropping_a_holder_frees_its_slot() -> None:
    t = table(limit=1)
    t.get("a")
    t.acquire("a")
    t.block("b")
    assert t.drop("a") == ["b"]
    assert t.peek("a") is None


def test_wakeup_fires_at_backoff_end_and_busy_needs_a_change() -> None:
    clock = VirtualClock()
    loop = VirtualTimeLoop(clock)
    woken: list[str] = []
    t = GroupTable(clock, 1, woken.append, "test")

    async def scenario() -> None:
        state = t.get("a")
        state.changes_at_attempt = t.changes
        state.backoff_until = 5.0
        t.schedule_wakeup("a", state)
        assert not t.busy()  # nothing changed since the attempt: a retry is pointless
        t.changes += 1
        assert t.busy()
        await asyncio.sleep(5.0)
        assert woken == ["a"]
        assert state.backoff_until is None and not t.busy()

    try:
        loop.run_until_complete(scenario())
    finally:
        loop.close()
