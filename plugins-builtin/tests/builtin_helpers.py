"""Shared helpers of kubesched-builtin's tests: `kubesched.testing`'s pod and node builders
with the defaults these tests were written against, and NodeInfos built from them.

    make_pod("p").req(cpu="1", memory="2Gi").priority(5).obj()
    make_node("n").alloc(cpu="4", memory="8Gi", pods=110).obj()
"""

from __future__ import annotations

from kubesched.api import Node, Pod
from kubesched.framework import NodeInfo, PodInfo
from kubesched.testing import NodeBuilder, PodBuilder
from kubesched.testing import make_node as _make_node
from kubesched.testing import make_pod as _make_pod

__all__ = ["NodeBuilder", "PodBuilder", "make_node", "make_pod", "node_info", "node_infos"]


def make_pod(name: str = "p") -> PodBuilder:
    """A pod whose uid is its name and that has no containers until one is added
    (upstream's st.MakePod().Name(n).UID(n))."""
    return _make_pod(name, uid=name).no_containers()


def make_node(name: str = "n") -> NodeBuilder:
    """A node that allows 32 pods unless `.alloc(pods=...)` says otherwise (upstream's
    st.MakeNode().Capacity default)."""
    return _make_node(name).alloc(pods=32)


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
