"""EventBroadcaster: the scheduler's Events written to the cluster as client-go writes them.

Upstream: staging/src/k8s.io/client-go/tools/events/event_broadcaster.go (recordToSink,
attemptRecording, recordEvent, finishSeries, refreshExistingEventSeries, getKey) and
tools/record/event.go for the core/v1 Events of leader election.

- Isomorphic events (same type, action, reason, reportingController, reportingInstance,
  regarding object, resourceVersion included, and related object; the note is not compared)
  form a series. The first repeat patches `series: {count: 2, lastObservedTime}` onto the
  Event written first; later repeats only count. The count is written when the series
  finishes (not seen for 6 minutes, checked every 6 minutes) and refreshed every 30 minutes.
- A write that may succeed later (connection error, 5xx, 429; a series' create finding the
  Event already there) is tried up to 12 times, 10 s apart with up to 25 % jitter (core/v1:
  the first wait random within 10 s). A write the server refuses is dropped with a log line,
  as is one whose tries are spent.
- At most 1000 events wait to be written, queued or waiting to retry; more are dropped with
  a log line (upstream's queue of 1000 with DropIfChannelFull).

Deliberate differences: client-go's REST client retries 429 and 5xx answers itself before
the events library sees them, kubesched's transport does not, so they are retried here; an
event waiting to retry counts against the 1000 (upstream holds it in a goroutine); the
6-minute check also runs, for the checks due, before each event is counted, so a simulation
(virtual time, no timers of its own) finishes series exactly as the timer would; core/v1
Events are not correlated (upstream's EventCorrelator merges identical repeats, which
leader election, their only user, never sends).

Writes run concurrently, up to WRITERS at once. The memory cluster completes a write
without waiting, so in a simulation they happen one after the other in order, and runs
repeat. No exception leaves a write: after `shutdown` an event is a drop with a log line.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import deque
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Final

from kubesched.clock import Clock
from kubesched.cluster import (
    Cluster,
    EventSeries,
    EventWriteError,
    KubeEvent,
    ObjectRef,
    unix_nanos,
)

__all__ = [
    "FINISH_TIME",
    "MAX_QUEUED_EVENTS",
    "MAX_TRIES_PER_EVENT",
    "REFRESH_TIME",
    "SLEEP_DURATION",
    "WRITERS",
    "EventBroadcaster",
    "describe_event",
    "event_key",
]

_log = logging.getLogger("kubesched.events")

MAX_TRIES_PER_EVENT: Final = 12
FINISH_TIME: Final = 6 * 60.0
REFRESH_TIME: Final = 30 * 60.0
MAX_QUEUED_EVENTS: Final = 1000
SLEEP_DURATION: Final = 10.0
JITTER_FACTOR: Final = 0.25
"""wait.Jitter(sleepDuration, 0.25): a retry waits 10 to 12.5 s."""
WRITERS: Final = 8
"""Writes in flight at once (upstream starts a goroutine per event; the events client's
rate limiter is what bounds them)."""

EventKey = tuple[str, str, str, str, str, ObjectRef, ObjectRef | None]


def event_key(event: KubeEvent) -> EventKey:
    """getKey: what makes two events isomorphic. The note is not part of it."""
    return (
        event.type,
        event.action,
        event.reason,
        event.reporting_controller,
        event.reporting_instance,
        event.regarding,
        event.related,
    )


def describe_event(event: KubeEvent) -> str:
    """One line naming an event in the log."""
    return (
        f'{event.type} {event.reason} "{event.message}" for {event.involved_kind} '
        f"{event.namespace}/{event.involved_name}"
    )


@dataclass(eq=False)
class _Write:
    event: KubeEvent
    tries: int = 0


class EventBroadcaster:
    """Aggregates events into series and writes them to `cluster`, retrying as upstream."""

    def __init__(
        self,
        cluster: Cluster,
        clock: Clock,
        *,
        sleep_duration: float = SLEEP_DURATION,
        max_queued: int = MAX_QUEUED_EVENTS,
        rng: random.Random | None = None,
    ) -> None:
        self._cluster = cluster
        self._clock = clock
        self.sleep_duration = sleep_duration
        self._max_queued = max_queued
        self._rng = rng or random.Random()
        self._cache: dict[EventKey, KubeEvent] = {}
        self._queue: deque[_Write] = deque()
        self._waiting: dict[_Write, asyncio.TimerHandle] = {}
        self._writing = 0
        self._writers: set[asyncio.Task[None]] = set()
        self._flushes: list[asyncio.Future[None]] = []
        self._timers: asyncio.Task[None] | None = None
        self._next_finish = clock.now() + FINISH_TIME
        self._last_nanos = 0
        self._closed = False
        self.dropped = 0
        """Events never written: refused, out of tries, over the queue limit, or left at
        shutdown."""

    # -- state ----------------------------------------------------------------------------
    @property
    def pending(self) -> int:
        """Events queued, being written, or waiting to retry."""
        return len(self._queue) + self._writing + len(self._waiting)

    @property
    def busy(self) -> bool:
        return self.pending > 0

    def name_for(self, regarding_name: str, when: datetime) -> str:
        """A new Event's name, `<regarding>.<hex ns>` (client-go makeEvent); never one
        given before, since a virtual clock can stand still between two events."""
        nanos = max(unix_nanos(when), self._last_nanos + 1)
        self._last_nanos = nanos
        return f"{regarding_name}.{nanos:x}"

    # -- recording --------------------------------------------------------------------------
    def record(self, event: KubeEvent) -> None:
        """Hand an event over; it is written in the background (never raises)."""
        if self._closed:
            self.dropped += 1
            _log.warning(
                "Unable to record event (will not retry!): the event broadcaster is shut "
                "down, event=%s",
                describe_event(event),
            )
            return
        if self.pending >= self._max_queued:
            self.dropped += 1
            _log.error(
                "Unable to record event: too many queued events, dropped event %s",
                describe_event(event),
            )
            return
        self._finish_series_due(self._clock.now())
        to_write = event if event.legacy else self._aggregate(event)
        if to_write is not None:
            self._enqueue(to_write)

    def _aggregate(self, event: KubeEvent) -> KubeEvent | None:
        """recordToSink: the event to write, or None when it only counts in a series."""
        key = event_key(event)
        cached = self._cache.get(key)
        if cached is None:
            self._cache[key] = event
            return event
        now = self._clock.now()
        count = 2 if cached.series is None else cached.series.count + 1
        updated = replace(cached, series=EventSeries(count, self._clock.micro_time(), now))
        self._cache[key] = updated
        return updated if cached.series is None else None

    def _enqueue(self, event: KubeEvent) -> None:
        self._queue.append(_Write(event))
        self._start_writers()

    # -- series upkeep ------------------------------------------------------------------------
    def _finish_series_due(self, now: float) -> None:
        """Run the 6-minute checks due by `now` (the last one is enough: a series the first
        would finish, the last finishes too, and no event came in between)."""
        if now < self._next_finish:
            return
        periods = int((now - self._next_finish) // FINISH_TIME)
        tick = self._next_finish + periods * FINISH_TIME
        self._next_finish = tick + FINISH_TIME
        self.finish_series(tick)

    def finish_series(self, now: float) -> None:
        """finishSeries: write the final count of each series not seen for 6 minutes and
        forget it; forget single events older than that."""
        for key, event in list(self._cache.items()):
            series = event.series
            if series is not None:
                if series.last_observed < now - FINISH_TIME:
                    del self._cache[key]
                    self._enqueue(event)
            elif event.timestamp < now - FINISH_TIME:
                del self._cache[key]

    def refresh_series(self) -> None:
        """refreshExistingEventSeries: write every open series again (an Event expires from
        the API server after an hour)."""
        for event in list(self._cache.values()):
            if event.series is not None:
                self._enqueue(event)

    def start(self) -> None:
        """Run the series timers (kubesched run): the 6-minute finish check and the
        30-minute refresh, from now until `shutdown`."""
        if self._timers is None and not self._closed:
            self._timers = asyncio.get_running_loop().create_task(self._run_timers())

    async def _run_timers(self) -> None:
        next_refresh = self._clock.now() + REFRESH_TIME
        while True:
            now = self._clock.now()
            await asyncio.sleep(max(0.0, min(self._next_finish, next_refresh) - now))
            now = self._clock.now()
            self._finish_series_due(now)
            if now >= next_refresh:
                self.refresh_series()
                next_refresh = now + REFRESH_TIME

    # -- writing ------------------------------------------------------------------------------
    def _start_writers(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop yet: `flush` writes them
            return
        # a writer done but not yet discarded (its callback is still to run) takes nothing
        running = sum(1 for task in self._writers if not task.done())
        while running < WRITERS and running - self._writing < len(self._queue):
            task = loop.create_task(self._writer())
            self._writers.add(task)
            task.add_done_callback(self._writers.discard)
            running += 1

    async def _writer(self) -> None:
        while self._queue and not self._closed:
            item = self._queue.popleft()
            self._writing += 1
            try:
                await self._attempt(item)
            finally:
                self._writing -= 1
                self._notify_flushes()

    async def _attempt(self, item: _Write) -> None:
        """One try of recordEvent; schedules the next when it may succeed later."""
        item.tries += 1
        event = item.event
        try:
            await self._cluster.record_event(event)
            return
        except asyncio.CancelledError:
            raise
        except EventWriteError as exc:
            retry = exc.retry or (exc.already_exists and event.series is not None)
            if not retry:
                self.dropped += 1
                # an Event that already exists is expected (V(5) upstream)
                log = _log.debug if exc.already_exists else _log.error
                log(
                    "Server rejected event (will not retry!): %s, event=%s",
                    exc,
                    describe_event(event),
                )
                return
            _log.error("Unable to write event (may retry after sleeping): %s", exc)
        except Exception as exc:  # a closed client, a backend's bug: never out of the task
            self.dropped += 1
            _log.error(
                "Unable to write event (will not retry!): %s: %s, event=%s",
                type(exc).__name__,
                exc,
                describe_event(event),
            )
            return
        if item.tries >= MAX_TRIES_PER_EVENT:
            self.dropped += 1
            _log.error(
                "Unable to write event (retry limit exceeded!): event=%s", describe_event(event)
            )
            return
        if self._closed:
            return
        delay = self._retry_delay(item)
        loop = asyncio.get_running_loop()
        self._waiting[item] = loop.call_later(delay, self._retry, item)

    def _retry_delay(self, item: _Write) -> float:
        if item.event.legacy:  # tools/record: the first wait is random, then the full period
            return self.sleep_duration * (self._rng.random() if item.tries == 1 else 1.0)
        return self.sleep_duration * (1.0 + JITTER_FACTOR * self._rng.random())

    def _retry(self, item: _Write) -> None:
        if self._waiting.pop(item, None) is None or self._closed:
            return
        self._queue.append(item)
        self._start_writers()

    # -- flushing and shutdown -------------------------------------------------------------------
    def _notify_flushes(self, *, force: bool = False) -> None:
        if self.busy and not force:
            return
        for waiter in self._flushes:
            if not waiter.done():
                waiter.set_result(None)
        self._flushes.clear()

    async def flush(self) -> None:
        """Return once every event handed over has been written or dropped."""
        self._start_writers()
        while self.busy and not self._closed:
            waiter = asyncio.get_running_loop().create_future()
            self._flushes.append(waiter)
            await waiter

    async def shutdown(self, timeout: float = 0.0) -> int:
        """Stop: wait up to `timeout` seconds for pending writes, then drop what is left
        with one log line counting it. Later events are dropped. Returns the count."""
        if timeout > 0 and self.busy and not self._closed:
            try:
                async with asyncio.timeout(timeout):
                    await self.flush()
            except TimeoutError:
                pass
        self._closed = True
        left = self.pending
        for handle in self._waiting.values():
            handle.cancel()
        self._waiting.clear()
        self._queue.clear()
        tasks = [*self._writers, *([self._timers] if self._timers is not None else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._notify_flushes(force=True)
        if left:
            self.dropped += left
            _log.warning("Dropped %d event(s) not written before shutdown", left)
        return left
