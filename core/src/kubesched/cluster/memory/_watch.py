"""Watch delivery for the memory cluster: one FIFO, drained on the event loop.

A write never runs a handler inside the writer's call (the scheduler may be in the middle
of a cycle); it appends (handler, event) pairs to the FIFO and asks the running loop to
drain it with `call_soon`. Without a running loop (loading manifests before the simulation
starts) events wait for the next drain or an explicit `flush()`. Order is global: every
handler sees events in the order the writes happened, as one informer per kind would.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Iterable

from kubesched.cluster._interface import EventHandler, WatchEvent

__all__ = ["WatchDispatcher"]

_log = logging.getLogger("kubesched.cluster.memory")


class WatchDispatcher:
    """Handlers by kind and the queue of events still to deliver to them."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[EventHandler]] = {}
        self._queue: deque[tuple[EventHandler, WatchEvent]] = deque()
        # The loop a drain is scheduled on; another loop (a new asyncio.run) schedules anew.
        self._drain_loop: asyncio.AbstractEventLoop | None = None
        self._flushing = False

    def add(self, kind: str, handler: EventHandler, existing: Iterable[object]) -> None:
        """Register `handler` and queue the replay of `existing` as ADDED events."""
        self._handlers.setdefault(kind, []).append(handler)
        self._queue.extend((handler, WatchEvent("ADDED", kind, obj)) for obj in existing)
        self._schedule()

    def emit(self, event: WatchEvent) -> None:
        handlers = self._handlers.get(event.kind)
        if not handlers:
            return
        if len(handlers) == 1:
            self._queue.append((handlers[0], event))
        else:
            self._queue.extend((handler, event) for handler in handlers)
        self._schedule()

    def pending(self) -> int:
        """Events queued and not yet delivered."""
        return len(self._queue)

    def flush(self) -> None:
        """Deliver everything queued, including what handlers write meanwhile.

        A handler that raises does not stop delivery; the first such exception is re-raised
        once the queue is empty, so tests see it. Called from inside a handler, it does
        nothing: the delivery already running continues in order.
        """
        if self._flushing:
            return
        first_error: BaseException | None = None
        self._flushing = True
        try:
            queue = self._queue
            while queue:
                handler, event = queue.popleft()
                try:
                    handler(event)
                except Exception as error:
                    _log.exception("watch handler failed on %s %s", event.type, event.kind)
                    first_error = first_error or error
        finally:
            self._flushing = False
        if first_error is not None:
            raise first_error

    def _schedule(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # delivered by flush() or by the first drain once a loop runs
        if self._drain_loop is not loop:
            self._drain_loop = loop
            loop.call_soon(self._drain, loop)

    def _drain(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._drain_loop is loop:
            self._drain_loop = None
        if self._flushing:
            return
        # Only what was queued when the drain started: events written by handlers go to a
        # later drain, so a feedback loop between handlers cannot starve other callbacks.
        queue = self._queue
        self._flushing = True
        try:
            for _ in range(len(queue)):
                if not queue:
                    break
                handler, event = queue.popleft()
                try:
                    handler(event)
                except Exception as error:
                    loop.call_exception_handler(
                        {
                            "message": f"watch handler failed on {event.type} {event.kind}",
                            "exception": error,
                        }
                    )
        finally:
            self._flushing = False
        if queue:
            self._schedule()
