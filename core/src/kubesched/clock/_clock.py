"""Clocks: every duration in kubesched is read from an injected clock.

`now()` is monotonic seconds and equals the running event loop's `time()`, so timers set
with `loop.call_at(clock.now() + d, ...)` fire at the right moment in both modes.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Protocol, final

__all__ = ["Clock", "VirtualClock", "WallClock"]


class Clock(Protocol):
    def now(self) -> float:
        """Monotonic seconds (the event loop's time)."""
        ...

    def wall_time(self) -> datetime:
        """The calendar time matching `now()`, in whole seconds: metav1.Time, the
        timestamps written on objects (creationTimestamp, conditions)."""
        ...

    def micro_time(self) -> datetime:
        """The same with microseconds: metav1.MicroTime (a Lease's renewTime, an Event's
        eventTime)."""
        ...


@final
class WallClock:
    """Real time, for `kubesched run`."""

    def now(self) -> float:
        return time.monotonic()

    def wall_time(self) -> datetime:
        return self.micro_time().replace(microsecond=0)

    def micro_time(self) -> datetime:
        return datetime.now(UTC)


_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@final
class VirtualClock:
    """Time that moves only when told to: by tests, or by the virtual-time event loop."""

    def __init__(self, start: float = 0.0, epoch: datetime = _EPOCH) -> None:
        self._now = start
        self._epoch = epoch

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"cannot move a clock backwards ({seconds} s)")
        self._now += seconds

    def advance_to(self, t: float) -> None:
        if t > self._now:
            self._now = t

    def wall_time(self) -> datetime:
        return self.micro_time().replace(microsecond=0)

    def micro_time(self) -> datetime:
        return self._epoch + timedelta(seconds=self._now)
