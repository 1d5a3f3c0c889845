"""Builders for pods and nodes in tests: `make_pod("p").req(cpu="1").label(app="a")`.

Each method returns the builder, `.obj()` the validated model. Quantities are written as
in manifests ("500m", "1Gi").
"""

from __future__ import annotations

from typing import Any

from kubesched.api import Node, Pod

__all__ = ["NodeBuilder", "PodBuilder", "make_node", "make_pod"]


_EMPTY: dict[str, Any] = {"name": "c0", "image": "pause"}


def requirements(requests: dict[str, str | int]) -> dict[str, Any]:
    """Requests, and for an extended resource (`example.com/gpu`) the equal limit the API
    server requires."""
    limits = {
        k: v
        for k, v in requests.items()
        if k.startswith("hugepages-") or ("/" in k and "kubernetes.io/" not in k)
    }
    resources: dict[str, Any] = {"requests": dict(requests)}
    if limits:
        resources["limits"] = limits
    return resources


class PodBuilder:
    def __init__(self, name: str, namespace: str = "default", uid: str | None = None) -> None:
        self._d: dict[str, Any] = {
            "metadata": {"name": name, "namespace": namespace, "uid": uid or f"uid-{name}"},
            "spec": {"containers": []},
        }

    @property
    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = self._d["spec"]
        return spec

    def uid(self, uid: str) -> PodBuilder:
        self._d["metadata"]["uid"] = uid
        return self

    def label(self, **labels: str) -> PodBuilder:
        self._d["metadata"].setdefault("labels", {}).update(labels)
        return self

    def req(self, **requests: str | int) -> PodBuilder:
        """Add a container with these requests (`cpu`, `memory`, `nvidia.com/gpu` via
        `**{"nvidia.com/gpu": 1}`)."""
        n = len(self._spec["containers"])
        self._spec["containers"].append(
            {"name": f"c{n}", "image": "pause", "resources": requirements(requests)}
        )
        return self

    def init_req(self, sidecar: bool = False, **requests: str | int) -> PodBuilder:
        inits = self._spec.setdefault("initContainers", [])
        c: dict[str, Any] = {
            "name": f"i{len(inits)}",
            "image": "pause",
            "resources": requirements(requests),
        }
        if sidecar:
            c["restartPolicy"] = "Always"
        inits.append(c)
        return self

    def container(self, **fields: Any) -> PodBuilder:
        self._spec["containers"].append(fields)
        return self

    def priority(self, value: int) -> PodBuilder:
        self._spec["priority"] = value
        return self

    def scheduler(self, name: str) -> PodBuilder:
        self._spec["schedulerName"] = name
        return self

    def node(self, name: str) -> PodBuilder:
        self._spec["nodeName"] = name
        return self

    def nominated(self, node: str) -> PodBuilder:
        self._d.setdefault("status", {})["nominatedNodeName"] = node
        return self

    def gates(self, *names: str) -> PodBuilder:
        self._spec["schedulingGates"] = [{"name": n} for n in names]
        return self

    def toleration(self, **fields: Any) -> PodBuilder:
        self._spec.setdefault("tolerations", []).append(fields)
        return self

    def node_selector(self, **labels: str) -> PodBuilder:
        self._spec.setdefault("nodeSelector", {}).update(labels)
        return self

    def spec(self, **fields: Any) -> PodBuilder:
        self._spec.update(fields)
        return self

    def obj(self) -> Pod:
        """The pod; one without containers gets an empty one, as the API server needs one."""
        if not self._spec["containers"]:
            return Pod.model_validate({**self._d, "spec": {**self._spec, "containers": [_EMPTY]}})
        return Pod.model_validate(self._d)


class NodeBuilder:
    def __init__(self, name: str) -> None:
        self._d: dict[str, Any] = {
            "metadata": {"name": name, "uid": f"uid-node-{name}"},
            "spec": {},
            "status": {"allocatable": {}},
        }

    def alloc(self, **amounts: str | int) -> NodeBuilder:
        self._d["status"]["allocatable"].update(amounts)
        return self

    def label(self, **labels: str) -> NodeBuilder:
        self._d["metadata"].setdefault("labels", {}).update(labels)
        return self

    def zone(self, zone: str) -> NodeBuilder:
        return self.label(**{"topology.kubernetes.io/zone": zone})

    def unschedulable(self, value: bool = True) -> NodeBuilder:
        self._d["spec"]["unschedulable"] = value
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> NodeBuilder:
        self._d["spec"].setdefault("taints", []).append(
            {"key": key, "value": value, "effect": effect}
        )
        return self

    def obj(self) -> Node:
        return Node.model_validate(self._d)


def make_pod(name: str, namespace: str = "default", uid: str | None = None) -> PodBuilder:
    return PodBuilder(name, namespace, uid)


def make_node(name: str) -> NodeBuilder:
    """A node; with no `.alloc(...)` it has nothing allocatable."""
    return NodeBuilder(name)
