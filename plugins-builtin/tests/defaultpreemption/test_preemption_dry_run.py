"""The preemption dry run, from upstream default_preemption_test.go (TestDryRunPreemption)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from builtin_helpers import make_node
from hypothesis import given, settings
from hypothesis import strategies as st
from preemption_helpers import (
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    CountingFilter,
    FalseFilter,
    MatchFilter,
    TrueFilter,
    epoch,
    nodes_named,
    pdb,
    pod,
    preemption_env,
)

from kubesched.api import Pod
from kubesched.framework import Code
from kubesched.framework.preemption import by_importance, importance_key
from kubesched_builtin.noderesources import NodeResourcesFit

FIT = NodeResourcesFit

# (name, filters, nodes, preemptors, existing pods, pdbs, fake filter code, args,
#  expected candidates per preemptor: [(node, victims sorted, pdb violations)], filter calls)
DRY_RUN_CASES: list[tuple[Any, ...]] = [
    (
        "a pod that does not fit on any node",
        [FalseFilter],
        ["node1", "node2"],
        [pod("p", prio=HIGH)],
        [pod("p1", node="node1", prio=MID), pod("p2", node="node2", prio=MID)],
        [],
        Code.Success,
        None,
        [[]],
        [2],
    ),
    (
        "a pod that fits with no preemption",
        [TrueFilter],
        ["node1", "node2"],
        [pod("p", prio=HIGH)],
        [pod("p1", node="node1", prio=MID), pod("p2", node="node2", prio=MID)],
        [],
        Code.Unschedulable,
        None,
        [[]],
        [2],
    ),
    (
        "a pod that fits on one node with no preemption",
        [MatchFilter],
        ["node1", "node2"],
        [pod("node1", prio=HIGH)],
        [pod("p1", node="node1", prio=MID), pod("p2", node="node2", prio=MID)],
        [],
        Code.Unschedulable,
        None,
        [[]],
        [2],
    ),
    (
        "a pod that fits on both nodes when lower priority pods are preempted",
        [FIT],
        ["node1", "node2"],
        [pod("p", prio=HIGH, req=LARGE)],
        [
            pod("p1", node="node1", prio=MID, req=LARGE),
            pod("p2", node="node2", prio=MID, req=LARGE),
        ],
        [],
        Code.Success,
        None,
        [[("node1", ["p1"], 0), ("node2", ["p2"], 0)]],
        [4],
    ),
    (
        "a pod that would fit on the nodes, but other pods running are higher priority, "
        "no preemption would happen",
        [FIT],
        ["node1", "node2"],
        [pod("p", prio=LOW, req=LARGE)],
        [
            pod("p1", node="node1", prio=MID, req=LARGE),
            pod("p2", node="node2", prio=MID, req=LARGE),
        ],
        [],
        Code.Success,
        None,
        [[]],
        [0],
    ),
    (
        "medium priority pod is preempted, but lower priority one stays as it is small",
        [FIT],
        ["node1", "node2"],
        [pod("p", prio=HIGH, req=LARGE)],
        [
            pod("p1.1", node="node1", prio=LOW, req=SMALL),
            pod("p1.2", node="node1", prio=MID, req=LARGE),
            pod("p2", node="node2", prio=MID, req=LARGE),
        ],
        [],
        Code.Success,
        None,
        [[("node1", ["p1.2"], 0), ("node2", ["p2"], 0)]],
        [5],
    ),
    (
        "mixed priority pods are preempted",
        [FIT],
        ["node1", "node2"],
        [pod("p", prio=HIGH, req=LARGE)],
        [
            pod("p1.1", node="node1", prio=MID, req=SMALL),
            pod("p1.2", node="node1", prio=LOW, req=SMALL),
            pod("p1.3", node="node1", prio=MID, req=MEDIUM),
            pod("p1.4", node="node1", prio=HIGH, req=SMALL),
            pod("p2", node="node2", prio=HIGH, req=LARGE),
        ],
        [],
        Code.Success,
        None,
        [[("node1", ["p1.2", "p1.3"], 0)]],
        [4],
    ),
    (
        "mixed priority pods are preempted, pick later StartTime one when priorities are equal",
        [FIT],
        ["node1", "node2"],
        [pod("p", prio=HIGH, req=LARGE)],
        [
            pod("p1.1", node="node1", prio=LOW, req=SMALL, start=epoch(5)),
            pod("p1.2", node="node1", prio=LOW, req=SMALL, start=epoch(4)),
            pod("p1.3", node="node1", prio=MID, req=MEDIUM, start=epoch(3)),
            pod("p1.4", node="node1", prio=HIGH, req=SMALL, start=epoch(2)),
            pod("p2", node="node2", prio=HIGH, req=LARGE, start=epoch(1)),
        ],
        [],
        Code.Success,
        None,
        [[("node1", ["p1.1", "p1.3"], 0)]],
        [4],
    ),
    (
        "get Unschedulable in the preemption phase when the filter plugins filtering the nodes",
        [FIT],
        ["node1", "node2"],
        [pod("p", prio=HIGH, req=LARGE)],
        [
            pod("p1", node="node1", prio=MID, req=LARGE),
            pod("p2", node="node2", prio=MID, req=LARGE),
        ],
        [],
        Code.Unschedulable,
        None,
        [[]],
        [2],
    ),
    (
        "preemption with violation of same pdb",
        [FIT],
        ["node1"],
        [pod("p", prio=HIGH, req=VERY_LARGE)],
        [
            pod("p1.1", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
            pod("p1.2", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
        ],
        [pdb({"app": "foo"}, 1)],
        Code.Success,
        None,
        [[("node1", ["p1.1", "p1.2"], 1)]],
        [3],
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was processed, the "
        "victim doesn't belong to DisruptedPods",
        [FIT],
        ["node1"],
        [pod("p", prio=HIGH, req=VERY_LARGE)],
        [
            pod("p1.1", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
            pod("p1.2", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
        ],
        [pdb({"app": "foo"}, 1, disrupted=["p2"])],
        Code.Success,
        None,
        [[("node1", ["p1.1", "p1.2"], 1)]],
        [3],
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was processed, the "
        "victim belongs to DisruptedPods",
        [FIT],
        ["node1"],
        [pod("p", prio=HIGH, req=VERY_LARGE)],
        [
            pod("p1.1", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
            pod("p1.2", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
        ],
        [pdb({"app": "foo"}, 1, disrupted=["p1.2"])],
        Code.Success,
        None,
        [[("node1", ["p1.1", "p1.2"], 0)]],
        [3],
    ),
    (
        "preemption with violation of the pdb with pod whose eviction was processed, the "
        "victim which belongs to DisruptedPods is treated as 'nonViolating'",
        [FIT],
        ["node1"],
        [pod("p", prio=HIGH, req=VERY_LARGE)],
        [
            pod("p1.1", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
            pod("p1.2", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
            pod("p1.3", node="node1", labels={"app": "foo"}, prio=MID, req=MEDIUM),
        ],
        [pdb({"app": "foo"}, 1, disrupted=["p1.3"])],
        Code.Success,
        None,
        [[("node1", ["p1.1", "p1.2", "p1.3"], 1)]],
        [4],
    ),
    (
        "all nodes are possible candidates, but DefaultPreemptionArgs limits to 2",
        [FIT],
        [f"node{i}" for i in range(1, 6)],
        [pod("p", prio=HIGH, req=LARGE)],
        [pod(f"p{i}", node=f"node{i}", prio=MID, req=LARGE) for i in range(1, 6)],
        [],
        Code.Success,
        {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
        # offset 4: node5 (yes), node1 (yes)
        [[("node1", ["p1"], 0), ("node5", ["p5"], 0)]],
        [4],
    ),
    (
        "some nodes are not possible candidates, DefaultPreemptionArgs limits to 2",
        [FIT],
        [f"node{i}" for i in range(1, 6)],
        [pod("p", prio=HIGH, req=LARGE)],
        [
            pod("p1", node="node1", prio=MID, req=LARGE),
            pod("p2", node="node2", prio=VERY_HIGH, req=LARGE),
            pod("p3", node="node3", prio=MID, req=LARGE),
            pod("p4", node="node4", prio=MID, req=LARGE),
            pod("p5", node="node5", prio=VERY_HIGH, req=LARGE),
        ],
        [],
        Code.Success,
        {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
        # offset 4: node5 (no), node1 (yes), node2 (no), node3 (yes)
        [[("node1", ["p1"], 0), ("node3", ["p3"], 0)]],
        [4],
    ),
    (
        "preemption offset across multiple scheduling cycles and wrap around",
        [FIT],
        [f"node{i}" for i in range(1, 6)],
        [pod(f"tp{i}", prio=HIGH, req=LARGE) for i in range(1, 4)],
        [pod(f"p{i}", node=f"node{i}", prio=MID, req=LARGE) for i in range(1, 6)],
        [],
        Code.Success,
        {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
        [
            [("node1", ["p1"], 0), ("node5", ["p5"], 0)],  # offset 4
            [("node2", ["p2"], 0), ("node3", ["p3"], 0)],  # offset 1
            [("node4", ["p4"], 0), ("node5", ["p5"], 0)],  # offset 3
        ],
        [4, 4, 4],
    ),
    (
        "preemption looks past numCandidates until a non-PDB violating node is found",
        [FIT],
        [f"node{i}" for i in range(1, 6)],
        [pod("p", prio=HIGH, req=LARGE)],
        [
            pod("p1", node="node1", labels={"app": "foo"}, prio=MID, req=LARGE),
            pod("p2", node="node2", labels={"app": "foo"}, prio=MID, req=LARGE),
            pod("p3", node="node3", prio=MID, req=LARGE),
            pod("p4", node="node4", prio=MID, req=LARGE),
            pod("p5", node="node5", labels={"app": "foo"}, prio=MID, req=LARGE),
        ],
        [pdb({"app": "foo"}, 0)],
        Code.Success,
        {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2},
        # offset 4: node5 (yes, pdb), node1 (yes, pdb), node2 (no: list full), node3 (yes)
        [[("node1", ["p1"], 1), ("node3", ["p3"], 0), ("node5", ["p5"], 1)]],
        [8],
    ),
]


def _offsets(values: Sequence[int]) -> Iterator[int]:
    """What upstream's rand.New(rand.NewSource(4)).Int31n(5) yields: 4, 1, 3."""
    yield from values


@pytest.mark.parametrize(
    ("filters", "node_names", "preemptors", "existing", "pdbs", "code", "args", "want", "calls"),
    [case[1:] for case in DRY_RUN_CASES],
    ids=[case[0] for case in DRY_RUN_CASES],
)
@pytest.mark.parametrize("room_shortcut", [False, True], ids=["upstream", "shortcut"])
def test_dry_run_preemption(
    room_shortcut: bool,
    filters: list[type[Any]],
    node_names: list[str],
    preemptors: list[Pod],
    existing: list[Pod],
    pdbs: list[Any],
    code: Code,
    args: dict[str, int] | None,
    want: list[list[tuple[str, list[str], int]]],
    calls: list[int],
) -> None:
    env = preemption_env(
        nodes_named(*node_names), existing, filters=[CountingFilter, *filters], args=args
    )
    counter = env.fwk.plugins["FakeFilter"]
    assert isinstance(counter, CountingFilter)
    counter.codes = dict.fromkeys(node_names, code)
    offsets = _offsets([4, 1, 3])
    env.plugin.offset_rand = lambda n: next(offsets) % n
    # the shortcut finds the same candidates with no more Filter calls than upstream's
    env.plugin.room_shortcut = room_shortcut
    infos = sorted(env.node_infos(), key=lambda n: n.name)
    for cycle, preemptor in enumerate(preemptors):
        state = env.pre_filter(preemptor)
        before = counter.calls
        offset, num = env.plugin.get_offset_and_num_candidates(len(infos))
        candidates, _, errors = env.plugin.evaluator.dry_run_preemption(
            state, preemptor, infos, pdbs, offset, num
        )
        assert errors == []
        got = sorted(
            (c.name, sorted(p.metadata.name for p in c.victims.pods), c.victims.num_pdb_violations)
            for c in candidates
        )
        assert got == want[cycle], f"cycle {cycle}"
        if room_shortcut:
            assert counter.calls - before <= calls[cycle], f"cycle {cycle}"
        else:
            assert counter.calls - before == calls[cycle], f"cycle {cycle}"


def test_dry_run_leaves_the_snapshot_untouched() -> None:
    existing = [pod("p1", node="node1", prio=MID, req=LARGE)]
    env = preemption_env(nodes_named("node1"), existing)
    preemptor = pod("p", prio=HIGH, req=LARGE)
    infos = env.node_infos()
    before = [(i.name, len(i.pods), i.requested.milli_cpu) for i in infos]
    env.plugin.evaluator.dry_run_preemption(env.pre_filter(preemptor), preemptor, infos, [], 0, 1)
    assert [(i.name, len(i.pods), i.requested.milli_cpu) for i in infos] == before


# -- an invariant of SelectVictimsOnNode ------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    existing=st.lists(st.tuples(st.integers(1, 8), st.integers(-2, 3)), min_size=1, max_size=6),
    want_cpu=st.integers(1, 10),
    preemptor_priority=st.integers(-1, 3),
)
def test_victims_are_lower_priority_enough_and_each_one_needed(
    existing: list[tuple[int, int]], want_cpu: int, preemptor_priority: int
) -> None:
    """With resource fit alone: the preemptor fits once the victims are gone, every victim
    has a lower priority, and putting any single victim back would not fit."""
    pods = [
        pod(f"e{i}", node="n", prio=prio, req={"cpu": f"{cpu * 100}m"})
        for i, (cpu, prio) in enumerate(existing)
    ]
    node = make_node("n").alloc(cpu="1", memory="1Gi").obj()
    env = preemption_env([node], pods)
    preemptor = pod("p", prio=preemptor_priority, req={"cpu": f"{want_cpu * 100}m"})
    state = env.pre_filter(preemptor)
    info = env.node_infos()[0]
    victims, violations, status = env.plugin.select_victims_on_node(
        state.clone(), preemptor, info.clone(), []
    )
    if not status.is_success:
        return

    def fits(removed: set[str]) -> bool:
        trial = info.clone()
        for p in pods:
            if p.metadata.name in removed:
                trial.remove_pod(p)
        return env.fwk.run_filter_plugins(state, preemptor, trial).is_success

    assert violations == 0
    assert all(v.priority < preemptor_priority for v in victims)
    names = {v.metadata.name for v in victims}
    assert fits(names)
    # no victims only when it already fits (PostFilter never asks then; the dry run would
    # call that an error)
    assert bool(names) is not fits(set())
    for name in names:
        assert not fits(names - {name}), f"{name} did not need to go"


@settings(max_examples=80, deadline=None)
@given(
    existing=st.lists(st.tuples(st.integers(1, 8), st.integers(-2, 3)), min_size=1, max_size=6),
    want_cpu=st.integers(1, 10),
    preemptor_priority=st.integers(-1, 3),
    max_pods=st.integers(1, 7),
)
def test_room_shortcut_rules_out_only_nodes_without_victims(
    existing: list[tuple[int, int]], want_cpu: int, preemptor_priority: int, max_pods: int
) -> None:
    """`rules_out_node` says yes only where SelectVictimsOnNode finds no victims, and the
    shortcut changes neither the victims nor the status (cpu and pod count both short)."""
    pods = [
        pod(f"e{i}", node="n", prio=prio, req={"cpu": f"{cpu * 100}m"})
        for i, (cpu, prio) in enumerate(existing)
    ]
    node = make_node("n").alloc(cpu="1", memory="1Gi", pods=str(max_pods)).obj()
    env = preemption_env([node], pods)
    preemptor = pod("p", prio=preemptor_priority, req={"cpu": f"{want_cpu * 100}m"})
    state = env.pre_filter(preemptor)
    info = env.node_infos()[0]
    answers = []
    for shortcut in (False, True):
        env.plugin.room_shortcut = shortcut
        victims, violations, status = env.plugin.select_victims_on_node(
            state.clone(), preemptor, info.clone(), []
        )
        answers.append(([v.metadata.name for v in victims], violations, status))
    assert answers[0] == answers[1]
    assert env.plugin.rules_out_node(state, preemptor, info) is False or not answers[1][0]
    env.plugin.room_shortcut = False
    assert env.plugin.rules_out_node(state, preemptor, info) is False


@settings(max_examples=60, deadline=None)
@given(
    pods_=st.lists(
        st.tuples(st.integers(-2, 2), st.one_of(st.none(), st.integers(0, 3))), max_size=8
    )
)
def test_the_default_victim_sort_key_sorts_as_the_comparison(
    pods_: list[tuple[int, int | None]],
) -> None:
    """The default order's plain sort key (priority, then start time, `now` for pods not
    started) sorts exactly as upstream's MoreImportantPod comparison, ties included."""
    env = preemption_env([make_node("n").alloc(cpu="1").obj()], [])
    base = datetime(2024, 1, 1, tzinfo=UTC)
    pods = [
        pod(f"p{i}", prio=prio, start=None if start is None else base + timedelta(seconds=start))
        for i, (prio, start) in enumerate(pods_)
    ]
    more_important, key = env.plugin._importance()
    assert [p.metadata.name for p in sorted(pods, key=key)] == [
        p.metadata.name for p in by_importance(pods, more_important)
    ]
    assert [p.metadata.name for p in sorted(pods, key=key, reverse=True)] == [
        p.metadata.name for p in sorted(pods, key=importance_key(more_important), reverse=True)
    ]
