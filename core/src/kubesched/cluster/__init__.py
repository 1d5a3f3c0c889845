"""The Cluster interface and its backends (`memory` built in, `kube` with the extra)."""

from kubesched.cluster._interface import (
    Cluster,
    Controller,
    EventHandler,
    KubeEvent,
    WatchEvent,
    object_key,
)

__all__ = ["Cluster", "Controller", "EventHandler", "KubeEvent", "WatchEvent", "object_key"]
