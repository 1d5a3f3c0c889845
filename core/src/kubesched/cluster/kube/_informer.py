"""Informers of our own: list, then watch from the list's resourceVersion, per kind.

Modelled on client-go's Reflector (tools/cache/reflector.go) and kopf's watch loop:

- list in pages (`limit`/`continue`), then watch from the list's resourceVersion with
  `allowWatchBookmarks=true` and a server-side timeout of 5 to 10 minutes;
- record the resourceVersion of every event and bookmark, and resume from it when a watch
  ends or breaks, without listing again;
- on `410 Gone` (an HTTP answer or an ERROR event) list again, always, since the events in
  between are lost; the new list is compared with the cache, so handlers see what changed
  (ADDED, MODIFIED, DELETED) and nothing twice;
- back off exponentially with jitter (0.8 s doubling to 30 s, client-go's values) on errors,
  and treat a watch that ends within a second having delivered nothing as an error.

A kind the API server does not serve (a CRD that is not installed: 404 on list) counts as
synced and empty, and is listed again now and then; kube-scheduler would wait forever.
Objects that fail their model are logged and left out, never fatal.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.api import KindInfo
from kubesched.cluster._interface import EventHandler, WatchEvent, WatchEventType
from kubesched.cluster.kube._resources import (
    DecodeError,
    collection_path,
    decode,
    decode_event,
    decode_page,
    key_of_raw,
    object_key,
)
from kubesched.cluster.kube._transport import ApiError, Transport, error_from_status, parse_json

__all__ = ["POD_FIELD_SELECTOR", "Backoff", "Informer", "InformerSettings"]

_log = logging.getLogger("kubesched.cluster.kube")

POD_FIELD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"
"""kube-scheduler's pod informer leaves out terminal pods (scheduler.go NewPodInformer);
a pod that turns terminal then arrives as DELETED, which is what the handlers make of it."""


@dataclass(frozen=True)
class InformerSettings:
    """Tuning of every informer; the defaults are client-go's."""

    page_size: int = 500
    min_watch_timeout: float = 300.0
    """A watch asks the server to end it after this many seconds times 1 to 2 (random)."""
    backoff_initial: float = 0.8
    backoff_max: float = 30.0
    short_watch: float = 1.0
    """A watch ending sooner than this with no event is treated as an error."""
    field_selectors: Mapping[str, str] = field(default_factory=lambda: {"Pod": POD_FIELD_SELECTOR})


class Backoff:
    """Exponential delays with jitter, bounded by `maximum`; `reset` after a success."""

    def __init__(
        self, initial: float, maximum: float, rng: random.Random, factor: float = 2.0
    ) -> None:
        self._initial = initial
        self._maximum = maximum
        self._rng = rng
        self._factor = factor
        self._current = initial

    def next(self) -> float:
        delay = self._current
        self._current = min(self._maximum, self._current * self._factor)
        # jitter factor 1.0 as client-go's reflector: up to twice the delay, never past max
        return min(self._maximum, delay * (1.0 + self._rng.random()))

    def reset(self) -> None:
        self._current = self._initial


class Informer:
    """One kind's cache, kept current by list and watch, and the handlers it feeds.

    Handlers run on the event loop from the informer's task, one event at a time and never
    inside a caller's write. A handler added later first gets the cache replayed as ADDED.
    """

    def __init__(
        self,
        transport: Transport,
        info: KindInfo,
        settings: InformerSettings,
        rng: random.Random | None = None,
    ) -> None:
        self.info = info
        self.store: dict[str, Any] = {}
        self.resource_version = ""
        self.synced = asyncio.Event()
        self.handlers: list[EventHandler] = []
        self.lists = 0
        """How many times the kind was listed (1 + the relists)."""
        self.watches = 0
        self._transport = transport
        self._settings = settings
        self._rng = rng or random.Random()
        self._backoff = Backoff(settings.backoff_initial, settings.backoff_max, self._rng)
        self._selector = settings.field_selectors.get(info.kind, "")
        self._task: asyncio.Task[None] | None = None
        self._not_served_logged = False
        self.failing_since: float | None = None
        """Loop time of the first failed list or watch since the last success."""
        self.last_error = ""

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"informer-{self.info.plural}"
            )

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def add_handler(self, handler: EventHandler) -> asyncio.Future[None]:
        """Register `handler` soon (never inside this call): it first receives the cached
        objects as ADDED, then every change. The future resolves once it is registered."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def register() -> None:
            for obj in list(self.store.values()):
                self._call(handler, WatchEvent("ADDED", self.info.kind, obj))
            self.handlers.append(handler)
            if not done.done():
                done.set_result(None)

        loop.call_soon(register)
        return done

    # -- the loop -----------------------------------------------------------------------
    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        need_list = True
        gone_in_a_row = 0
        while True:
            try:
                if need_list:
                    await self._list()
                    need_list = False
                started = loop.time()
                delivered = await self._watch()
                gone_in_a_row = 0
                if delivered:
                    self._backoff.reset()
                elif loop.time() - started < self._settings.short_watch:
                    raise ApiError(0, "", "watch ended at once without any event")
            except asyncio.CancelledError:
                raise
            except ApiError as exc:
                if exc.gone:
                    _log.info(
                        "Watch of %s expired (resourceVersion %s): listing again",
                        self.info.plural,
                        self.resource_version,
                    )
                    need_list = True
                    gone_in_a_row += 1
                    if gone_in_a_row > 1:
                        await asyncio.sleep(self._backoff.next())
                    continue
                if exc.code == 404 and need_list:
                    self._not_served()
                    await asyncio.sleep(self._settings.backoff_max)
                    continue
                _log.warning("Failed to %s %s: %s", _verb(need_list), self.info.plural, exc)
                self._failed(loop.time(), f"failed to {_verb(need_list)}: {exc}")
                await asyncio.sleep(self._backoff.next())
            except Exception as exc:  # a malformed stream: never let the informer die
                _log.exception("Unexpected error watching %s", self.info.plural)
                self._failed(loop.time(), f"unexpected error: {exc}")
                await asyncio.sleep(self._backoff.next())

    def _failed(self, now: float, error: str) -> None:
        if self.failing_since is None:
            self.failing_since = now
        self.last_error = error

    def _query(self) -> list[tuple[str, str]]:
        return [("fieldSelector", self._selector)] if self._selector else []

    async def _list(self) -> None:
        path = collection_path(self.info)
        items: dict[str, Any] = {}
        resource_version = ""
        token = ""
        while True:
            query = [("limit", str(self._settings.page_size)), *self._query()]
            if token:
                query.append(("continue", token))
            status, data = await self._transport.request_raw("GET", path, query=query)
            page = decode_page(self.info, data)
            if page is not None:  # every item validated straight from the bytes
                items.update(page.items)
                resource_version = page.resource_version or resource_version
                token = page.continue_token
            else:
                body = parse_json(data, status, "GET", path)
                meta = body.get("metadata") or {}
                for raw in body.get("items") or []:
                    obj = self._decode(raw)
                    if obj is not None:
                        items[key_of_raw(self.info, raw)] = obj
                resource_version = str(meta.get("resourceVersion") or resource_version)
                token = str(meta.get("continue") or "")
            if not token:
                break
        self.lists += 1
        self._not_served_logged = False
        self._replace(items)
        self.resource_version = resource_version
        self._backoff.reset()
        self.failing_since = None
        self.synced.set()

    async def _watch(self) -> int:
        """One watch, until the server ends it; the number of events delivered."""
        path = collection_path(self.info)
        timeout = self._settings.min_watch_timeout * (1.0 + self._rng.random())
        query = [
            ("watch", "true"),
            ("resourceVersion", self.resource_version),
            ("allowWatchBookmarks", "true"),
            ("timeoutSeconds", str(max(1, int(timeout)))),
            *self._query(),
        ]
        delivered = 0
        self.watches += 1
        async with self._transport.stream(path, query=query, timeout=timeout + 30.0) as lines:
            self.failing_since = None  # the server answered: a quiet watch is a healthy one
            async for line in lines:
                change = decode_event(self.info, line)
                if change is not None:  # the usual event, validated straight from the line
                    kind, obj = change
                    self._apply_decoded(kind, object_key(self.info, obj), obj)
                    delivered += 1
                    if obj.metadata.resource_version:
                        self.resource_version = str(obj.metadata.resource_version)
                    continue
                event = json.loads(line)
                kind = event.get("type")
                raw = event.get("object") or {}
                if kind == "ERROR":
                    raise error_from_status(raw, method="GET", path=path)
                version = (raw.get("metadata") or {}).get("resourceVersion")
                if kind in ("ADDED", "MODIFIED", "DELETED"):
                    self._apply(kind, raw)
                    delivered += 1
                if version:
                    self.resource_version = str(version)
        return delivered

    # -- the cache ----------------------------------------------------------------------
    def _decode(self, raw: dict[str, Any]) -> Any | None:
        try:
            return decode(self.info, raw)
        except DecodeError as exc:
            _log.error("Left out an object: %s", exc)
            return None

    def _apply(self, kind: WatchEventType, raw: dict[str, Any]) -> None:
        self._apply_decoded(kind, key_of_raw(self.info, raw), self._decode(raw))

    def _apply_decoded(self, kind: WatchEventType, key: str, obj: Any | None) -> None:
        """A watch event whose object decoded to `obj` (None: it did not)."""
        old = self.store.get(key)
        if kind == "DELETED":
            if old is None:
                return  # never cached (it did not decode): nothing to take back
            del self.store[key]
            self._emit(WatchEvent("DELETED", self.info.kind, obj if obj is not None else old))
            return
        if obj is None:
            return  # keep the last version that decoded
        self._put(key, obj, old)

    def _put(self, key: str, obj: Any, old: Any | None) -> None:
        self.store[key] = obj
        if old is None:
            self._emit(WatchEvent("ADDED", self.info.kind, obj))
        elif old.metadata.uid != obj.metadata.uid:
            # deleted and created again under the same name while we were not looking
            self._emit(WatchEvent("DELETED", self.info.kind, old))
            self._emit(WatchEvent("ADDED", self.info.kind, obj))
        else:
            self._emit(WatchEvent("MODIFIED", self.info.kind, obj, old))

    def _replace(self, items: dict[str, Any]) -> None:
        """A fresh list: tell handlers what differs from the cache (client-go Replace)."""
        for key in [k for k in self.store if k not in items]:
            self._emit(WatchEvent("DELETED", self.info.kind, self.store.pop(key)))
        for key, obj in items.items():
            old = self.store.get(key)
            if old is not None and old.metadata.resource_version == obj.metadata.resource_version:
                continue
            self._put(key, obj, old)

    def _emit(self, event: WatchEvent) -> None:
        for handler in tuple(self.handlers):
            self._call(handler, event)

    def _call(self, handler: EventHandler, event: WatchEvent) -> None:
        try:
            handler(event)
        except Exception:
            _log.exception("Watch handler failed on %s %s", event.type, event.kind)

    def _not_served(self) -> None:
        if not self._not_served_logged:
            _log.warning(
                "The API server does not serve %s (%s): treated as empty until it does",
                self.info.plural,
                self.info.api_version,
            )
            self._not_served_logged = True
        self._replace({})
        self.resource_version = ""
        self.synced.set()


def _verb(listing: bool) -> str:
    return "list" if listing else "watch"
