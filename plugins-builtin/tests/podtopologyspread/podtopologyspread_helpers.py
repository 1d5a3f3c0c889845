"""Pods, nodes and runners for the PodTopologySpread tests, shaped like upstream's
`st.MakePod().SpreadConstraint(...)` (kubesched.testing's builders) and the plugin test setup."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from builtin_helpers import node_infos
from fakes import fake_handle

from kubesched.api import Node, Pod
from kubesched.framework import Code, CycleState, NodeScore, Snapshot, Status, is_success
from kubesched.testing import NodeBuilder, PodBuilder, make_node, make_pod
from kubesched_builtin.podtopologyspread import (
    CriticalPaths,
    PodTopologySpread,
    PodTopologySpreadArgs,
    PreFilterState,
)

__all__ = [
    "BAR",
    "FOO",
    "HOSTNAME",
    "UNSCHEDULABLE_TAINT",
    "ObjectsCluster",
    "filter_codes",
    "label_selector",
    "node",
    "paths",
    "plugin",
    "pod",
    "pre_filter",
    "scores",
]

HOSTNAME = "kubernetes.io/hostname"
FOO: dict[str, Any] = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR: dict[str, Any] = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
"""The key of the taint (NoSchedule) on the nodes the tests cordon."""


def label_selector(**labels: str) -> dict[str, Any]:
    """st.MakeLabelSelector().Label(k, v)..."""
    return {"matchLabels": dict(labels)}


def pod(name: str = "p") -> PodBuilder:
    """A pod whose uid is its name (upstream's st.MakePod().Name(n).UID(n))."""
    return make_pod(name, uid=name)


def node(name: str) -> NodeBuilder:
    return make_node(name)


class ObjectsCluster:
    """A cluster read-side holding plain objects of kinds core does not register yet
    (Service, ReplicaSet ...), as mappings in their wire form."""

    def __init__(self, objects: Sequence[Mapping[str, Any]] = ()) -> None:
        self.objects = list(objects)

    def list(self, kind: str) -> list[Any]:
        return [o for o in self.objects if o.get("kind") == kind]

    def get(self, kind: str, name: str, namespace: str | None = None) -> Any:
        for o in self.list(kind):
            meta = o.get("metadata", {})
            if meta.get("name") == name and meta.get("namespace", "default") == namespace:
                return o
        return None


def plugin(
    args: Mapping[str, Any] | None = None,
    objects: Sequence[Mapping[str, Any]] = (),
    snapshot: Snapshot | None = None,
) -> PodTopologySpread:
    """The plugin with args as in a pluginConfig (List defaulting unless given)."""
    validated = PodTopologySpreadArgs.model_validate(args or {"defaultingType": "List"})
    handle = fake_handle(cluster=ObjectsCluster(objects), snapshot=snapshot)
    return PodTopologySpread(validated, handle)


def pre_filter(
    pl: PodTopologySpread, p: Pod, nodes: Sequence[Node], existing: Sequence[Pod] = ()
) -> tuple[CycleState, Snapshot, Status | None]:
    snapshot = Snapshot(node_infos(list(nodes), list(existing)))
    state = CycleState()
    _, status = pl.pre_filter(state, p, snapshot.list())
    return state, snapshot, status


def filter_codes(
    p: Pod,
    nodes: Sequence[Node],
    existing: Sequence[Pod] = (),
    args: Mapping[str, Any] | None = None,
) -> dict[str, Code]:
    """Each node's Filter code after PreFilter over every node (upstream TestSingleConstraint)."""
    pl = plugin(args)
    state, snapshot, status = pre_filter(pl, p, nodes, existing)
    assert is_success(status), status
    out = {}
    for info in snapshot.list():
        s = pl.filter(state, p, info)
        out[info.name] = Code.Success if s is None else s.code
    return out


def scores(
    p: Pod,
    nodes: Sequence[Node],
    failed: Sequence[Node] = (),
    existing: Sequence[Pod] = (),
    args: Mapping[str, Any] | None = None,
    objects: Sequence[Mapping[str, Any]] = (),
) -> dict[str, int]:
    """Normalized scores of `nodes` (the feasible ones; `failed` are in the cluster only),
    as upstream TestPodTopologySpreadScore runs PreScore, Score and NormalizeScore."""
    snapshot = Snapshot(node_infos([*nodes, *failed], list(existing)))
    pl = plugin(args or {"defaultingType": "System"}, objects, snapshot)
    feasible = [snapshot.node_info_map[n.metadata.name] for n in nodes]
    state = CycleState()
    status = pl.pre_score(state, p, feasible)
    assert is_success(status), status
    result = []
    for info in feasible:
        score, s = pl.score(state, p, info)
        assert is_success(s), s
        result.append(NodeScore(info.name, score))
    assert is_success(pl.normalize_score(state, p, result))
    return {ns.name: ns.score for ns in result}


def paths(state: PreFilterState) -> dict[str, tuple[tuple[str, int], tuple[str, int]]]:
    """Critical paths by topology key, ties ordered by value as upstream's comparer does."""
    out = {}
    for c, p in zip(state.constraints, state.critical_paths, strict=True):
        out[c.topology_key] = _normalized(p)
    return out


def _normalized(p: CriticalPaths) -> tuple[tuple[str, int], tuple[str, int]]:
    (v0, n0), (v1, n1) = p.paths
    if n0 == n1 and v0 > v1:
        v0, v1 = v1, v0
    return (v0, n0), (v1, n1)
