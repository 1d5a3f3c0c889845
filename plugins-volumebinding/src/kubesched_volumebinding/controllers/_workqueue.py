"""A small work queue for the embedded controllers: keys deduplicated, one worker task,
failed syncs retried, and a `busy()` a simulation can trust."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final

__all__ = ["WorkQueue"]

_log = logging.getLogger("kubesched.volumebinding.controllers")

MAX_RETRIES: Final = 5


class WorkQueue:
    """Keys waiting for `sync(key)`; a key queued twice is synced once."""

    def __init__(self, name: str, sync: Callable[[str], Awaitable[None]]) -> None:
        self.name = name
        self._sync = sync
        self._keys: dict[str, int] = {}  # key -> retries so far
        self._worker: asyncio.Task[None] | None = None

    def add(self, key: str, retries: int = 0) -> None:
        if key not in self._keys:
            self._keys[key] = retries
        self._ensure_worker()

    def busy(self) -> bool:
        if self._keys:
            self._ensure_worker()  # keys added outside the loop start their worker here
            return True
        return self._worker is not None and not self._worker.done()

    def _ensure_worker(self) -> None:
        if self._worker is not None and not self._worker.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # started by the next add() made inside the loop
        self._worker = loop.create_task(self._run(), name=f"{self.name}-worker")

    async def _run(self) -> None:
        while self._keys:
            key = next(iter(self._keys))
            retries = self._keys.pop(key)
            try:
                await self._sync(key)
            except asyncio.CancelledError:
                raise
            except Exception:
                if retries + 1 >= MAX_RETRIES:
                    _log.exception("%s: giving up on %s", self.name, key)
                else:
                    _log.debug("%s: retrying %s", self.name, key, exc_info=True)
                    self.add(key, retries + 1)
            await asyncio.sleep(0)
