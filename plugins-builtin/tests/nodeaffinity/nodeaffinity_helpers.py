"""Builders for the NodeAffinity tests: node selector terms and pods carrying them, written
as the manifests' camelCase dicts so each case reads like upstream's struct literals."""

from __future__ import annotations

from typing import Any

from fakes import fake_handle

from kubesched.api import Node, Pod
from kubesched.framework import Snapshot
from kubesched.testing import make_node, make_pod
from kubesched_builtin.nodeaffinity import NodeAffinity, NodeAffinityArgs

__all__ = [
    "affinity_plugin",
    "expr",
    "field_in",
    "make_affinity_node",
    "pod_with",
    "preferred",
    "required",
    "term",
]

Term = dict[str, Any]


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    """A `matchExpressions` requirement."""
    return {"key": key, "operator": operator, "values": list(values)}


def field_in(*names: str) -> dict[str, Any]:
    """A `matchFields` requirement `metadata.name In names`."""
    return {"key": "metadata.name", "operator": "In", "values": list(names)}


def term(*exprs: dict[str, Any], fields: list[dict[str, Any]] | None = None) -> Term:
    """A node selector term with these expressions (and fields)."""
    out: Term = {}
    if exprs:
        out["matchExpressions"] = list(exprs)
    if fields:
        out["matchFields"] = fields
    return out


def required(*terms: Term) -> dict[str, Any]:
    """A node affinity whose required selector has these terms."""
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


def preferred(*weighted: tuple[int, Term]) -> dict[str, Any]:
    """A node affinity with these (weight, term) preferences."""
    return {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": w, "preference": t} for w, t in weighted
        ]
    }


def pod_with(
    node_affinity: dict[str, Any] | None = None,
    node_selector: dict[str, str] | None = None,
    name: str = "p",
) -> Pod:
    """A pod without containers whose uid is its name."""
    pod = make_pod(name, namespace=None, uid=name).no_containers()
    if node_affinity is not None:
        pod.spec(affinity={"nodeAffinity": node_affinity})
    if node_selector is not None:
        pod.node_selector(**node_selector)
    return pod.obj()


def make_affinity_node(name: str, labels: dict[str, str] | None = None) -> Node:
    return make_node(name).label(**(labels or {})).obj()


def affinity_plugin(
    args: dict[str, Any] | None = None, snapshot: Snapshot | None = None
) -> NodeAffinity:
    """The plugin with args as a pluginConfig would give them (camelCase), validated."""
    return NodeAffinity(NodeAffinityArgs.model_validate(args or {}), fake_handle(snapshot=snapshot))
