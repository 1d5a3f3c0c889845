"""Whether a plugin's batch Score (`BatchScorePlugin.score_nodes`) answers what its Score
answers node by node: the check behind the conformance kit's BatchScore contract, usable
on its own in a plugin's tests (it needs neither pytest nor hypothesis)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.api import Pod
from kubesched.framework import BatchScorePlugin, CycleState, NodeInfo, ScorePlugin, Status

__all__ = ["batch_score_mismatch"]

_Answer = tuple[list[Any], tuple[str, str] | None]


def _status(value: Any) -> Status:
    return value if isinstance(value, Status) else Status()


def _per_node(
    plugin: ScorePlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
) -> _Answer:
    """Score on each node in order: the raw scores, or the (code, message) of the first
    failure, where the framework's per-node path stops."""
    raw: list[Any] = []
    for info in nodes:
        value, status = plugin.score(state, pod, info)
        s = _status(status)
        if not s.is_success:
            return raw, (s.code.name, s.message())
        raw.append(value)
    return raw, None


def _batch(
    plugin: BatchScorePlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
) -> _Answer | str:
    out = plugin.score_nodes(state, pod, nodes)
    if not (isinstance(out, tuple) and len(out) == 2):
        return f"score_nodes returned {out!r}, not (scores, status)"
    values, status = out
    s = _status(status)
    if not s.is_success:
        return [], (s.code.name, s.message())
    tolist = getattr(values, "tolist", None)
    return (tolist() if callable(tolist) else list(values)), None


def batch_score_mismatch(
    plugin: ScorePlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
) -> str | None:
    """None when `plugin.score_nodes(state, pod, nodes)` equals `plugin.score` on each node
    in order (the same ints, or the same first failure: code and message); otherwise what
    differs. Run PreScore on `state` first, as the framework does."""
    if not isinstance(plugin, BatchScorePlugin):
        return f"{plugin.name} has no score_nodes"
    raw, failed = _per_node(plugin, state, pod, nodes)
    batch = _batch(plugin, state, pod, nodes)
    if isinstance(batch, str):
        return batch
    values, batch_failed = batch
    names = [n.name for n in nodes]
    if failed is not None or batch_failed is not None:
        if batch_failed == failed:
            return None
        return (
            f"score_nodes failed with {batch_failed}, Score node by node with {failed} "
            f"(code, message; nodes {names})"
        )
    kinds = sorted({type(v).__name__ for v in values} - {"int"})
    if kinds:
        return f"score_nodes returned {kinds} values, not ints: {values}"
    if values != raw:
        return f"score_nodes {values}, node by node {raw} (nodes {names})"
    return None
