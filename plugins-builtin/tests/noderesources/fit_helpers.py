"""Shared helpers for the NodeResourcesFit tests: build the plugin, run PreScore and Score."""

from __future__ import annotations

from typing import Any

from builtin_helpers import node_infos
from fakes import fake_handle

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, Snapshot, is_success
from kubesched_builtin.noderesources import NodeResourcesFit, NodeResourcesFitArgs

__all__ = ["EXTENDED_RES", "fit_plugin", "scores", "strategy"]

EXTENDED_RES = "abc.com/xyz"


def fit_plugin(args: dict[str, Any] | None = None) -> NodeResourcesFit:
    """The plugin with args given as in a pluginConfig (camelCase), validated."""
    return NodeResourcesFit(NodeResourcesFitArgs.model_validate(args or {}), fake_handle())


def strategy(type_: str, resources: list[tuple[str, int]] | None, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": type_, **extra}
    if resources is not None:
        spec["resources"] = [{"name": n, "weight": w} for n, w in resources]
    return {"scoringStrategy": spec}


def scores(
    plugin: NodeResourcesFit,
    pod: Pod,
    nodes: list[Node],
    existing: list[Pod] = [],  # noqa: B006
    *,
    pre_score: bool = True,
) -> list[tuple[str, int]]:
    """(node name, score) for each node, after PreScore unless `pre_score` is False.

    Also checks that the vectorized Score gives the same scores."""
    infos = node_infos(nodes, existing)
    snapshot = Snapshot(infos)
    state = CycleState()
    if pre_score:
        assert is_success(plugin.pre_score(state, pod, infos))
    out = []
    for info in snapshot.list():
        score, status = plugin.score(state, pod, info)
        assert is_success(status)
        out.append((info.name, score))
    vectorized = plugin.score_vectorized(state, pod, snapshot.columns)
    assert vectorized.tolist() == [s for _, s in out], "vectorized Score disagrees"
    return out
