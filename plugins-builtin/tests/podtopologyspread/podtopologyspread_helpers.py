"""Builders and runners for the PodTopologySpread tests, shaped like upstream's
`st.MakePod().SpreadConstraint(...)` and the plugin test setup."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from builtin_helpers import node_infos
from fakes import fake_handle

from kubesched.api import Node, Pod
from kubesched.framework import Code, CycleState, NodeScore, Snapshot, Status, is_success
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
    "TAINTS",
    "ObjectsCluster",
    "SpreadNode",
    "SpreadPod",
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
TAINTS = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]


def label_selector(**labels: str) -> dict[str, Any]:
    """st.MakeLabelSelector().Label(k, v)..."""
    return {"matchLabels": dict(labels)}


class SpreadPod:
    def __init__(self, name: str) -> None:
        self.meta: dict[str, Any] = {"name": name, "namespace": "default", "uid": name}
        self.spec: dict[str, Any] = {"containers": [{"name": "c", "image": "pause"}]}

    def ns(self, namespace: str) -> SpreadPod:
        self.meta["namespace"] = namespace
        return self

    def label(self, key: str, value: str = "") -> SpreadPod:
        self.meta.setdefault("labels", {})[key] = value
        return self

    def node(self, name: str) -> SpreadPod:
        self.spec["nodeName"] = name
        return self

    def terminating(self) -> SpreadPod:
        self.meta["deletionTimestamp"] = datetime(2024, 1, 1, tzinfo=UTC).isoformat()
        return self

    def owner(self, kind: str, name: str, api_version: str = "apps/v1") -> SpreadPod:
        ref = {"apiVersion": api_version, "kind": kind, "name": name, "controller": True}
        self.meta.setdefault("ownerReferences", []).append(ref)
        return self

    def spread(
        self,
        max_skew: int,
        key: str,
        action: str,
        selector: Mapping[str, Any] | None,
        min_domains: int | None = None,
        node_affinity_policy: str | None = None,
        node_taints_policy: str | None = None,
        match_label_keys: Sequence[str] = (),
    ) -> SpreadPod:
        """st.PodWrapper.SpreadConstraint, same argument order."""
        c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": action}
        if selector is not None:
            c["labelSelector"] = dict(selector)
        if min_domains is not None:
            c["minDomains"] = min_domains
        if node_affinity_policy is not None:
            c["nodeAffinityPolicy"] = node_affinity_policy
        if node_taints_policy is not None:
            c["nodeTaintsPolicy"] = node_taints_policy
        if match_label_keys:
            c["matchLabelKeys"] = list(match_label_keys)
        self.spec.setdefault("topologySpreadConstraints", []).append(c)
        return self

    def node_selector(self, **labels: str) -> SpreadPod:
        self.spec["nodeSelector"] = dict(labels)
        return self

    def _node_affinity(self, key: str, operator: str, values: list[str]) -> SpreadPod:
        term = {"matchExpressions": [{"key": key, "operator": operator, "values": values}]}
        self.spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
            }
        }
        return self

    def node_affinity_in(self, key: str, values: list[str]) -> SpreadPod:
        return self._node_affinity(key, "In", values)

    def node_affinity_not_in(self, key: str, values: list[str]) -> SpreadPod:
        return self._node_affinity(key, "NotIn", values)

    def toleration(self, key: str, effect: str = "NoSchedule") -> SpreadPod:
        tol = {"key": key, "operator": "Exists", "effect": effect}
        self.spec.setdefault("tolerations", []).append(tol)
        return self

    def obj(self) -> Pod:
        return Pod.model_validate({"metadata": self.meta, "spec": self.spec})


class SpreadNode:
    def __init__(self, name: str) -> None:
        self.name = name
        self.labels: dict[str, str] = {}
        self.taints: list[dict[str, str]] = []

    def label(self, key: str, value: str) -> SpreadNode:
        self.labels[key] = value
        return self

    def taint(self, taints: list[dict[str, str]]) -> SpreadNode:
        self.taints = list(taints)
        return self

    def obj(self) -> Node:
        return Node.model_validate(
            {
                "metadata": {"name": self.name, "labels": self.labels},
                "spec": {"taints": self.taints},
            }
        )


def pod(name: str = "p") -> SpreadPod:
    return SpreadPod(name)


def node(name: str) -> SpreadNode:
    return SpreadNode(name)


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
