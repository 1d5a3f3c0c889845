"""Whether a plugin's array forms (plugin API 0.4: `ArrayFilterPlugin.filter_mask`,
`ArrayScorePlugin.score_array`, `ArrayNormalizeScorePlugin.normalize_score_array`) lead
the fast path to the answers of its per-node forms: the checks behind the conformance
kit's ArrayFilter and ArrayScore contracts, usable on their own in a plugin's tests (they
need neither pytest nor hypothesis)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kubesched.api import Pod
from kubesched.framework import (
    ArrayFilterPlugin,
    ArrayNormalizeScorePlugin,
    ArrayScorePlugin,
    Code,
    CycleState,
    FilterPlugin,
    NodeInfo,
    NodeScore,
    ScorePlugin,
    Snapshot,
    Status,
    mask_is_exact,
)
from kubesched.testing._batch import filter_answer, score_node_by_node

__all__ = ["array_filter_mismatch", "array_score_mismatch"]


def _rows(snapshot: Snapshot, nodes: Sequence[NodeInfo]) -> Any:
    rows = snapshot.columns.positions(nodes)
    if rows is None:
        raise ValueError("the nodes are not the snapshot's own node infos")
    return rows


def array_filter_mismatch(
    plugin: FilterPlugin, state: CycleState, pod: Pod, snapshot: Snapshot, nodes: Sequence[NodeInfo]
) -> str | None:
    """None when the fast path answers what `plugin.filter` answers on each of `nodes`
    (the snapshot's own node infos): `filter_mask` on their rows is one bool per node, and
    True only where `filter` succeeds (where it is False, the framework asks `filter`, so a
    False is never wrong, only slower; unless the plugin sets `filter_mask_exact`, when
    `filter` must reject each False row, Unschedulable or UnschedulableAndUnresolvable);
    or `filter_mask` raises (the framework then asks `filter` on every node). Otherwise
    what differs. Run PreFilter on `state` first."""
    if not isinstance(plugin, ArrayFilterPlugin):
        return f"{plugin.name} has no filter_mask"
    rows = _rows(snapshot, nodes)
    try:
        mask = plugin.filter_mask(state, pod, snapshot.columns, rows)
    except Exception:
        return None
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != rows.shape:
        return f"filter_mask returned {mask!r}, not one bool per row ({len(rows)} rows)"
    exact = mask_is_exact(plugin)
    for info, passed in zip(nodes, mask.tolist(), strict=True):
        if not passed and not exact:
            continue
        said = "passed" if passed else "rejected (filter_mask_exact)"
        try:
            status = plugin.filter(state, pod, info)
        except Exception as exc:
            return f"filter_mask {said} node {info.name}, where Filter raises {exc!r}"
        answer = filter_answer(status)
        if passed and answer != ("Success", ""):
            return f"filter_mask passed node {info.name}, where Filter answers {answer}"
        if not passed and (status is None or status.code not in _EXACT_REJECTIONS):
            return f"filter_mask {said} node {info.name}, where Filter answers {answer}"
    return None


_EXACT_REJECTIONS = (Code.Unschedulable, Code.UnschedulableAndUnresolvable)
"""What `filter` may answer on a row an exact mask (`mask_is_exact`) rejects."""


def array_score_mismatch(
    plugin: ScorePlugin, state: CycleState, pod: Pod, snapshot: Snapshot, nodes: Sequence[NodeInfo]
) -> str | None:
    """None when `score_array` on the rows of `nodes` equals `plugin.score` on each node
    in order (the same ints, or the same first failure: code and message), or raises (the
    framework then scores node by node); and when the plugin also has
    `normalize_score_array`, it normalizes those scores as `normalize_score` does (the
    same ints and status). Otherwise what differs. Run PreScore on `state` first."""
    if not isinstance(plugin, ArrayScorePlugin):
        return f"{plugin.name} has no score_array"
    rows = _rows(snapshot, nodes)
    raw, failed = score_node_by_node(plugin, state, pod, nodes)
    try:
        values, status = plugin.score_array(state, pod, snapshot.columns, rows)
    except Exception:
        return None
    s = status if isinstance(status, Status) else Status()
    names = [n.name for n in nodes]
    if failed is not None or not s.is_success:
        got = None if s.is_success else (s.code.name, s.message())
        if got == failed:
            return None
        return f"score_array failed with {got}, Score node by node with {failed} (nodes {names})"
    if not isinstance(values, np.ndarray) or values.shape != rows.shape:
        return f"score_array returned {values!r}, not one score per row ({len(rows)} rows)"
    if values.dtype.kind not in "iu":
        return f"score_array returned {values.dtype} scores, not integers"
    if values.tolist() != raw:
        return f"score_array {values.tolist()}, node by node {raw} (nodes {names})"
    if isinstance(plugin, ArrayNormalizeScorePlugin):
        return _normalize_mismatch(plugin, state, pod, nodes, raw)
    return None


def _normalize_mismatch(
    plugin: ScorePlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], raw: list[int]
) -> str | None:
    assert isinstance(plugin, ArrayNormalizeScorePlugin)
    scores = [NodeScore(n.name, v) for n, v in zip(nodes, raw, strict=True)]
    want_status = filter_answer(plugin.normalize_score(state, pod, scores))
    want = [ns.score for ns in scores]
    try:
        out, status = plugin.normalize_score_array(state, pod, np.array(raw, np.int64))
    except Exception:
        return None  # the framework then calls normalize_score
    got_status = filter_answer(status)
    if got_status != want_status:
        return f"normalize_score_array answered {got_status}, normalize_score {want_status}"
    if want_status != ("Success", ""):
        return None
    got = out.tolist() if isinstance(out, np.ndarray) else out
    if got != want:
        return f"normalize_score_array {got}, normalize_score {want} (raw {raw})"
    return None
