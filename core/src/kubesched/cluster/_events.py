"""The parts of an Event beyond its text: object references, series, and write failures.

Upstream: k8s.io/api events/v1 (Event, EventSeries), core/v1 ObjectReference, and
client-go tools/reference GetReference, which fills a reference from an object's metadata.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubesched._errors import KubeschedError

__all__ = ["EventSeries", "EventWriteError", "ObjectRef", "event_name", "unix_nanos"]


def unix_nanos(when: datetime) -> int:
    """`when` as Go's `time.UnixNano()` (exact: no float rounding)."""
    return int(when.timestamp()) * 1_000_000_000 + when.microsecond * 1000


def event_name(regarding_name: str, when: datetime) -> str:
    """`<name>.<hex nanoseconds>`, as client-go's recorders name Events (makeEvent)."""
    return f"{regarding_name}.{unix_nanos(when):x}"


@dataclass(frozen=True)
class ObjectRef:
    """A core/v1 ObjectReference as client-go's `reference.GetReference` fills it: the
    object's apiVersion, kind, namespace, name, uid and resourceVersion at that moment."""

    api_version: str
    kind: str
    namespace: str
    name: str
    uid: str = ""
    resource_version: str = ""

    @classmethod
    def of(cls, obj: Any) -> ObjectRef:
        """The reference to a model with `metadata` (a Pod, a PodGroup ...), or `obj` itself
        when it is one."""
        if isinstance(obj, ObjectRef):
            return obj
        meta = obj.metadata
        return cls(
            api_version=str(getattr(obj, "api_version", "") or "v1"),
            kind=str(getattr(obj, "kind", "") or type(obj).__name__),
            namespace=meta.namespace or "",
            name=meta.name,
            uid=meta.uid or "",
            resource_version=meta.resource_version or "",
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (empty fields omitted, as `omitempty` does)."""
        fields = {
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
            "uid": self.uid,
            "apiVersion": self.api_version,
            "resourceVersion": self.resource_version,
        }
        return {k: v for k, v in fields.items() if v}


@dataclass(frozen=True)
class EventSeries:
    """events.k8s.io/v1 EventSeries: how often an isomorphic event has been seen and when
    last. `last_observed` is the same moment on the scheduler's clock (monotonic seconds)."""

    count: int
    last_observed_time: datetime
    last_observed: float


class EventWriteError(KubeschedError):
    """An Event the API server did not take.

    `retry`: trying again may succeed (the server could not be reached, answered 5xx or
    429); `already_exists`: a create found an Event of that name. Anything else means the
    request itself was refused (403, 422 ...) and would be refused again.
    """

    def __init__(self, detail: str, *, retry: bool = False, already_exists: bool = False):
        super().__init__(detail, retry, already_exists)
        self.detail = detail
        self.retry = retry
        self.already_exists = already_exists

    def __str__(self) -> str:
        return self.detail
