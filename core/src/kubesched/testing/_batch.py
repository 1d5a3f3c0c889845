"""Whether a plugin's batch Score (`BatchScorePlugin.score_nodes`) or batch Filter
(`BatchFilterPlugin.filter_nodes`) answers what its Score or Filter answers node by node:
the checks behind the conformance kit's BatchScore and BatchFilter contracts, usable on
their own in a plugin's tests (they need neither pytest nor hypothesis)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.api import Pod
from kubesched.framework import (
    BatchFilterPlugin,
    BatchScorePlugin,
    CycleState,
    FilterPlugin,
    NodeInfo,
    ScorePlugin,
    Status,
)

__all__ = ["batch_filter_mismatch", "batch_score_mismatch"]

_Answer = tuple[list[Any], tuple[str, str] | None]


def _status(value: Any) -> Status:
    return value if isinstance(value, Status) else Status()


def score_node_by_node(
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
    raw, failed = score_node_by_node(plugin, state, pod, nodes)
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


def filter_answer(value: Any) -> tuple[str, str] | None:
    """(code, message) of a Filter answer, None when it is not one."""
    if value is None:
        return ("Success", "")
    if isinstance(value, Status):
        return (value.code.name, value.message())
    return None


def batch_filter_mismatch(
    plugin: FilterPlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
) -> str | None:
    """None when `plugin.filter_nodes(state, pod, nodes)` answers what `plugin.filter`
    answers on each node, in order (None and Success alike; otherwise the same code and
    message), or raises where `filter` raises on one of the nodes; otherwise what differs.
    Run PreFilter on `state` first, as the framework does."""
    if not isinstance(plugin, BatchFilterPlugin):
        return f"{plugin.name} has no filter_nodes"
    names = [n.name for n in nodes]
    per_node: list[tuple[str, str] | None] = []
    raised_on: str | None = None
    for info in nodes:
        try:
            per_node.append(filter_answer(plugin.filter(state, pod, info)))
        except Exception as exc:
            raised_on = raised_on or f"{info.name} ({type(exc).__name__}: {exc})"
            per_node.append(None)
    try:
        out = plugin.filter_nodes(state, pod, nodes)
    except Exception as exc:
        if raised_on is not None:
            return None  # the framework asks `filter` node by node: the same answers
        return (
            f"filter_nodes raised {type(exc).__name__}: {exc}, while Filter answers every node "
            f"(nodes {names})"
        )
    if raised_on is not None:
        return f"Filter raised on node {raised_on}, filter_nodes did not raise (nodes {names})"
    try:
        answers = list(out)
    except TypeError:
        return f"filter_nodes returned {out!r}, not a list of statuses"
    if len(answers) != len(nodes):
        return f"filter_nodes returned {len(answers)} answers for {len(nodes)} nodes"
    batch = [filter_answer(a) for a in answers]
    for name, value, got, want in zip(names, answers, batch, per_node, strict=True):
        if got is None:
            return f"filter_nodes answered {value!r} for node {name}, not a Status or None"
        if got != want:
            return (
                f"filter_nodes answered {got} for node {name}, Filter {want} (code, message; "
                f"nodes {names})"
            )
    return None
