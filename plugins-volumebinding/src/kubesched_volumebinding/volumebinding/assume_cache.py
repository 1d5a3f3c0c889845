"""The assume cache: the informer's view of PVs and PVCs, plus in-memory assumptions.

Upstream: pkg/scheduler/util/assumecache/assume_cache.go and volumebinding/assume_cache.go.
Reserve decides a PV↔PVC pairing (or a claim's node) long before PreBind writes it, while
the next pods are already being scheduled; the cache lets them see the decision at once.

Per key it holds the last object the informer delivered (`api`) and the newest one
(`latest`, either the same object or an assumed copy). The rules:

- an informer add/update replaces the entry only when its integer resourceVersion is
  strictly newer than the latest one (so a resync never undoes an assumption);
- a delete drops the entry, assumption and all;
- `assume` needs an existing entry and a resourceVersion at least the latest one's;
- `restore` puts the informer's object back (a no-op for a deleted key) and tells the
  restore handlers, as upstream's generic assume cache tells its event handlers: nothing
  was written, so no watch event will say that the object is free again.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable
from typing import Final, Generic, TypeVar

from kubesched.cluster import WatchEvent
from kubesched_volumebinding.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    resource_version,
    volume_class,
)
from kubesched_volumebinding.volumebinding.volume_index import ClassVolumeIndex, ClassVolumes

__all__ = [
    "AssumeCache",
    "AssumeCacheError",
    "NotFoundInCacheError",
    "PVAssumeCache",
    "PVCAssumeCache",
]

_log = logging.getLogger("kubesched.volumebinding")

_T = TypeVar("_T")

PV_DESCRIPTION: Final = "v1.PersistentVolume"
PVC_DESCRIPTION: Final = "v1.PersistentVolumeClaim"
_NO_VOLUMES: Final = ClassVolumeIndex().snapshot()


class AssumeCacheError(Exception):
    """An assumption the cache refuses (out of sync, unparseable version)."""


class NotFoundInCacheError(AssumeCacheError, KeyError):
    """No object under that key (upstream assumecache.NotFoundError)."""

    def __init__(self, description: str, key: str) -> None:
        super().__init__(description, key)
        self.description = description
        self.key = key

    def __str__(self) -> str:
        return f'could not find {self.description} "{self.key}"'


class _Entry(Generic[_T]):
    __slots__ = ("api", "latest")

    def __init__(self, obj: _T) -> None:
        self.api = obj
        self.latest = obj


class AssumeCache(Generic[_T]):
    """Objects by key with assumptions on top; `index` groups `list` results (by class)."""

    def __init__(
        self,
        description: str,
        key: Callable[[_T], str],
        index: Callable[[_T], str] | None = None,
    ) -> None:
        self.description = description
        self._key = key
        self._index = index
        self._entries: dict[str, _Entry[_T]] = {}
        self._restore_handlers: list[Callable[[_T, _T], None]] = []

    def add_restore_handler(self, handler: Callable[[_T, _T], None]) -> None:
        """Call `handler(assumed, informer_object)` whenever `restore` undoes an
        assumption (a restore with nothing assumed calls nothing)."""
        self._restore_handlers.append(handler)

    # -- informer side ------------------------------------------------------------------
    def on_watch_event(self, event: WatchEvent) -> None:
        """A cluster watch handler: ADDED/MODIFIED add, DELETED deletes."""
        if event.type == "DELETED":
            self.delete(event.obj)
        else:
            self.add(event.obj)

    def add(self, obj: _T) -> None:
        """Store the informer's object unless the stored one is as new or newer."""
        key = self._key(obj)
        entry = self._entries.get(key)
        if entry is not None:
            try:
                new, stored = resource_version(obj), resource_version(entry.latest)
            except ValueError as exc:
                _log.error("%s %r: add failed: %s", self.description, key, exc)
                return
            if new <= stored:
                return
        self._entries[key] = _Entry(obj)
        self._changed(key, entry.latest if entry is not None else None, obj)

    def delete(self, obj: _T) -> None:
        key = self._key(obj)
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._changed(key, entry.latest, None)

    def _changed(self, key: str, old: _T | None, new: _T | None) -> None:
        """The latest object of `key` went from `old` to `new` (None: absent); a subclass
        keeps its indexes here."""

    # -- readers ------------------------------------------------------------------------
    def get(self, key: str) -> _T:
        """The latest object (assumed or not); NotFoundInCacheError when absent."""
        return self._entry(key).latest

    def get_api_obj(self, key: str) -> _T:
        """The informer's object, ignoring assumptions."""
        return self._entry(key).api

    def list(self, index_value: str | None = None) -> list[_T]:
        """Latest objects, in key order; with `index_value`, only those whose index (of the
        latest object) equals it."""
        out = [self._entries[k].latest for k in sorted(self._entries)]
        if index_value is None or self._index is None:
            return out
        index = self._index
        return [obj for obj in out if index(obj) == index_value]

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def is_assumed(self, key: str) -> bool:
        entry = self._entries.get(key)
        return entry is not None and entry.latest is not entry.api

    def assumed_keys(self) -> builtins.list[str]:
        """Keys whose latest object is an assumption (for leak checks in tests)."""
        return sorted(k for k, e in self._entries.items() if e.latest is not e.api)

    # -- assumptions --------------------------------------------------------------------
    def assume(self, obj: _T) -> None:
        """Make `obj` the latest object of its key, in memory only.

        Its resourceVersion must be at least the latest one's; an equal version is the
        normal case (a modified copy of what the informer delivered).
        """
        key = self._key(obj)
        entry = self._entry(key)
        try:
            new = resource_version(obj)
            stored = resource_version(entry.latest)
        except ValueError as exc:
            raise AssumeCacheError(f'{exc} for {self.description} "{key}"') from None
        if new < stored:
            raise AssumeCacheError(
                f'{self.description} "{key}" is out of sync (stored: {stored}, assume: {new})'
            )
        old, entry.latest = entry.latest, obj
        self._changed(key, old, obj)

    def restore(self, key: str) -> None:
        """Back to the informer's object; nothing happens for a key that is gone or has
        nothing assumed. Restore handlers are told of an assumption undone."""
        entry = self._entries.get(key)
        if entry is None or entry.latest is entry.api:
            return
        assumed, entry.latest = entry.latest, entry.api
        self._changed(key, assumed, entry.api)
        for handler in self._restore_handlers:
            handler(assumed, entry.api)

    def _entry(self, key: str) -> _Entry[_T]:
        entry = self._entries.get(key)
        if entry is None:
            raise NotFoundInCacheError(self.description, key)
        return entry


def _pv_key(pv: PersistentVolume) -> str:
    return pv.metadata.name


def _pvc_key(pvc: PersistentVolumeClaim) -> str:
    return pvc.key


class PVAssumeCache(AssumeCache[PersistentVolume]):
    """PVs by name, listed by storage class (of the latest object), each class's PVs
    indexed for VolumeBinding's Filter (`volume_index.py`) as they change."""

    def __init__(self) -> None:
        super().__init__(PV_DESCRIPTION, _pv_key, volume_class)
        self._classes: dict[str, ClassVolumeIndex] = {}

    def _changed(
        self, key: str, old: PersistentVolume | None, new: PersistentVolume | None
    ) -> None:
        if old is not None:
            name = volume_class(old)
            index = self._classes[name]
            index.remove(key)
            if not len(index):
                del self._classes[name]
        if new is not None:
            self._classes.setdefault(volume_class(new), ClassVolumeIndex()).put(new)

    def list_pvs(self, storage_class: str) -> builtins.list[PersistentVolume]:
        """The class's latest PVs, in name order."""
        return builtins.list(self.class_volumes(storage_class))

    def class_volumes(self, storage_class: str) -> ClassVolumes:
        """The class's latest PVs as they are now (an immutable, indexed sequence)."""
        index = self._classes.get(storage_class)
        return index.snapshot() if index is not None else _NO_VOLUMES


class PVCAssumeCache(AssumeCache[PersistentVolumeClaim]):
    """PVCs by `namespace/name`."""

    def __init__(self) -> None:
        super().__init__(PVC_DESCRIPTION, _pvc_key)
