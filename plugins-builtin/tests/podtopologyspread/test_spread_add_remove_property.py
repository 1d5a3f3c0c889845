"""Property: AddPod followed by RemovePod of the same pod on the same node leaves the
PreFilter state's per-domain counts and global minima as they were (what nominated-pod and
preemption dry runs rely on)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from podtopologyspread_helpers import BAR, FOO, UNSCHEDULABLE_TAINT, node, plugin, pod, pre_filter

from kubesched.api import Node, Pod
from kubesched.framework import PodInfo
from kubesched_builtin.podtopologyspread import PRE_FILTER_STATE_KEY, PreFilterState

ZONES = ("z1", "z2", "z3")
LABEL_SETS: tuple[dict[str, str], ...] = ({}, {"foo": ""}, {"bar": ""}, {"foo": "", "bar": ""})


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[Node], list[Pod]]:
    n = draw(st.integers(1, 6))
    nodes = []
    for i in range(n):
        b = node(f"n{i}").label(node=f"n{i}")
        if draw(st.integers(0, 4)) > 0:
            b.label(zone=draw(st.sampled_from(ZONES)))
        if draw(st.booleans()):
            b.label(disk="ssd")
        if draw(st.integers(0, 4)) == 0:
            b.taint(UNSCHEDULABLE_TAINT)
        nodes.append(b.obj())
    pods = []
    for j in range(draw(st.integers(0, 12))):
        p = pod(f"e{j}").node(f"n{draw(st.integers(0, n - 1))}")
        for k, v in draw(st.sampled_from(LABEL_SETS)).items():
            p.label(**{k: v})
        if draw(st.booleans()):
            p.namespace("other")
        pods.append(p.obj())
    return nodes, pods


@st.composite
def incoming(draw: st.DrawFn) -> Pod:
    p = pod("incoming").label(foo="")
    if draw(st.booleans()):
        p.node_selector(disk="ssd")
    for key in draw(
        st.lists(st.sampled_from(("zone", "node")), min_size=1, max_size=2, unique=True)
    ):
        p.spread_constraint(
            draw(st.integers(1, 3)),
            key,
            "DoNotSchedule",
            draw(st.sampled_from((FOO, FOO, BAR, None))),
            draw(st.sampled_from((None, 1, 4))),
            draw(st.sampled_from((None, "Ignore", "Honor"))),
            draw(st.sampled_from((None, "Ignore", "Honor"))),
        )
    return p.obj()


def snapshot_of(state: PreFilterState) -> tuple[list[dict[str, int]], list[int]]:
    return (
        [dict(m) for m in state.tp_value_to_match_num],
        [state.min_match_num(i) for i in range(len(state.constraints))],
    )


@settings(max_examples=200, deadline=None)
@given(
    cluster=clusters(),
    preemptor=incoming(),
    labels=st.sampled_from(LABEL_SETS),
    other_ns=st.sampled_from((False, False, False, True)),
    data=st.data(),
)
def test_add_then_remove_restores_counts(
    cluster: tuple[list[Node], list[Pod]],
    preemptor: Pod,
    labels: dict[str, str],
    other_ns: bool,
    data: st.DataObject,
) -> None:
    nodes, existing = cluster
    pl = plugin()
    state, snapshot, status = pre_filter(pl, preemptor, nodes, existing)
    assert status is None
    s = state.read(PRE_FILTER_STATE_KEY)
    before = snapshot_of(s)

    target = data.draw(st.sampled_from(snapshot.list()))
    b = pod("added").node(target.name).namespace("other" if other_ns else "default")
    for k, v in labels.items():
        b.label(**{k: v})
    added = PodInfo(b.obj())

    assert pl.add_pod(state, preemptor, added, target) is None
    assert pl.remove_pod(state, preemptor, added, target) is None
    assert snapshot_of(s) == before
