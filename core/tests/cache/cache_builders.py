"""Small builders for the cache tests: nodes with zones and images, pods with requests."""

from __future__ import annotations

from kubesched.api import (
    Affinity,
    Container,
    ContainerImage,
    LabelSelector,
    Node,
    NodeSpec,
    NodeStatus,
    ObjectMeta,
    Pod,
    PodAffinityTerm,
    PodAntiAffinity,
    PodSpec,
    ResourceRequirements,
)
from kubesched.cache import LABEL_TOPOLOGY_REGION, LABEL_TOPOLOGY_ZONE

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
    all_labels = dict(labels or {})
    if zone is not None:
        all_labels[LABEL_TOPOLOGY_ZONE] = zone
    if region is not None:
        all_labels[LABEL_TOPOLOGY_REGION] = region
    return Node(
        metadata=ObjectMeta(name=name, labels=all_labels),
        spec=NodeSpec(),
        status=NodeStatus(
            allocatable={"cpu": cpu, "memory": memory, "pods": "110"},
            images=[
                ContainerImage(names=names.split(","), size_bytes=size)
                for names, size in (images or {}).items()
            ],
        ),
    )


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
    requests: dict[str, str] = {}
    if cpu is not None:
        requests["cpu"] = cpu
    if memory is not None:
        requests["memory"] = memory
    affinity = None
    if anti_affinity:
        term = PodAffinityTerm(
            label_selector=LabelSelector(match_labels={"app": name}),
            topology_key="kubernetes.io/hostname",
        )
        affinity = Affinity(
            pod_anti_affinity=PodAntiAffinity(
                required_during_scheduling_ignored_during_execution=[term]
            )
        )
    return Pod(
        metadata=ObjectMeta(name=name, namespace=namespace, uid=uid or f"uid-{name}"),
        spec=PodSpec(
            node_name=node,
            affinity=affinity,
            containers=[
                Container(
                    name="c",
                    resources=ResourceRequirements(requests=requests),
                )
            ],
        ),
    )
