"""The vectorized Filter and Score of NodeResourcesFit equal the per-node forms, on random
clusters, pods and args (hypothesis)."""

from __future__ import annotations

from typing import Any

import numpy as np
from builtin_helpers import PodBuilder, make_node, make_pod
from fit_helpers import fit_plugin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.framework import CycleState, NodeInfo, PodInfo, Snapshot
from kubesched_builtin.noderesources import PRE_SCORE_STATE_KEY, UtilizationShapePoint
from kubesched_builtin.noderesources.resource_allocation import (
    broken_linear_function,
    scaled_shape,
)
from kubesched_builtin.noderesources.vectorized import _curve

SCALARS = ["example.com/gpu", "example.com/fpga", "hugepages-2Mi", "kubernetes.io/dev"]
SCORED = ["cpu", "memory", "ephemeral-storage", "pods", *SCALARS]

# Pod amounts around the non-zero defaults (100m CPU, 200Mi memory), node amounts a few
# times larger, so free room, exact fits, caps and over-commit all happen.
_POD_AMOUNTS: dict[str, st.SearchStrategy[str]] = {
    "cpu": st.integers(0, 1000).map(lambda m: f"{m}m"),
    "memory": st.integers(0, 1024**3).map(str) | st.sampled_from(["0", "200Mi", "1Gi"]),
    "ephemeral-storage": st.integers(0, 50).map(str),
    **{name: st.integers(0, 8).map(str) for name in SCALARS},
}
_NODE_AMOUNTS: dict[str, st.SearchStrategy[str]] = {
    "cpu": st.integers(0, 8000).map(lambda m: f"{m}m"),
    "memory": st.integers(0, 8 * 1024**3).map(str) | st.sampled_from(["0", "400Mi", "4Gi"]),
    "ephemeral-storage": st.integers(0, 200).map(str),
    **{name: st.integers(0, 32).map(str) for name in SCALARS},
}


def _requests() -> st.SearchStrategy[dict[str, str]]:
    """Some of the resources, each with a random amount (an empty dict: requests nothing)."""
    return st.fixed_dictionaries({}, optional=_POD_AMOUNTS)


@st.composite
def pods(draw: st.DrawFn, name: str) -> PodBuilder:
    builder = make_pod(name)
    for req in draw(st.lists(_requests(), max_size=3)):
        if req:
            builder.req(req)
        else:
            builder.container()
    for req in draw(st.lists(_requests(), max_size=1)):
        builder.init_req(req)
    return builder


@st.composite
def node_infos(draw: st.DrawFn) -> NodeInfo:
    name = draw(st.text("abcdefgh", min_size=1, max_size=6))
    alloc = draw(st.fixed_dictionaries({}, optional=_NODE_AMOUNTS))
    if draw(st.booleans()):
        alloc["pods"] = str(draw(st.integers(0, 4)))
    node = make_node(name).alloc(alloc).obj()
    existing = draw(st.lists(pods(f"{name}-pod"), max_size=4))
    info = NodeInfo(node)
    for i, builder in enumerate(existing):
        info.add_pod_info(PodInfo(builder.uid(f"{name}-{i}").node(name).obj()))
    return info


@st.composite
def shapes(draw: st.DrawFn) -> list[dict[str, int]]:
    xs = draw(st.lists(st.integers(0, 100), min_size=1, max_size=4, unique=True))
    return [{"utilization": x, "score": draw(st.integers(0, 10))} for x in sorted(xs)]


@st.composite
def fit_args(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"]))
    names = draw(st.lists(st.sampled_from(SCORED), min_size=1, max_size=5, unique=True))
    weights = st.integers(1, 3) | st.integers(1, 100)
    resources = [{"name": n, "weight": draw(weights)} for n in names]
    strategy: dict[str, Any] = {"type": kind, "resources": resources}
    if kind == "RequestedToCapacityRatio":
        strategy["requestedToCapacityRatio"] = {"shape": draw(shapes())}
    return {
        "scoringStrategy": strategy,
        "ignoredResources": draw(st.lists(st.sampled_from(SCALARS[:2]), max_size=1)),
        "ignoredResourceGroups": draw(st.lists(st.just("example.com"), max_size=1)),
    }


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    args=fit_args(),
    pod=pods("incoming"),
    nodes=st.lists(node_infos(), min_size=1, max_size=6),
    run_pre_score=st.booleans(),
)
def test_vectorized_forms_equal_per_node_forms(
    args: dict[str, Any], pod: PodBuilder, nodes: list[NodeInfo], run_pre_score: bool
) -> None:
    plugin = fit_plugin(args)
    the_pod = pod.obj()
    snapshot = Snapshot(nodes)
    columns = snapshot.columns
    state = CycleState()
    plugin.pre_filter(state, the_pod, snapshot.list())
    if run_pre_score:
        plugin.pre_score(state, the_pod, snapshot.list())
    assert (PRE_SCORE_STATE_KEY in state) is run_pre_score

    per_node_fit = [plugin.filter(state, the_pod, n) is None for n in snapshot.list()]
    vector_fit = plugin.filter_vectorized(state, the_pod, columns)
    assert vector_fit.dtype == np.bool_
    assert vector_fit.tolist() == per_node_fit

    per_node_score = [plugin.score(state, the_pod, n)[0] for n in snapshot.list()]
    vector_score = plugin.score_vectorized(state, the_pod, columns)
    assert vector_score.dtype == np.int64
    assert vector_score.tolist() == per_node_score
    assert all(0 <= s <= 100 for s in per_node_score)


@settings(max_examples=200, deadline=None)
@given(shape=shapes())
def test_vectorized_curve_equals_broken_linear_function(shape: list[dict[str, int]]) -> None:
    points = scaled_shape([UtilizationShapePoint.model_validate(p) for p in shape])
    utilizations = np.arange(-10, 111, dtype=np.int64)
    f = broken_linear_function(points)
    assert _curve(points, utilizations).tolist() == [f(int(u)) for u in utilizations]


def test_vectorized_forms_on_upstream_example() -> None:
    nodes = [
        make_node("node1").alloc(cpu="4000", memory="10000").obj(),
        make_node("node2").alloc(cpu="6000", memory="10000").obj(),
        make_node("node3").alloc(cpu="1", memory="10000").obj(),
    ]
    snapshot = Snapshot([NodeInfo(n) for n in nodes])
    pod = make_pod().req(cpu="1000", memory="2000").req(cpu="2000", memory="3000").obj()
    plugin = fit_plugin()
    state = CycleState()
    plugin.pre_filter(state, pod, snapshot.list())
    assert plugin.filter_vectorized(state, pod, snapshot.columns).tolist() == [True, True, False]
    assert plugin.score_vectorized(state, pod, snapshot.columns).tolist() == [37, 50, 25]
