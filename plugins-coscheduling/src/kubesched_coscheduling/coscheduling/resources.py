"""The `minResources` precondition: does the cluster, summed over nodes, have room?

Upstream: scheduler-plugins pkg/coscheduling/core/core.go (CheckClusterResource,
getNodeResource). Each node's free capacity is allocatable minus requested, counting the
group's own pods on it (bound or assumed) as absent; requirements are subtracted node by
node until every one is covered. It is an aggregate: two 4-CPU nodes satisfy 6 CPUs that no
single node has, which is why the plugin also packs members (see `feasibility`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from kubesched.api import (
    CPU,
    EPHEMERAL_STORAGE,
    MEMORY,
    PODS,
    ResourceList,
    format_quantity,
    resource_units,
)
from kubesched.framework import NodeInfo
from kubesched_coscheduling.podgroup.types import pod_group_key

__all__ = ["check_cluster_resource", "min_resources_request"]


def min_resources_request(min_resources: ResourceList, min_member: int) -> dict[str, int]:
    """`minResources` in scheduler units plus the implicit `pods: minMember`."""
    request = {name: resource_units(name, q) for name, q in min_resources.items()}
    request[PODS] = min_member
    return request


def _free(info: NodeInfo, group: str) -> dict[str, int]:
    """What is left on the node, the group's own pods counting as absent."""
    requested = info.requested.clone()
    pods = len(info.pods)
    for p in info.pods:
        if pod_group_key(p.pod) == group:
            requested.add_resource(p.requests, -1)
            pods -= 1
    allocatable = info.allocatable
    free = {
        CPU: allocatable.milli_cpu - requested.milli_cpu,
        MEMORY: allocatable.memory - requested.memory,
        EPHEMERAL_STORAGE: allocatable.ephemeral_storage - requested.ephemeral_storage,
        PODS: allocatable.allowed_pod_number - pods,
    }
    for name, amount in allocatable.scalar.items():
        free[name] = amount - requested.scalar.get(name, 0)
    return free


def check_cluster_resource(
    nodes: Sequence[NodeInfo], request: Mapping[str, int], group: str
) -> str | None:
    """None when the nodes together cover `request`; otherwise the message naming what is
    still missing, as quantities (`resource gap: cpu=2, pods=1`)."""
    missing = dict(request)
    for info in nodes:
        if info.node is None:
            continue
        free = _free(info, group)
        for name in list(missing):
            left = missing[name] - free.get(name, 0)
            if left <= 0:
                del missing[name]
            else:
                missing[name] = left
        if not missing:
            return None
    gap = ", ".join(f"{name}={_show(name, amount)}" for name, amount in sorted(missing.items()))
    return f"resource gap: {gap}"


def _show(name: str, amount: int) -> str:
    return format_quantity(Fraction(amount, 1000)) if name == CPU else str(amount)
