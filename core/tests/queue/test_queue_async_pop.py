"""`pop` waits on the event loop until exactly the next due moment (virtual time)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from queue_builders import fail, make_pod, make_queue

from kubesched.clock import VirtualTimeLoop
from kubesched.framework import QueuedPodInfo

T = TypeVar("T")


def run_virtual(make: Callable[[VirtualTimeLoop], Awaitable[T]]) -> T:
    loop = VirtualTimeLoop()
    try:
        return loop.run_until_complete(make(loop))
    finally:
        loop.close()


@pytest.mark.parametrize(
    ("pop_from_backoff", "woken_at"),
    # with the gate the 4 s end is in window [4, 5): the pod leaves when that window closes
    [(False, 4.0), (True, 5.0)],
)
def test_pop_sleeps_until_backoff_expiry(pop_from_backoff: bool, woken_at: float) -> None:
    async def scenario(loop: VirtualTimeLoop) -> tuple[str, float]:
        q = make_queue(loop.clock, pop_from_backoff=pop_from_backoff)
        q.add(make_pod("a"))
        p = q.pop_nowait()
        assert p is not None
        p.consecutive_errors_count = 2  # the third error: 4 s backoff
        q.add_unschedulable_if_not_present(p, q.scheduling_cycle)
        got = await q.pop()
        assert got is not None
        return got.pod.metadata.name, loop.clock.now()

    assert run_virtual(scenario) == ("a", woken_at)


def test_pop_sleeps_until_pool_leftover_deadline() -> None:
    async def scenario(loop: VirtualTimeLoop) -> float:
        loop.clock.advance(10)
        q = make_queue(loop.clock)
        q.add(make_pod("a"))
        p = q.pop_nowait()
        assert p is not None
        fail(q, p, unschedulable=["Silent"])
        assert await q.pop() is p
        return loop.clock.now()

    assert run_virtual(scenario) == 310.0


def test_pop_wakes_for_a_pod_added_while_waiting() -> None:
    async def scenario(loop: VirtualTimeLoop) -> tuple[str, float]:
        q = make_queue(loop.clock)
        q.add(make_pod("slow"))
        p = q.pop_nowait()
        assert p is not None
        fail(q, p, unschedulable=["Silent"])  # due only at 300 s

        async def add_later() -> None:
            await asyncio.sleep(2.5)
            q.add(make_pod("fresh"))

        task = loop.create_task(add_later())
        got: QueuedPodInfo | None = await q.pop()
        await task
        assert got is not None
        return got.pod.metadata.name, loop.clock.now()

    assert run_virtual(scenario) == ("fresh", 2.5)


@pytest.mark.parametrize(("pop_from_backoff", "woken_at"), [(False, 2.0), (True, 3.0)])
def test_pop_wakes_earlier_when_an_earlier_deadline_appears(
    pop_from_backoff: bool, woken_at: float
) -> None:
    async def scenario(loop: VirtualTimeLoop) -> tuple[str, float]:
        q = make_queue(loop.clock, pop_from_backoff=pop_from_backoff)
        q.add(make_pod("parked"))
        q.add(make_pod("erring"))
        parked, erring = q.pop_nowait(), q.pop_nowait()
        assert parked is not None and erring is not None
        fail(q, parked, unschedulable=["Silent"])  # due at 300 s

        async def fail_later() -> None:
            await asyncio.sleep(1)
            fail(q, erring)  # error: 1 s from t=1; erring pods are never popped early

        task = loop.create_task(fail_later())
        got = await q.pop()
        await task
        assert got is not None
        return got.pod.metadata.name, loop.clock.now()

    assert run_virtual(scenario) == ("erring", woken_at)


def test_close_releases_a_waiting_pop() -> None:
    async def scenario(loop: VirtualTimeLoop) -> tuple[QueuedPodInfo | None, float]:
        q = make_queue(loop.clock)
        loop.call_later(7, q.close)
        return await q.pop(), loop.clock.now()

    assert run_virtual(scenario) == (None, 7.0)


def test_pop_works_on_a_normal_event_loop() -> None:
    async def scenario() -> str:
        from kubesched.clock import WallClock

        q = make_queue(WallClock())
        q.add(make_pod("a"))
        got = await q.pop()
        assert got is not None
        return got.pod.metadata.name

    assert asyncio.run(scenario()) == "a"
