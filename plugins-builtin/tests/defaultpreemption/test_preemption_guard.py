"""Victims protected by a `PreemptionVictimGuard` of the profile (kubesched, not upstream).

The guards here are in-test plugins: `KeepGuard` protects pods labelled `keep=<why>`,
`RecordingGuard` those labelled `keep2`; both record what they were asked and told. With
no guard, and with one that protects nothing, the dry run must be upstream's exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from builtin_helpers import make_node
from hypothesis import given, settings
from hypothesis import strategies as st
from preemption_helpers import (
    HIGH,
    LARGE,
    LOW,
    MID,
    SMALL,
    VERY_HIGH,
    nodes_named,
    pdb,
    pod,
    preemption_env,
    statuses,
)
from pydantic import BaseModel

from kubesched.api import Pod
from kubesched.framework import (
    Code,
    CycleState,
    FilterPlugin,
    NodeInfo,
    PodInfo,
    PostFilterResult,
    PreemptionVictimGuard,
)
from kubesched_builtin.noderesources import NodeResourcesFit

U, UUR = Code.Unschedulable, Code.UnschedulableAndUnresolvable
HALF = {"cpu": "500m", "memory": "100"}
NODE = {"cpu": "1", "memory": "1Gi"}


class KeepGuard(FilterPlugin):
    """Filter: always passes. Guard: protects the pods labelled `keep`, the label's value
    being the reason; records the names it was asked about, in order, and the victims it
    was told of."""

    name: ClassVar[str] = "KeepGuard"

    def __init__(self, args: BaseModel, handle: Any) -> None:
        super().__init__(args, handle)
        self.asked: list[list[str]] = []
        self.chosen: list[tuple[str, str, list[str]]] = []

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> None:
        return None

    def protected_victims(
        self, preemptor: Pod, node_info: NodeInfo, victims: Sequence[PodInfo]
    ) -> dict[str, str]:
        self.asked.append([v.pod.metadata.name for v in victims])
        return {
            v.pod.metadata.uid: v.pod.metadata.labels["keep"]
            for v in victims
            if "keep" in v.pod.metadata.labels
        }

    def victims_chosen(self, preemptor: Pod, node_name: str, victims: Sequence[Pod]) -> None:
        self.chosen.append((preemptor.metadata.name, node_name, [v.metadata.name for v in victims]))


class RecordingGuard(KeepGuard):
    """Protects pods labelled `keep2` (none, unless a test says so)."""

    name: ClassVar[str] = "RecordingGuard"

    def protected_victims(
        self, preemptor: Pod, node_info: NodeInfo, victims: Sequence[PodInfo]
    ) -> dict[str, str]:
        self.asked.append([v.pod.metadata.name for v in victims])
        return {
            v.pod.metadata.uid: v.pod.metadata.labels["keep2"]
            for v in victims
            if "keep2" in v.pod.metadata.labels
        }


def _select(
    existing: list[Pod],
    preemptor: Pod,
    *,
    guards: Sequence[type[Any]] = (KeepGuard,),
    pdbs: Sequence[Any] = (),
    alloc: dict[str, str] = NODE,
) -> tuple[list[str], int, Code, str]:
    env = preemption_env(
        [make_node("n").alloc(alloc).obj()], existing, filters=[NodeResourcesFit, *guards]
    )
    info = env.node_infos()[0]
    victims, violations, status = env.plugin.select_victims_on_node(
        env.pre_filter(preemptor).clone(), preemptor, info.clone(), list(pdbs)
    )
    return [v.metadata.name for v in victims], violations, status.code, status.message()


def test_the_profile_guards_are_its_plugins_implementing_the_protocol() -> None:
    env = preemption_env(nodes_named("n"), [], filters=[KeepGuard, RecordingGuard])
    guards: list[object] = list(env.plugin.guards)
    assert guards == [env.fwk.plugins["KeepGuard"], env.fwk.plugins["RecordingGuard"]]
    assert isinstance(env.fwk.plugins["KeepGuard"], PreemptionVictimGuard)
    assert preemption_env(nodes_named("n"), []).plugin.guards == []


# (name, existing pods on a 1-cpu node, preemptor, want victims, want code, want message)
GUARD_CASES: list[tuple[str, list[Pod], Pod, list[str], Code, str]] = [
    (
        "a protected pod is never a victim: the other one goes",
        [
            pod("low", node="n", prio=LOW, req=HALF, labels={"keep": "kept"}),
            pod("mid", node="n", prio=MID, req=HALF),
        ],
        pod("p", prio=HIGH, req=HALF),
        ["mid"],
        Code.Success,
        "",
    ),
    (
        "only evicting protected pods would make room: the guard's reason",
        [
            pod("a", node="n", prio=LOW, req=HALF, labels={"keep": "a is kept"}),
            pod("b", node="n", prio=LOW, req=HALF),
        ],
        pod("p", prio=HIGH, req={"cpu": "1", "memory": "100"}),
        [],
        UUR,
        "a is kept",
    ),
    (
        "every potential victim protected, room only without them: the reasons, sorted",
        [
            pod("a", node="n", prio=LOW, req=HALF, labels={"keep": "z reason"}),
            pod("b", node="n", prio=LOW, req=HALF, labels={"keep": "a reason"}),
        ],
        pod("p", prio=HIGH, req=HALF),
        [],
        UUR,
        "a reason, z reason",
    ),
    (
        "no room even with the protected pods gone: the filter's status, as upstream",
        [
            pod("a", node="n", prio=LOW, req=HALF, labels={"keep": "kept"}),
            pod("high", node="n", prio=VERY_HIGH, req=HALF),
        ],
        pod("p", prio=HIGH, req={"cpu": "1", "memory": "100"}),
        [],
        U,
        "Insufficient cpu",
    ),
    (
        "a higher-priority pod is never offered to the guard nor protected",
        [
            pod("a", node="n", prio=LOW, req=SMALL),
            pod("high", node="n", prio=VERY_HIGH, req=LARGE, labels={"keep": "kept"}),
        ],
        pod("p", prio=HIGH, req={"cpu": "700m", "memory": "100"}),
        ["a"],
        Code.Success,
        "",
    ),
    (
        "no lower-priority pod at all: upstream's message",
        [pod("high", node="n", prio=VERY_HIGH, req=HALF, labels={"keep": "kept"})],
        pod("p", prio=HIGH, req={"cpu": "1", "memory": "100"}),
        [],
        UUR,
        "No preemption victims found for incoming pod",
    ),
]


@pytest.mark.parametrize(
    ("existing", "preemptor", "want", "code", "message"),
    [c[1:] for c in GUARD_CASES],
    ids=[c[0] for c in GUARD_CASES],
)
def test_select_victims_with_a_guard(
    existing: list[Pod], preemptor: Pod, want: list[str], code: Code, message: str
) -> None:
    victims, violations, got_code, got_message = _select(existing, preemptor)
    assert (victims, violations, got_code, got_message) == (want, 0, code, message)


def test_guards_see_lower_priority_pods_least_important_first_and_chain() -> None:
    existing = [
        pod("mid", node="n", prio=MID, req=SMALL),
        pod("low", node="n", prio=LOW, req=SMALL, labels={"keep": "first"}),
        pod("high", node="n", prio=VERY_HIGH, req=SMALL),
        pod("mid2", node="n", prio=MID, req=SMALL, labels={"keep2": "second"}),
    ]
    env = preemption_env(
        [make_node("n").alloc(cpu="500m", memory="1Gi").obj()],
        existing,
        filters=[NodeResourcesFit, KeepGuard, RecordingGuard],
    )
    preemptor = pod("p", prio=HIGH, req={"cpu": "200m", "memory": "100"})
    victims, _, status = env.plugin.select_victims_on_node(
        env.pre_filter(preemptor), preemptor, env.node_infos()[0].clone(), []
    )
    first, second = env.fwk.plugins["KeepGuard"], env.fwk.plugins["RecordingGuard"]
    assert isinstance(first, KeepGuard) and isinstance(second, KeepGuard)
    # least important first; equal ones (same priority, no start time) in the node's order
    assert first.asked == [["low", "mid", "mid2"]]
    assert second.asked == [["mid", "mid2"]]
    assert status.is_success
    assert [v.metadata.name for v in victims] == ["mid"]


def test_a_guard_overrides_the_pdb_preference_and_the_violation_counts() -> None:
    """Upstream spares the PDB-covered pod and evicts the other; when the other is
    protected, the PDB-covered one goes and its violation is counted."""

    def existing() -> list[Pod]:
        return [
            pod("a", node="n", prio=LOW, req=HALF, labels={"keep": "kept"}),
            pod("b", node="n", prio=LOW, req=HALF, labels={"app": "x"}),
        ]

    budget = pdb({"app": "x"}, 0)
    preemptor = pod("p", prio=HIGH, req=HALF)
    assert _select(existing(), preemptor, guards=(), pdbs=[budget])[:3] == (["a"], 0, Code.Success)
    assert _select(existing(), preemptor, pdbs=[budget])[:3] == (["b"], 1, Code.Success)


def test_post_filter_names_the_guard_reason_and_clears_the_nomination() -> None:
    existing = [
        pod("a", node="node1", prio=LOW, req=HALF, labels={"keep": "a is kept"}),
        pod("b", node="node1", prio=LOW, req=HALF, labels={"keep": "a is kept"}),
        pod("c", node="node2", prio=LOW, req=HALF, labels={"keep": "a is kept"}),
    ]
    preemptor = pod("p", prio=HIGH, req={"cpu": "1", "memory": "100"})
    env = preemption_env(
        [make_node(n).alloc(NODE).obj() for n in ("node1", "node2")],
        existing,
        preemptor=preemptor,
        filters=[NodeResourcesFit, KeepGuard],
    )
    result, status = env.post_filter(preemptor, statuses({"node1": U, "node2": U}))
    assert result == PostFilterResult.nominate("")
    assert status is not None and status.code is U
    assert status.message() == "preemption: 0/2 nodes are available: 2 a is kept."
    assert env.cluster.deleted == []


# -- with no guard, or one that protects nothing, the search is upstream's ------------------


@settings(max_examples=40, deadline=None)
@given(
    existing=st.lists(
        st.tuples(st.integers(1, 8), st.integers(-2, 3), st.booleans()), min_size=1, max_size=6
    ),
    want_cpu=st.integers(1, 10),
    preemptor_priority=st.integers(-1, 3),
    allowed=st.integers(0, 2),
)
def test_a_guard_protecting_nothing_changes_nothing(
    existing: list[tuple[int, int, bool]], want_cpu: int, preemptor_priority: int, allowed: int
) -> None:
    def pods() -> list[Pod]:
        return [
            pod(
                f"e{i}",
                node="n",
                prio=prio,
                req={"cpu": f"{cpu * 100}m", "memory": "10"},
                labels={"app": "x"} if in_pdb else None,
            )
            for i, (cpu, prio, in_pdb) in enumerate(existing)
        ]

    preemptor = pod("p", prio=preemptor_priority, req={"cpu": f"{want_cpu * 100}m"})
    budgets = [pdb({"app": "x"}, allowed)]
    plain = _select(pods(), preemptor, guards=(), pdbs=budgets)
    guarded = _select(pods(), preemptor, guards=(RecordingGuard,), pdbs=budgets)
    assert guarded == plain


def test_the_guards_are_told_the_victims_of_the_chosen_node_only() -> None:
    existing = [
        pod("a", node="node1", prio=LOW, req=HALF),
        pod("b", node="node1", prio=MID, req=HALF),
        pod("c", node="node2", prio=MID, req=HALF),
        pod("d", node="node2", prio=MID, req=HALF),
    ]
    preemptor = pod("p", prio=HIGH, req=HALF)
    env = preemption_env(
        [make_node(n).alloc(NODE).obj() for n in ("node1", "node2")],
        existing,
        preemptor=preemptor,
        filters=[NodeResourcesFit, KeepGuard, RecordingGuard],
    )
    result, status = env.post_filter(preemptor, statuses({"node1": U, "node2": U}))
    assert result == PostFilterResult.nominate("node1")  # the lowest-priority victim
    assert status is not None and status.is_success
    for name in ("KeepGuard", "RecordingGuard"):
        guard = env.fwk.plugins[name]
        assert isinstance(guard, KeepGuard)
        assert guard.chosen == [("p", "node1", ["a"])]
    assert env.cluster.deleted == ["a"]


def test_no_guard_is_told_anything_when_preemption_fails() -> None:
    existing = [pod("a", node="node1", prio=LOW, req=HALF, labels={"keep": "kept"})]
    preemptor = pod("p", prio=HIGH, req={"cpu": "1", "memory": "100"})
    env = preemption_env(
        [make_node("node1").alloc(NODE).obj()],
        existing,
        preemptor=preemptor,
        filters=[NodeResourcesFit, KeepGuard],
    )
    _, status = env.post_filter(preemptor, statuses({"node1": U}))
    assert status is not None and status.code is U
    guard = env.fwk.plugins["KeepGuard"]
    assert isinstance(guard, KeepGuard)
    assert guard.asked == [["a"]]
    assert guard.chosen == []
