"""The memory cluster's Events, kept as the API server would hold them.

An Event without a series is created; one with a series patches that series onto the Event
of its name, or is created when there is none (client-go's recordEvent falls back to a
create when the patch finds nothing). A second create of a name is AlreadyExists. Events
without a name (written directly, not through the scheduler's broadcaster) are kept each
on their own.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from kubesched.cluster._events import EventWriteError
from kubesched.cluster._interface import KubeEvent

__all__ = ["EventStore"]


class EventStore:
    """Events by (namespace, name) in creation order, at most `limit` (oldest dropped)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._events: dict[tuple[str, str], KubeEvent] = {}
        self._unnamed = itertools.count(1)

    def record(self, event: KubeEvent) -> None:
        name = event.name or f"#{next(self._unnamed)}"
        key = (event.namespace, name)
        stored = self._events.get(key)
        if stored is not None:
            if event.series is None:
                raise EventWriteError(f'events "{name}" already exists', already_exists=True)
            self._events[key] = replace(stored, series=event.series)
            return
        self._events[key] = event
        if len(self._events) > self._limit:
            del self._events[next(iter(self._events))]

    def all(self) -> list[KubeEvent]:
        return list(self._events.values())
