"""The ResourceClaim assume cache: the informer's claims plus the scheduler's newer copies.

upstream: pkg/scheduler/util/assumecache/assume_cache.go, as the scheduler builds it for
claims (description "ResourceClaim", keys `namespace/name`). PreBind writes a claim's
allocation and reservation and assumes the updated object at once, so the next pods see
the devices as taken before the watch event arrives. The rules:

- an informer add/update replaces the entry only when its integer resourceVersion is
  strictly newer than the latest one's (a stale event never undoes an assumption);
- a delete drops the entry, assumption and all;
- `assume` needs an existing entry and a resourceVersion at least the latest one's;
- `restore` puts the informer's object back.

Every change of an entry's latest object is told to the listeners (old, new; None for
absent), as upstream's event handlers are: the allocated-devices tracker and the queue.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

from kubesched.cluster import WatchEvent
from kubesched_dra.api import ResourceClaim

__all__ = ["DESCRIPTION", "AssumeCacheError", "ClaimAssumeCache", "ClaimNotFoundError"]

_log = logging.getLogger("kubesched.dra")

DESCRIPTION: Final = "ResourceClaim"

Listener = Callable[[ResourceClaim | None, ResourceClaim | None], None]


class AssumeCacheError(Exception):
    """An assumption the cache refuses (out of sync, unparseable version)."""


class ClaimNotFoundError(AssumeCacheError, KeyError):
    """No claim under that key (upstream assumecache.NotFoundError)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

    def __str__(self) -> str:
        return f'could not find {DESCRIPTION} "{self.key}"'


def _version(claim: ResourceClaim) -> int:
    text = claim.metadata.resource_version or ""
    try:
        return int(text)
    except ValueError:
        raise ValueError(f'parse resourceVersion "{text}"') from None


class ClaimAssumeCache:
    """Claims by `namespace/name`: per key the informer's object and the latest one."""

    def __init__(self) -> None:
        self._api: dict[str, ResourceClaim] = {}
        self._latest: dict[str, ResourceClaim] = {}
        self._listeners: list[Listener] = []

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def _changed(self, old: ResourceClaim | None, new: ResourceClaim | None) -> None:
        for listener in self._listeners:
            listener(old, new)

    # -- informer side ------------------------------------------------------------------
    def on_watch_event(self, event: WatchEvent) -> None:
        """A cluster watch handler: ADDED/MODIFIED add, DELETED deletes."""
        if event.type == "DELETED":
            self.delete(event.obj)
        else:
            self.add(event.obj)

    def add(self, claim: ResourceClaim) -> None:
        key = claim.key
        latest = self._latest.get(key)
        if latest is not None:
            try:
                if _version(claim) <= _version(latest):
                    return
            except ValueError as exc:
                _log.error("%s %r: add failed: %s", DESCRIPTION, key, exc)
                return
        self._api[key] = self._latest[key] = claim
        self._changed(latest, claim)

    def delete(self, claim: ResourceClaim) -> None:
        key = claim.key
        self._api.pop(key, None)
        latest = self._latest.pop(key, None)
        if latest is not None:
            self._changed(latest, None)

    # -- readers ------------------------------------------------------------------------
    def get(self, key: str) -> ResourceClaim:
        """The latest claim (assumed or not); ClaimNotFoundError when absent."""
        claim = self._latest.get(key)
        if claim is None:
            raise ClaimNotFoundError(key)
        return claim

    def list(self) -> list[ResourceClaim]:
        return [self._latest[key] for key in sorted(self._latest)]

    def is_assumed(self, key: str) -> bool:
        return key in self._latest and self._latest[key] is not self._api[key]

    # -- assumptions --------------------------------------------------------------------
    def assume(self, claim: ResourceClaim) -> None:
        """Make `claim` the latest object of its key, in memory only."""
        key = claim.key
        latest = self.get(key)
        try:
            new, stored = _version(claim), _version(latest)
        except ValueError as exc:
            raise AssumeCacheError(f'{exc} for {DESCRIPTION} "{key}"') from None
        if new < stored:
            raise AssumeCacheError(
                f'{DESCRIPTION} "{key}" is out of sync (stored: {stored}, assume: {new})'
            )
        self._latest[key] = claim
        self._changed(latest, claim)

    def restore(self, key: str) -> bool:
        """Back to the informer's object; whether an assumption was undone (nothing
        happens for a key that is gone or has nothing assumed)."""
        latest = self._latest.get(key)
        api = self._api.get(key)
        if latest is None or api is None or latest is api:
            return False
        self._latest[key] = api
        self._changed(latest, api)
        return True
