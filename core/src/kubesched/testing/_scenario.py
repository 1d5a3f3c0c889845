"""Scenarios: the inputs the conformance kit hands a plugin.

A `Scenario` is one scheduling decision: nodes, the pods already on them, and the pod to
place. A `ClusterScenario` is a whole cluster for an end-to-end run: nodes, pods already
bound and pods waiting to be scheduled. Both are plain data (no pytest, no hypothesis), so
plugin packages can write their own by hand as well as draw them from
`kubesched.testing.strategies`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.api import PODS, Node, Pod, pod_requests, resource_units
from kubesched.framework import NodeInfo, PodInfo, Snapshot

__all__ = ["ClusterScenario", "Scenario", "describe_node", "describe_pod", "fits_on"]


@dataclass(frozen=True)
class Scenario:
    """One decision: place `pod` among `nodes`, on which `existing` pods already run.

    Every pod in `existing` names its node in `spec.nodeName`; `pod` names none unless the
    scenario is about `spec.nodeName` itself. `other` is one more pod, already bound,
    used by checks that add and remove a pod hypothetically (PreFilterExtensions).
    """

    nodes: Sequence[Node]
    existing: Sequence[Pod]
    pod: Pod
    other: Pod | None = None

    def node_infos(self) -> list[NodeInfo]:
        """Fresh NodeInfos: each node with the existing pods that name it."""
        by_node: dict[str, list[PodInfo]] = {n.metadata.name: [] for n in self.nodes}
        for p in self.existing:
            if p.spec.node_name in by_node:
                by_node[p.spec.node_name].append(PodInfo(p))
        return [NodeInfo(n, by_node[n.metadata.name]) for n in self.nodes]

    def snapshot(self) -> Snapshot:
        return Snapshot(self.node_infos())

    def describe(self) -> str:
        """A compact, readable account of the scenario (for failure reports)."""
        lines = ["Scenario:"]
        lines += [f"  node {describe_node(n)}" for n in self.nodes]
        lines += [f"  running: {describe_pod(p)}" for p in self.existing]
        lines.append(f"  pod to place: {describe_pod(self.pod)}")
        if self.other is not None:
            lines.append(f"  pod added and removed: {describe_pod(self.other)}")
        return "\n".join(lines)


@dataclass(frozen=True)
class ClusterScenario:
    """A cluster for an end-to-end run: `bound` pods fit their nodes; `pending` wait."""

    nodes: Sequence[Node]
    bound: Sequence[Pod] = ()
    pending: Sequence[Pod] = ()
    extra: Sequence[object] = field(default_factory=tuple)
    """Other objects to create first (PriorityClasses, PodGroups, PVCs ...)."""

    def describe(self) -> str:
        """A compact, readable account of the cluster (for failure reports)."""
        lines = ["Cluster:"]
        lines += [f"  node {describe_node(n)}" for n in self.nodes]
        lines += [f"  running: {describe_pod(p)}" for p in self.bound]
        lines += [f"  pending: {describe_pod(p)}" for p in self.pending]
        lines += [f"  object: {type(o).__name__} {getattr(o, 'metadata', '')}" for o in self.extra]
        return "\n".join(lines)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def describe_node(node: Node) -> str:
    """`name: allocatable {...}; labels {...}; ...`, leaving out what is empty."""
    data = node.to_dict()
    parts = [f"{node.metadata.name}: allocatable {_compact(data['status'].get('allocatable'))}"]
    labels = dict(node.metadata.labels)
    if labels:
        parts.append(f"labels {_compact(labels)}")
    spec = {k: v for k, v in data.get("spec", {}).items() if v}
    if spec:
        parts.append(f"spec {_compact(spec)}")
    return "; ".join(parts)


def describe_pod(pod: Pod) -> str:
    """`namespace/name [on node]: requests {...}; labels {...}; spec {...}`."""
    spec = {
        k: v
        for k, v in pod.to_dict().get("spec", {}).items()
        if v and k not in ("containers", "nodeName", "schedulerName")
    }
    where = f" on {pod.spec.node_name}" if pod.spec.node_name else ""
    parts = [f"{pod.key}{where}: requests {_compact(pod_requests(pod))}"]
    if pod.metadata.labels:
        parts.append(f"labels {_compact(dict(pod.metadata.labels))}")
    ports = [p.host_port for c in pod.spec.containers for p in c.ports if p.host_port]
    if ports:
        parts.append(f"hostPorts {ports}")
    if spec:
        parts.append(f"spec {_compact(spec)}")
    return "; ".join(parts)


def fits_on(pod: Pod, node: Node, already: Sequence[Pod]) -> bool:
    """Whether `pod` fits `node`'s allocatable next to `already` (every requested resource
    and the pod count): the rule the end-to-end check holds the scheduler to."""
    allocatable = {name: resource_units(name, q) for name, q in node.allocatable.items()}
    used: dict[str, int] = {}
    for p in (*already, pod):
        for name, amount in pod_requests(p).items():
            used[name] = used.get(name, 0) + amount
    if len(already) + 1 > allocatable.get(PODS, 0):
        return False
    return all(amount <= allocatable.get(name, 0) for name, amount in used.items() if amount)
