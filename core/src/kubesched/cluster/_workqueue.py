"""The work queue of controllers beside the embedded cluster (a plugin package's, via
`kubesched_cluster_controllers`): client-go's workqueue reduced to what a simulation
needs. Keys are synced one at a time in the order they came, each once however often it
was added, by one worker task on the simulation's event loop; a sync that fails is tried
again a few times; `busy()` says whether keys wait or a sync runs, so the simulation does
not call the cluster quiet while a controller has work."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final

__all__ = ["MAX_RETRIES", "WorkQueue"]

MAX_RETRIES: Final = 5
"""Syncs of a key (the first and its retries) before the queue gives it up."""

_log = logging.getLogger("kubesched.cluster")


class WorkQueue:
    """`sync(key)` for every key added. A sync that raises one of `retry_on` (by default
    any Exception; a controller may retry only a write that raced another) is tried
    again, `MAX_RETRIES` syncs at most, then given up with an error logged on `kubesched.cluster`
    naming the queue (as a controller's utilruntime.HandleError); any other exception
    ends the worker."""

    def __init__(
        self,
        name: str,
        sync: Callable[[str], Awaitable[None]],
        *,
        retry_on: tuple[type[Exception], ...] = (Exception,),
    ) -> None:
        self.name = name
        self._sync = sync
        self._retry_on = retry_on
        self._keys: dict[str, int] = {}  # key -> retries so far
        self._worker: asyncio.Task[None] | None = None

    def add(self, key: str, retries: int = 0) -> None:
        """Queue `key` (nothing when it waits already); the worker starts if it is not
        running and an event loop is."""
        self._keys.setdefault(key, retries)
        self._ensure_worker()

    def busy(self) -> bool:
        """Whether keys wait or a sync runs."""
        if self._keys:
            self._ensure_worker()  # keys added before the loop ran start their worker here
            return True
        return self._worker is not None and not self._worker.done()

    def _ensure_worker(self) -> None:
        if self._worker is not None and not self._worker.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # started by the next add() or busy() made inside the loop
        self._worker = loop.create_task(self._run(), name=f"{self.name}-worker")

    async def _run(self) -> None:
        while self._keys:
            key = next(iter(self._keys))
            retries = self._keys.pop(key)
            try:
                await self._sync(key)
            except asyncio.CancelledError:
                raise
            except self._retry_on:
                if retries + 1 >= MAX_RETRIES:
                    _log.error("%s: giving up on %s", self.name, key, exc_info=True)
                else:
                    _log.debug("%s: retrying %s", self.name, key, exc_info=True)
                    self.add(key, retries + 1)
            await asyncio.sleep(0)
