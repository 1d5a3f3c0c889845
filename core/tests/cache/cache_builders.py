"""Small builders for the cache tests: nodes with zones and images, pods with requests."""

from __future__ import annotations

from kubesched.api import Node, Pod
from kubesched.cache import LABEL_TOPOLOGY_REGION, LABEL_TOPOLOGY_ZONE
from kubesched.testing import make_node as node_builder
from kubesched.testing import make_pod as pod_builder

__all__ = ["make_node", "make_pod"]


def make_node(
    name: str,
    *,
    zone: str | None = None,
    region: str | None = None,
    cpu: str = "8",
    memory: str = "16Gi",
    images: dict[str, int] | None = None,
    labels: dict[str, str] | None = None,
) -> Node:
    """A node; `images` maps a name (or several, comma-separated) to its size in bytes."""
    node = node_builder(name).alloc(cpu=cpu, memory=memory, pods="110").label(**(labels or {}))
    if zone is not None:
        node.label(**{LABEL_TOPOLOGY_ZONE: zone})
    if region is not None:
        node.label(**{LABEL_TOPOLOGY_REGION: region})
    for names, size in (images or {}).items():
        node.image(*names.split(","), size=size)
    return node.obj()


def make_pod(
    name: str,
    *,
    node: str = "",
    uid: str | None = None,
    cpu: str | None = "100m",
    memory: str | None = None,
    anti_affinity: bool = False,
    namespace: str = "default",
) -> Pod:
    """A one-container pod; its UID defaults to `uid-<name>`."""
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    pod = pod_builder(name, namespace, uid).node(node).req(**requests)
    if anti_affinity:
        term = {
            "labelSelector": {"matchLabels": {"app": name}},
            "topologyKey": "kubernetes.io/hostname",
        }
        pod.spec(
            affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
        )
    return pod.obj()
