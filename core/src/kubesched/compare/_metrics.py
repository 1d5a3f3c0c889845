"""What one run says about a configuration: how many pods it placed and why not the others,
how it used the nodes (nodes used, utilization spread and packing, the largest pod that
still fits), how even it spread pods over zones, preemptions, and gangs' time to quorum.

Utilization is requested / allocatable per node (as the scheduler counts requests); CPU in
millicores, memory in bytes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from kubesched.api import Pod
from kubesched.cluster import Cluster
from kubesched.report import ZONE_LABEL, json_document
from kubesched.simulate import NodeAllocation, SimulationResult
from kubesched.simulate._results import PLACED

__all__ = ["RESOURCES", "placements", "run_metrics", "zone_skew"]

RESOURCES: Final = ("cpu", "memory")
"""The resources utilization and fragmentation are measured on."""


def run_metrics(result: SimulationResult, cluster: Cluster | None) -> dict[str, Any]:
    """The metrics of one run (`RunMetrics`)."""
    nodes = result.nodes
    used = [n for n in nodes if n.pods]
    document = json_document(result, summary_only=True)
    return {
        "summary": document["summary"],
        "reasons": document["reasons"],
        "nodesUsed": len(used),
        "utilization": {r: _spread(_fractions(nodes, r)) for r in RESOURCES},
        "packing": {r: _mean(_fractions(used, r)) for r in RESOURCES},
        "largestFree": {r: max((_free(n, r) for n in nodes), default=0) for r in RESOURCES},
        "free": {r: sum(_free(n, r) for n in nodes) for r in RESOURCES},
        "zoneSkew": zone_skew(cluster) if cluster is not None else None,
        "preemptions": sum(1 for p in result.pods if p.preempted_by is not None),
        "gangs": _gangs(result),
        "latency": result.latency,
        "nodes": [n.to_json_dict() for n in nodes],
    }


def _fractions(nodes: Iterable[NodeAllocation], resource: str) -> list[float]:
    return [
        n.requested.get(resource, 0) / n.allocatable[resource]
        for n in nodes
        if n.allocatable.get(resource)
    ]


def _free(node: NodeAllocation, resource: str) -> int:
    return max(0, node.allocatable.get(resource, 0) - node.requested.get(resource, 0))


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _spread(values: Sequence[float]) -> dict[str, float | None]:
    """Mean, population standard deviation, min and max of per-node fractions."""
    mean = _mean(values)
    if mean is None:
        return {"mean": None, "stddev": None, "min": None, "max": None}
    variance = sum((v - mean) ** 2 for v in values) / len(values)
    return {
        "mean": mean,
        "stddev": round(math.sqrt(variance), 4),
        "min": round(min(values), 4),
        "max": round(max(values), 4),
    }


def _group(pod: Pod) -> str:
    """The pods a spread is measured over: a pod's controller (owner), else its `app`
    label, else the pod itself."""
    meta = pod.metadata
    namespace = meta.namespace or "default"
    for owner in meta.owner_references:
        if owner.controller:
            return f"{namespace}/{owner.kind}/{owner.name}"
    app = meta.labels.get("app")
    return f"{namespace}/app={app}" if app else f"{namespace}/{meta.name}"


def zone_skew(cluster: Cluster) -> dict[str, Any]:
    """Bound pods per zone, and per group of pods (`_group`) the skew: the most minus the
    fewest of its pods in a zone, over every zone with a node (PodTopologySpread's skew
    with topologyKey topology.kubernetes.io/zone)."""
    zone_of = {
        n.metadata.name: n.metadata.labels[ZONE_LABEL]
        for n in cluster.list("Node")
        if ZONE_LABEL in n.metadata.labels
    }
    zones = sorted(set(zone_of.values()))
    per_zone = dict.fromkeys(zones, 0)
    groups: dict[str, dict[str, int]] = {}
    for pod in cluster.list("Pod"):
        zone = zone_of.get(pod.spec.node_name or "")
        if zone is None or pod.is_terminal:
            continue
        per_zone[zone] += 1
        counts = groups.setdefault(_group(pod), dict.fromkeys(zones, 0))
        counts[zone] += 1
    skews = {g: max(c.values()) - min(c.values()) for g, c in sorted(groups.items())}
    return {"podsPerZone": per_zone, "max": max(skews.values(), default=0), "groups": skews}


def _gangs(result: SimulationResult) -> dict[str, Any] | None:
    """PodGroups placed and their time to quorum (the `podGroups` section of
    kubesched-coscheduling), or None when the run has no PodGroup."""
    sections: Mapping[str, Any] = {s.key: s.payload for s in result.sections}
    groups = sections.get("podGroups")
    if not isinstance(groups, list) or not groups:
        return None
    times = [g["timeToQuorumSeconds"] for g in groups if g.get("timeToQuorumSeconds") is not None]
    return {
        "total": len(groups),
        "placed": sum(1 for g in groups if g.get("scheduled") == "True"),
        "timeToQuorum": {
            "mean": _mean(times),
            "max": max(times, default=None),
        },
    }


def placements(result: SimulationResult) -> dict[str, str]:
    """Pod key → where it ended: its node when placed, else its status."""
    return {
        f"{p.namespace}/{p.name}": (p.node or p.status) if p.status in PLACED else p.status
        for p in result.pods
    }
