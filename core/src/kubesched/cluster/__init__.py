"""The Cluster interface and its backends (`memory` built in, `kube` with the extra)."""

from kubesched.cluster._events import (
    EventSeries,
    EventWriteError,
    ObjectRef,
    event_name,
    unix_nanos,
)
from kubesched.cluster._interface import (
    Cluster,
    Controller,
    EventHandler,
    KubeEvent,
    WatchEvent,
    object_key,
)
from kubesched.cluster._workqueue import MAX_RETRIES, WorkQueue

__all__ = [
    "MAX_RETRIES",
    "Cluster",
    "Controller",
    "EventHandler",
    "EventSeries",
    "EventWriteError",
    "KubeEvent",
    "ObjectRef",
    "WatchEvent",
    "WorkQueue",
    "event_name",
    "object_key",
    "unix_nanos",
]
