"""Builders and runners for the InterPodAffinity tests, in the spirit of upstream's
`st.MakePod().PodAffinityIn(...)` wrappers and `SetupPluginWithInformers`."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from builtin_helpers import node_infos

from kubesched.api import Namespace, Node, Pod
from kubesched.framework import CycleState, Handle, NodeScore, Snapshot, Status
from kubesched.testing import make_node as make_node_builder
from kubesched.testing import make_pod as make_pod_builder
from kubesched_builtin.interpodaffinity import InterPodAffinity, InterPodAffinityArgs

__all__ = [
    "NAMESPACES",
    "NamespaceCluster",
    "affinity",
    "expr_term",
    "filter_statuses",
    "make_node",
    "make_pod",
    "plugin_for",
    "scores",
    "term",
    "weighted",
]

_uids = itertools.count(1)

Term = dict[str, Any]


def term(
    key: str,
    operator: str,
    values: Sequence[str] = (),
    topology_key: str = "",
    **extra: Any,
) -> Term:
    """A PodAffinityTerm selecting pods by one `key <operator> values` requirement; extra
    fields (`namespaces`, `namespaceSelector`, `matchLabelKeys` ...) go in as given."""
    requirement: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        requirement["values"] = list(values)
    return {
        "labelSelector": {"matchExpressions": [requirement]},
        "topologyKey": topology_key,
        **extra,
    }


def expr_term(requirements: Sequence[tuple[str, str, Sequence[str]]], topology_key: str) -> Term:
    """A term whose selector ANDs several (key, operator, values) requirements."""
    exprs = [{"key": k, "operator": op, "values": list(v)} for k, op, v in requirements]
    return {"labelSelector": {"matchExpressions": exprs}, "topologyKey": topology_key}


def weighted(weight: int, t: Term) -> dict[str, Any]:
    return {"weight": weight, "podAffinityTerm": t}


def affinity(
    required: Iterable[Term] = (),
    anti: Iterable[Term] = (),
    preferred: Iterable[dict[str, Any]] = (),
    preferred_anti: Iterable[dict[str, Any]] = (),
) -> dict[str, Any]:
    """An `affinity` with pod (anti-)affinity terms (a side with no terms is left out)."""
    out: dict[str, Any] = {}
    pa = {
        "requiredDuringSchedulingIgnoredDuringExecution": list(required),
        "preferredDuringSchedulingIgnoredDuringExecution": list(preferred),
    }
    paa = {
        "requiredDuringSchedulingIgnoredDuringExecution": list(anti),
        "preferredDuringSchedulingIgnoredDuringExecution": list(preferred_anti),
    }
    if any(pa.values()):
        out["podAffinity"] = pa
    if any(paa.values()):
        out["podAntiAffinity"] = paa
    return out


def make_pod(
    name: str = "",
    *,
    namespace: str = "default",
    labels: Mapping[str, str] | None = None,
    node: str = "",
    aff: dict[str, Any] | None = None,
) -> Pod:
    """A pod (each with its own uid, so same-named pods can share a node)."""
    uid = f"uid-{next(_uids)}"
    pod = make_pod_builder(name or uid, namespace, uid).label(**(labels or {}))
    pod.container(name="c")
    if node:
        pod.node(node)
    if aff:
        pod.spec(affinity=aff)
    return pod.obj()


def make_node(name: str, **labels: str) -> Node:
    return make_node_builder(name).label(**labels).obj()


class NamespaceCluster:
    """The part of a Cluster the plugin reads: Namespace objects by list and get."""

    def __init__(self, namespaces: Iterable[tuple[str, Mapping[str, str]]] = ()) -> None:
        self.namespaces = [
            Namespace.model_validate({"metadata": {"name": n, "labels": dict(labels)}})
            for n, labels in namespaces
        ]

    def list(self, kind: str) -> list[Any]:
        return list(self.namespaces) if kind == "Namespace" else []

    def get(self, kind: str, name: str, namespace: str | None = None) -> Any | None:
        if kind != "Namespace":
            return None
        return next((n for n in self.namespaces if n.metadata.name == name), None)


NAMESPACES: list[tuple[str, Mapping[str, str]]] = [
    ("subteam1.team1", {"team": "team1"}),
    ("subteam2.team1", {"team": "team1"}),
    ("subteam1.team2", {"team": "team2"}),
    ("subteam2.team2", {"team": "team2"}),
]
"""upstream scoring_test.go `namespaces`."""


class _Handle:
    def __init__(self, cluster: Any, snapshot: Snapshot) -> None:
        self.cluster = cluster
        self.snapshot = snapshot
        self.profile_name = "default-scheduler"
        self.fast_path = True


def plugin_for(
    pods: Sequence[Pod],
    nodes: Sequence[Node],
    namespaces: Iterable[tuple[str, Mapping[str, str]]] = NAMESPACES,
    **args: Any,
) -> tuple[InterPodAffinity, Snapshot]:
    """The plugin (args as in a pluginConfig) on a snapshot of `nodes` holding `pods`."""
    snapshot = Snapshot(node_infos(list(nodes), list(pods)))
    handle = cast(Handle, _Handle(NamespaceCluster(namespaces), snapshot))
    return InterPodAffinity(InterPodAffinityArgs.model_validate(args), handle), snapshot


def filter_statuses(
    plugin: InterPodAffinity, snapshot: Snapshot, pod: Pod
) -> tuple[Status | None, list[Status | None], CycleState]:
    """PreFilter's status, then (unless it was not a success) Filter's on every node."""
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod, snapshot.list())
    if pre is not None and not pre.is_success:
        return pre, [], state
    return pre, [plugin.filter(state, pod, n) for n in snapshot.list()], state


def scores(
    plugin: InterPodAffinity, snapshot: Snapshot, pod: Pod
) -> tuple[Status | None, list[int]]:
    """PreScore's status, then (if it succeeded) the normalized score of every node."""
    state = CycleState()
    status = plugin.pre_score(state, pod, snapshot.list())
    if status is not None and not status.is_success:
        return status, []
    out: list[NodeScore] = []
    for info in snapshot.list():
        value, s = plugin.score(state, pod, info)
        assert s is None or s.is_success, s
        out.append(NodeScore(info.name, value))
    s = plugin.normalize_score(state, pod, out)
    assert s is None or s.is_success, s
    return status, [n.score for n in out]
