"""The `kube` cluster backend: a real API server (installed with the `kube` extra).

kubernetes_asyncio supplies configuration, authentication and the HTTP session; objects
are decoded straight into kubesched's models by informers of our own (list, watch, resume,
relist on 410). `KubeCluster` implements the same Cluster interface as the memory backend.
`KubeLeaseLock` is the coordination.k8s.io/v1 Lease leader election holds.
"""

from kubesched.cluster.kube._bodies import (
    EVENTS_API_VERSION,
    binding_body,
    event_body,
    legacy_event_body,
    merge_patch,
    pod_status_patch,
    series_patch,
)
from kubesched.cluster.kube._cluster import KubeCluster
from kubesched.cluster.kube._informer import (
    POD_FIELD_SELECTOR,
    Backoff,
    Informer,
    InformerSettings,
)
from kubesched.cluster.kube._lease import KubeLeaseLock, LeaderElectionRecord
from kubesched.cluster.kube._listing import LIST_PAGE_SIZE, list_raw
from kubesched.cluster.kube._resources import DecodeError, collection_path, decode, object_path
from kubesched.cluster.kube._transport import ApiError, RateLimiter, Transport

__all__ = [
    "EVENTS_API_VERSION",
    "LIST_PAGE_SIZE",
    "POD_FIELD_SELECTOR",
    "ApiError",
    "Backoff",
    "DecodeError",
    "Informer",
    "InformerSettings",
    "KubeCluster",
    "KubeLeaseLock",
    "LeaderElectionRecord",
    "RateLimiter",
    "Transport",
    "binding_body",
    "collection_path",
    "decode",
    "event_body",
    "legacy_event_body",
    "list_raw",
    "merge_patch",
    "object_path",
    "pod_status_patch",
    "series_patch",
]
