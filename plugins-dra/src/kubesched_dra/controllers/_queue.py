"""The work queue of this package's embedded controllers: keys synced one at a time, in
the order they came, each once however often it was added, by one worker task on the
simulation's event loop; a controller is busy while keys wait or a sync runs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final

__all__ = ["KeyQueue"]

MAX_RETRIES: Final = 5

_log = logging.getLogger("kubesched_dra.controllers")


class KeyQueue:
    """`sync(key)` for every key added. A sync that raises one of `retry_on` (a write
    that raced another) is tried again, `MAX_RETRIES` times at most."""

    def __init__(
        self,
        name: str,
        sync: Callable[[str], Awaitable[None]],
        retry_on: tuple[type[Exception], ...] = (),
    ) -> None:
        self.name = name
        self._sync = sync
        self._retry_on = retry_on
        self._keys: dict[str, int] = {}  # key -> retries so far
        self._task: asyncio.Task[None] | None = None

    def add(self, key: str, retries: int = 0) -> None:
        self._keys.setdefault(key, retries)
        self._ensure_worker()

    def busy(self) -> bool:
        if self._keys:
            self._ensure_worker()  # keys added before the loop ran start their worker here
            return True
        return self._task is not None and not self._task.done()

    def _ensure_worker(self) -> None:
        if self._task is not None and not self._task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._task = loop.create_task(self._run(), name=f"{self.name}-worker")

    async def _run(self) -> None:
        while self._keys:
            key = next(iter(self._keys))
            retries = self._keys.pop(key)
            try:
                await self._sync(key)
            except asyncio.CancelledError:
                raise
            except self._retry_on:
                if retries + 1 < MAX_RETRIES:
                    self.add(key, retries + 1)
                else:
                    _log.warning("%s: giving up on %s", self.name, key, exc_info=True)
            await asyncio.sleep(0)
