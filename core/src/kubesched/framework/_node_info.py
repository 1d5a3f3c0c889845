"""NodeInfo: a node with the aggregate of the pods on it.

Upstream: pkg/scheduler/framework/types.go (NodeInfo, HostPortInfo). Every change bumps a
global generation, which is how the cache knows which nodes a snapshot must refresh.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from kubesched.api import Node, Pod, resource_units
from kubesched.framework._pod_info import PodInfo
from kubesched.framework._resource import Resource

__all__ = ["HostPortInfo", "ImageStateSummary", "NodeInfo", "next_generation"]

_generation = itertools.count(1)


def next_generation() -> int:
    return next(_generation)


_ANY_IP = "0.0.0.0"


class HostPortInfo:
    """Host ports in use on a node: ip → {(protocol, port)}; 0.0.0.0 conflicts with any ip."""

    __slots__ = ("_ports",)

    def __init__(self) -> None:
        self._ports: dict[str, dict[tuple[str, int], int]] = {}

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        used = self._ports.setdefault(ip or _ANY_IP, {})
        key = (protocol or "TCP", port)
        used[key] = used.get(key, 0) + 1

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip = ip or _ANY_IP
        used = self._ports.get(ip)
        key = (protocol or "TCP", port)
        if used is None or key not in used:
            return
        used[key] -= 1
        if used[key] == 0:
            del used[key]
            if not used:
                del self._ports[ip]

    def conflicts(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip = ip or _ANY_IP
        key = (protocol or "TCP", port)
        if ip == _ANY_IP:
            return any(key in used for used in self._ports.values())
        return key in self._ports.get(ip, {}) or key in self._ports.get(_ANY_IP, {})

    def __len__(self) -> int:
        return sum(len(v) for v in self._ports.values())

    def clone(self) -> HostPortInfo:
        c = HostPortInfo()
        c._ports = {ip: dict(used) for ip, used in self._ports.items()}
        return c


class ImageStateSummary:
    """An image on a node: its size and on how many nodes of the cluster it is."""

    __slots__ = ("num_nodes", "size")

    def __init__(self, size: int, num_nodes: int) -> None:
        self.size: int = size
        self.num_nodes: int = num_nodes


class NodeInfo:
    """A node and the pods assigned (or assumed) to it."""

    __slots__ = (
        "allocatable",
        "generation",
        "image_states",
        "name",
        "node",
        "non_zero_requested",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "requested",
        "used_ports",
    )

    def __init__(self, node: Node | None = None, pods: Iterable[PodInfo] = ()) -> None:
        self.node: Node | None = None
        self.name: str = ""
        """The node's name ("" while the node object is missing)."""
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self.used_ports: HostPortInfo = HostPortInfo()
        self.requested: Resource = Resource()
        self.non_zero_requested: Resource = Resource()
        self.allocatable: Resource = Resource()
        self.image_states: dict[str, ImageStateSummary] = {}
        self.generation: int = next_generation()
        if node is not None:
            self.set_node(node)
        for p in pods:
            self.add_pod_info(p)

    def set_node(self, node: Node) -> None:
        self.node = node
        self.name = node.metadata.name
        self.allocatable = Resource.from_mapping(
            {name: resource_units(name, q) for name, q in node.allocatable.items()}
        )
        self.generation = next_generation()

    def remove_node(self) -> None:
        self.node = None
        self.name = ""
        self.generation = next_generation()

    def add_pod_info(self, pod_info: PodInfo) -> None:
        self.pods.append(pod_info)
        if pod_info.has_affinity:
            self.pods_with_affinity.append(pod_info)
        if pod_info.required_anti_affinity_terms:
            self.pods_with_required_anti_affinity.append(pod_info)
        self._account(pod_info, 1)

    def add_pod(self, pod: Pod) -> None:
        self.add_pod_info(PodInfo(pod))

    def remove_pod(self, pod: Pod) -> bool:
        """Remove the pod with this pod's UID; False when it was not on the node."""
        return self.pop_pod(pod) is not None

    def pop_pod(self, pod: Pod) -> PodInfo | None:
        """Remove the pod with this pod's UID and return its PodInfo; None when it was not
        on the node."""
        uid = pod.metadata.uid
        pods = self.pods
        # newest first: the pod a confirmation or a forget takes out was mostly added last
        # (UIDs are unique on a node, so the direction does not change which one is found)
        for i in range(len(pods) - 1, -1, -1):
            p = pods[i]
            if p.pod.metadata.uid == uid:
                del pods[i]
                if self.pods_with_affinity:
                    self.pods_with_affinity = [
                        q for q in self.pods_with_affinity if q.pod.metadata.uid != uid
                    ]
                if self.pods_with_required_anti_affinity:
                    self.pods_with_required_anti_affinity = [
                        q
                        for q in self.pods_with_required_anti_affinity
                        if q.pod.metadata.uid != uid
                    ]
                self._account(p, -1)
                return p
        return None

    def _account(self, pod_info: PodInfo, sign: int) -> None:
        self.requested.add_resource(pod_info.requests, sign)
        self.non_zero_requested.milli_cpu += sign * pod_info.non_zero_requests.milli_cpu
        self.non_zero_requested.memory += sign * pod_info.non_zero_requests.memory
        for ip, protocol, port in pod_info.host_ports:
            if sign > 0:
                self.used_ports.add(ip, protocol, port)
            else:
                self.used_ports.remove(ip, protocol, port)
        self.generation = next_generation()

    def clone(self) -> NodeInfo:
        """A copy whose pod lists and aggregates can change without touching this one."""
        c = NodeInfo.__new__(NodeInfo)
        c.node = self.node
        c.name = self.name
        c.pods = list(self.pods)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.used_ports = self.used_ports.clone()
        c.requested = self.requested.clone()
        c.non_zero_requested = self.non_zero_requested.clone()
        c.allocatable = self.allocatable.clone()
        c.image_states = dict(self.image_states)
        c.generation = self.generation
        return c

    def __repr__(self) -> str:
        return f"NodeInfo({self.name}, pods={len(self.pods)}, requested={self.requested!r})"
