"""An asyncio event loop on virtual time.

When the loop has nothing ready to run it would sleep until its next timer; instead the
clock jumps to that timer. So `asyncio.sleep(3600)` returns at once in real time, an hour
later in virtual time, and runs repeat exactly. When it has nothing ready and would wait,
an `on_idle(next_timer)` callback is asked first: this is where a simulation decides that
nothing more can change and stops.

Only loopback I/O (the loop's own self-pipe) is expected; a loop waiting on real sockets
would not advance correctly.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable
from typing import Any

from kubesched.clock._clock import VirtualClock

__all__ = ["IdleCallback", "VirtualTimeLoop"]

IdleCallback = Callable[[float | None], None]
"""on_idle(next_timer_or_None): called when every task is blocked."""


class _VirtualSelector(selectors.BaseSelector):
    def __init__(self, clock: VirtualClock) -> None:
        self._real = selectors.DefaultSelector()
        self._clock = clock
        self.on_idle: IdleCallback | None = None
        self.loop: VirtualTimeLoop | None = None

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._real.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.modify(fileobj, events, data)

    def get_map(self) -> Any:
        return self._real.get_map()

    def close(self) -> None:
        self._real.close()

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self._real.select(0)
        if ready or timeout == 0:
            return ready
        # Nothing is runnable: every task waits on a timer or on another task.
        if self.on_idle is not None:
            next_timer = None if timeout is None else self._clock.now() + timeout
            self.on_idle(next_timer)
            if self.loop is not None and self.loop.has_ready_work():
                return self._real.select(0)
        if timeout is None:
            raise RuntimeError(
                "virtual-time loop would wait forever: every task is blocked and no timer is set"
            )
        self._clock.advance(timeout)
        return self._real.select(0)


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """A SelectorEventLoop whose `time()` is a VirtualClock that jumps over idle waits."""

    def __init__(self, clock: VirtualClock | None = None) -> None:
        self.clock = clock or VirtualClock()
        selector = _VirtualSelector(self.clock)
        super().__init__(selector)
        selector.loop = self
        self._virtual_selector = selector
        self._clock_resolution = 1e-9

    def time(self) -> float:
        return self.clock.now()

    def set_idle_callback(self, callback: IdleCallback | None) -> None:
        self._virtual_selector.on_idle = callback

    def has_ready_work(self) -> bool:
        """Whether a callback became ready (e.g. the idle callback resolved a future)."""
        return bool(getattr(self, "_ready", ()))
