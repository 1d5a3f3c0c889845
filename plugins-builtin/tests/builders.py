"""Small builders for the pods and nodes the plugin tests need, in the spirit of upstream's
pkg/scheduler/testing wrappers (`st.MakePod().Req(...).Obj()`).

    make_pod("p").req(cpu="1", memory="2Gi").priority(5).obj()
    make_node("n").alloc(cpu="4", memory="8Gi", pods=110).obj()

Resource names that are not Python identifiers go in a mapping: `.req({"example.com/gpu": 1})`.
Keyword names use `_` for `-` (`ephemeral_storage=` is `ephemeral-storage`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.api import Node, Pod
from kubesched.framework import NodeInfo, PodInfo

__all__ = ["NodeBuilder", "PodBuilder", "make_node", "make_pod", "node_info", "node_infos"]

Amounts = Mapping[str, str | int]


def _resources(amounts: Amounts | None, kw: Mapping[str, str | int]) -> dict[str, str]:
    merged = {**(amounts or {}), **{k.replace("_", "-"): v for k, v in kw.items()}}
    return {name: str(value) for name, value in merged.items()}


class PodBuilder:
    def __init__(self, name: str) -> None:
        self._meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": name}
        self._spec: dict[str, Any] = {"containers": []}

    def uid(self, uid: str) -> PodBuilder:
        self._meta["uid"] = uid
        return self

    def label(self, **labels: str) -> PodBuilder:
        self._meta.setdefault("labels", {}).update(labels)
        return self

    def container(self) -> PodBuilder:
        """Add a container that requests nothing."""
        self._spec["containers"].append({"name": f"c{len(self._spec['containers'])}"})
        return self

    def req(self, amounts: Amounts | None = None, **kw: str | int) -> PodBuilder:
        """Add a container requesting these amounts (each call is one more container)."""
        requests = _resources(amounts, kw)
        n = len(self._spec["containers"])
        self._spec["containers"].append({"name": f"c{n}", "resources": {"requests": requests}})
        return self

    def init_req(self, amounts: Amounts | None = None, **kw: str | int) -> PodBuilder:
        """Add an init container requesting these amounts."""
        inits = self._spec.setdefault("initContainers", [])
        inits.append(
            {"name": f"init{len(inits)}", "resources": {"requests": _resources(amounts, kw)}}
        )
        return self

    def overhead(self, amounts: Amounts | None = None, **kw: str | int) -> PodBuilder:
        self._spec["overhead"] = _resources(amounts, kw)
        return self

    def priority(self, priority: int) -> PodBuilder:
        self._spec["priority"] = priority
        return self

    def node(self, node_name: str) -> PodBuilder:
        self._spec["nodeName"] = node_name
        return self

    def toleration(
        self, key: str, effect: str = "NoSchedule", operator: str = "Exists", value: str = ""
    ) -> PodBuilder:
        tol = {"key": key, "effect": effect, "operator": operator, "value": value}
        self._spec.setdefault("tolerations", []).append(tol)
        return self

    def gates(self, *names: str) -> PodBuilder:
        self._spec["schedulingGates"] = [{"name": n} for n in names]
        return self

    def obj(self) -> Pod:
        return Pod.model_validate({"metadata": self._meta, "spec": self._spec})


class NodeBuilder:
    def __init__(self, name: str) -> None:
        self._name = name
        self._labels: dict[str, str] = {}
        self._spec: dict[str, Any] = {}
        self._alloc: dict[str, str] = {}

    def alloc(self, amounts: Amounts | None = None, **kw: str | int) -> NodeBuilder:
        """Set capacity and allocatable (pods default to 32, as upstream's Capacity does)."""
        self._alloc = {"pods": "32", **_resources(amounts, kw)}
        return self

    def label(self, **labels: str) -> NodeBuilder:
        self._labels.update(labels)
        return self

    def unschedulable(self, value: bool = True) -> NodeBuilder:
        self._spec["unschedulable"] = value
        return self

    def taint(self, key: str, effect: str = "NoSchedule", value: str = "") -> NodeBuilder:
        self._spec.setdefault("taints", []).append({"key": key, "value": value, "effect": effect})
        return self

    def obj(self) -> Node:
        return Node.model_validate(
            {
                "metadata": {"name": self._name, "labels": self._labels},
                "spec": self._spec,
                "status": {"capacity": self._alloc, "allocatable": self._alloc},
            }
        )


def make_pod(name: str = "p") -> PodBuilder:
    return PodBuilder(name)


def make_node(name: str = "n") -> NodeBuilder:
    return NodeBuilder(name)


def node_info(node: Node | NodeBuilder | None, *pods: Pod | PodBuilder) -> NodeInfo:
    """A NodeInfo holding `node` (None: no Node object) and these pods."""
    built = node.obj() if isinstance(node, NodeBuilder) else node
    infos = [PodInfo(p.obj() if isinstance(p, PodBuilder) else p) for p in pods]
    return NodeInfo(built, infos)


def node_infos(nodes: list[Node], pods: list[Pod] = []) -> list[NodeInfo]:  # noqa: B006
    """NodeInfos for `nodes`, each holding the pods whose `spec.nodeName` names it (pods
    naming no listed node are left out, as upstream's cache.NewSnapshot does)."""
    infos = {n.metadata.name: NodeInfo(n) for n in nodes}
    for pod in pods:
        if pod.spec.node_name in infos:
            infos[pod.spec.node_name].add_pod(pod)
    return list(infos.values())
