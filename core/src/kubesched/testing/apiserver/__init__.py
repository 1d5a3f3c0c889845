"""A fake Kubernetes API server, and a real one (envtest), for testing and measuring the
`kube` backend (needs the `kube` extra: aiohttp).

- `FakeApiServer`: an in-process API server on 127.0.0.1 with a real one's write semantics
  (resourceVersions, one watch event per change, pods/binding and its conflicts, graceful
  deletion), defaulting and default admission; failures can be injected and every request
  is recorded. kubesched's own tests and `benchmarks/run.py --mode run` use it.
- `node_raw`, `pod_raw`: objects as a kubelet and a client send them; `make_node_ready`:
  the writes a kubelet and the node lifecycle controller make to lift the not-ready taint.
- `Envtest`: etcd + kube-apiserver from ``$KUBEBUILDER_ASSETS`` (the envtest convention),
  with `create_node` making a ready Node on it.
"""

from __future__ import annotations

from kubesched.testing.apiserver._admission import (
    NOT_READY_TAINT_KEY,
    SCHEDULING_GATED_MESSAGE,
    ApiStatusError,
    Raw,
)
from kubesched.testing.apiserver._envtest import (
    ADMIN_TOKEN,
    KUBESCHED_TOKEN,
    KUBESCHED_USER,
    Envtest,
    apply,
    assets,
    create_node,
    free_port,
)
from kubesched.testing.apiserver._node_lifecycle import (
    CONDITION_TAINTS,
    kubelet_ready_status,
    lifecycle_taint_changes,
    make_node_ready,
)
from kubesched.testing.apiserver._server import (
    FakeApiServer,
    Fault,
    Recorded,
    node_raw,
    pod_raw,
    status_body,
)
from kubesched.testing.apiserver._store import (
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    FakeStore,
    Target,
    merge_patch,
    parse_path,
    strategic_merge_patch,
    update_pod_condition,
)

__all__ = [
    "ADMIN_TOKEN",
    "CONDITION_TAINTS",
    "KUBESCHED_TOKEN",
    "KUBESCHED_USER",
    "MERGE_PATCH",
    "NOT_READY_TAINT_KEY",
    "SCHEDULING_GATED_MESSAGE",
    "STRATEGIC_MERGE_PATCH",
    "ApiStatusError",
    "Envtest",
    "FakeApiServer",
    "FakeStore",
    "Fault",
    "Raw",
    "Recorded",
    "Target",
    "apply",
    "assets",
    "create_node",
    "free_port",
    "kubelet_ready_status",
    "lifecycle_taint_changes",
    "make_node_ready",
    "merge_patch",
    "node_raw",
    "parse_path",
    "pod_raw",
    "status_body",
    "strategic_merge_patch",
    "update_pod_condition",
]
