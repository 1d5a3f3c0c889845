"""Choosing the node and counting candidates, from upstream default_preemption_test.go
(TestSelectBestCandidate, TestCustomSelection, TestCustomOrdering) and calculateNumCandidates."""

from __future__ import annotations

from typing import Any

import pytest
from builtin_helpers import make_node
from preemption_helpers import (
    HIGH,
    LARGE,
    LOW,
    MEDIUM,
    MID,
    NEG,
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    epoch,
    nodes_named,
    pod,
    preemption_env,
)
from pydantic import BaseModel

from kubesched.api import Pod
from kubesched.framework import NodeInfo, PodInfo
from kubesched_builtin.defaultpreemption import DefaultPreemption

# -- TestSelectBestCandidate ------------------------------------------------------------------

SELECT_CASES: list[tuple[str, list[str], Pod, list[Pod], list[str]]] = [
    (
        "a pod that fits on both nodes when lower priority pods are preempted",
        ["node1", "node2"],
        pod("p", prio=HIGH, req=LARGE),
        [
            pod("p1", node="node1", prio=MID, req=LARGE, start=epoch(0)),
            pod("p2", node="node2", prio=MID, req=LARGE, start=epoch(0)),
        ],
        ["node1", "node2"],
    ),
    (
        "node with min highest priority pod is picked",
        ["node1", "node2", "node3"],
        pod("p", prio=HIGH, req=VERY_LARGE),
        [
            pod("p1.1", node="node1", prio=MID, req=MEDIUM, start=epoch(0)),
            pod("p1.2", node="node1", prio=MID, req=LARGE, start=epoch(0)),
            pod("p2.1", node="node2", prio=MID, req=MEDIUM, start=epoch(0)),
            pod("p2.2", node="node2", prio=LOW, req=MEDIUM, start=epoch(0)),
            pod("p3.1", node="node3", prio=LOW, req=MEDIUM, start=epoch(0)),
            pod("p3.2", node="node3", prio=LOW, req=MEDIUM, start=epoch(0)),
        ],
        ["node3"],
    ),
    (
        "when highest priorities are the same, minimum sum of priorities is picked",
        ["node1", "node2", "node3"],
        pod("p", prio=HIGH, req=VERY_LARGE),
        [
            pod("p1.1", node="node1", prio=MID, req=MEDIUM, start=epoch(0)),
            pod("p1.2", node="node1", prio=MID, req=LARGE, start=epoch(0)),
            pod("p2.1", node="node2", prio=MID, req=LARGE, start=epoch(0)),
            pod("p2.2", node="node2", prio=LOW, req=MEDIUM, start=epoch(0)),
            pod("p3.1", node="node3", prio=MID, req=MEDIUM, start=epoch(0)),
            pod("p3.2", node="node3", prio=MID, req=MEDIUM, start=epoch(0)),
        ],
        ["node2"],
    ),
    (
        "when highest priority and sum are the same, minimum number of pods is picked",
        ["node1", "node2", "node3"],
        pod("p", prio=HIGH, req=VERY_LARGE),
        [
            pod("p1.1", node="node1", prio=MID, req=SMALL, start=epoch(0)),
            pod("p1.2", node="node1", prio=NEG, req=SMALL, start=epoch(0)),
            pod("p1.3", node="node1", prio=MID, req=SMALL, start=epoch(0)),
            pod("p1.4", node="node1", prio=NEG, req=SMALL, start=epoch(0)),
            pod("p2.1", node="node2", prio=MID, req=LARGE, start=epoch(0)),
            pod("p2.2", node="node2", prio=NEG, req=MEDIUM, start=epoch(0)),
            pod("p3.1", node="node3", prio=MID, req=MEDIUM, start=epoch(0)),
            pod("p3.2", node="node3", prio=NEG, req=SMALL, start=epoch(0)),
            pod("p3.3", node="node3", prio=LOW, req=SMALL, start=epoch(0)),
        ],
        ["node2"],
    ),
    (
        "sum of adjusted priorities is considered",
        ["node1", "node2", "node3"],
        pod("p", prio=HIGH, req=VERY_LARGE),
        [
            pod("p1.1", node="node1", prio=MID, req=SMALL, start=epoch(0)),
            pod("p1.2", node="node1", prio=NEG, req=SMALL, start=epoch(0)),
            pod("p1.3", node="node1", prio=NEG, req=SMALL, start=epoch(0)),
            pod("p2.1", node="node2", prio=MID, req=LARGE, start=epoch(0)),
            pod("p2.2", node="node2", prio=NEG, req=MEDIUM, start=epoch(0)),
            pod("p3.1", node="node3", prio=MID, req=MEDIUM, start=epoch(0)),
            pod("p3.2", node="node3", prio=NEG, req=SMALL, start=epoch(0)),
            pod("p3.3", node="node3", prio=LOW, req=SMALL, start=epoch(0)),
        ],
        ["node2"],
    ),
    (
        "non-overlapping lowest high priority, sum priorities, and number of pods",
        ["node1", "node2", "node3", "node4"],
        pod("p", prio=VERY_HIGH, req=VERY_LARGE),
        [
            pod("p1.1", node="node1", prio=MID, req=SMALL, start=epoch(0)),
            pod("p1.2", node="node1", prio=LOW, req=SMALL, start=epoch(0)),
            pod("p1.3", node="node1", prio=LOW, req=SMALL, start=epoch(0)),
            pod("p2.1", node="node2", prio=HIGH, req=LARGE, start=epoch(0)),
            pod("p3.1", node="node3", prio=MID, req=MEDIUM, start=epoch(0)),
            pod("p3.2", node="node3", prio=LOW, req=SMALL, start=epoch(0)),
            pod("p3.3", node="node3", prio=LOW, req=SMALL, start=epoch(0)),
            pod("p3.4", node="node3", prio=LOW, req=MEDIUM, start=epoch(0)),
            pod("p4.1", node="node4", prio=MID, req=MEDIUM, start=epoch(0)),
            pod("p4.2", node="node4", prio=MID, req=SMALL, start=epoch(0)),
            pod("p4.3", node="node4", prio=MID, req=SMALL, start=epoch(0)),
            pod("p4.4", node="node4", prio=NEG, req=SMALL, start=epoch(0)),
        ],
        ["node1"],
    ),
    (
        "same priority, same number of victims, different start time for each node's pod",
        ["node1", "node2", "node3"],
        pod("p", prio=HIGH, req=VERY_LARGE),
        [
            pod("p1.1", node="node1", prio=MID, req=MEDIUM, start=epoch(2)),
            pod("p1.2", node="node1", prio=MID, req=MEDIUM, start=epoch(2)),
            pod("p2.1", node="node2", prio=MID, req=MEDIUM, start=epoch(3)),
            pod("p2.2", node="node2", prio=MID, req=MEDIUM, start=epoch(3)),
            pod("p3.1", node="node3", prio=MID, req=MEDIUM, start=epoch(1)),
            pod("p3.2", node="node3", prio=MID, req=MEDIUM, start=epoch(1)),
        ],
        ["node2"],
    ),
    (
        "same priority, same number of victims, different start time for all pods",
        ["node1", "node2", "node3"],
        pod("p", prio=HIGH, req=VERY_LARGE),
        [
            pod("p1.1", node="node1", prio=MID, req=MEDIUM, start=epoch(4)),
            pod("p1.2", node="node1", prio=MID, req=MEDIUM, start=epoch(2)),
            pod("p2.1", node="node2", prio=MID, req=MEDIUM, start=epoch(5)),
            pod("p2.2", node="node2", prio=MID, req=MEDIUM, start=epoch(1)),
            pod("p3.1", node="node3", prio=MID, req=MEDIUM, start=epoch(3)),
            pod("p3.2", node="node3", prio=MID, req=MEDIUM, start=epoch(6)),
        ],
        ["node3"],
    ),
    (
        "different priority, same number of victims, different start time for all pods",
        ["node1", "node2", "node3"],
        pod("p", prio=HIGH, req=VERY_LARGE),
        [
            pod("p1.1", node="node1", prio=LOW, req=MEDIUM, start=epoch(4)),
            pod("p1.2", node="node1", prio=MID, req=MEDIUM, start=epoch(2)),
            pod("p2.1", node="node2", prio=MID, req=MEDIUM, start=epoch(6)),
            pod("p2.2", node="node2", prio=LOW, req=MEDIUM, start=epoch(1)),
            pod("p3.1", node="node3", prio=LOW, req=MEDIUM, start=epoch(3)),
            pod("p3.2", node="node3", prio=MID, req=MEDIUM, start=epoch(5)),
        ],
        ["node2"],
    ),
]


@pytest.mark.parametrize(
    ("node_names", "preemptor", "existing", "expected"),
    [case[1:] for case in SELECT_CASES],
    ids=[case[0] for case in SELECT_CASES],
)
@pytest.mark.parametrize("offset", [0, 1, 2])
def test_select_best_candidate(
    node_names: list[str], preemptor: Pod, existing: list[Pod], expected: list[str], offset: int
) -> None:
    env = preemption_env(nodes_named(*node_names), existing)
    env.plugin.offset_rand = lambda n: offset % n
    infos = env.node_infos()
    num = len(infos)
    off, n = env.plugin.get_offset_and_num_candidates(num)
    assert n == num  # the defaults (10%, 100) look at every node of a small cluster
    candidates, _, _ = env.plugin.evaluator.dry_run_preemption(
        env.pre_filter(preemptor), preemptor, infos, [], off, n
    )
    best = env.plugin.evaluator.select_candidate(candidates)
    assert best is not None and best.name in expected


# -- TestCustomSelection / TestCustomOrdering --------------------------------------------------


def _label_is(key: str, value: str) -> Any:
    def eligible(node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        return victim.pod.metadata.labels.get(key) == value

    return eligible


@pytest.mark.parametrize(
    ("preemptor", "expected"),
    [
        (pod("p1", prio=HIGH, req=LARGE), {"node2": ["v2"], "node3": ["v3"]}),
        (pod("p2", prio=MID, req=LARGE), {"node3": ["v3"]}),
        (pod("p3", prio=LOW, req=LARGE), {}),
    ],
    ids=["high priority", "mid priority", "low priority"],
)
def test_custom_selection_by_victim_label(preemptor: Pod, expected: dict[str, list[str]]) -> None:
    existing = [
        pod("v1", labels={"preemptible": "no"}, node="node1", prio=MID, req=LARGE),
        pod("v2", labels={"preemptible": "yes"}, node="node2", prio=MID, req=LARGE),
        pod("v3", labels={"preemptible": "yes"}, node="node3", prio=LOW, req=LARGE),
        pod("v4", node="node4", prio=LOW, req=LARGE),
    ]
    env = preemption_env(nodes_named("node1", "node2", "node3", "node4"), existing)
    env.plugin.is_eligible_pod = _label_is("preemptible", "yes")
    candidates, _, _ = env.plugin.evaluator.dry_run_preemption(
        env.pre_filter(preemptor), preemptor, env.node_infos(), [], 0, 4
    )
    got = {c.name: [p.metadata.name for p in c.victims.pods] for c in candidates}
    assert got == expected


def test_custom_ordering_selects_newest_pods() -> None:
    existing = [
        pod("v1", node="node1", prio=LOW, req=MEDIUM, start=epoch(2)),
        pod("v2", node="node1", prio=LOW, req=MEDIUM, start=epoch(0)),
        pod("v3", node="node1", prio=MID, req=MEDIUM, start=epoch(1)),
    ]
    env = preemption_env(nodes_named("node1"), existing)

    def oldest_first(a: Pod, b: Pod) -> bool:
        assert a.status.start_time is not None and b.status.start_time is not None
        return a.status.start_time < b.status.start_time

    env.plugin.more_important_pod = oldest_first
    preemptor = pod("p2", prio=HIGH, req=LARGE)
    candidates, _, _ = env.plugin.evaluator.dry_run_preemption(
        env.pre_filter(preemptor), preemptor, env.node_infos(), [], 0, 1
    )
    assert len(candidates) == 1
    # the newest two pods are evicted, despite one with higher priority
    assert [p.metadata.name for p in candidates[0].victims.pods] == ["v3", "v1"]


# -- calculateNumCandidates ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("num_nodes", "percentage", "absolute", "want"),
    [
        (0, 50, 10, 0),  # no nodes
        (100, 10, 100, 100),  # small cluster with defaults
        (100, 100, 100, 100),  # small cluster with a very high percentage
        (500, 10, 100, 100),  # reference: 500 nodes give 100
        (5000, 10, 100, 500),  # reference: 5000 nodes give 500
        (10000, 10, 100, 1000),  # large cluster with defaults
        (10000, 100, 100, 10000),  # large cluster with a very high percentage
        (10000, 10, 10000, 10000),  # large cluster with a very high absolute
        (10000, 10, 1, 1000),  # large cluster with a small absolute
        (10000, 1, 100, 100),  # large cluster with a small percentage
        (10000, 1, 1, 100),  # small percentage and absolute
        (10000, 0, 100, 100),  # zero percentage
        (10000, 10, 0, 1000),  # zero absolute
    ],
)
def test_calculate_num_candidates(
    num_nodes: int, percentage: int, absolute: int, want: int
) -> None:
    env = preemption_env(
        [make_node("n").alloc(SMALL).obj()],
        [],
        args={"minCandidateNodesPercentage": percentage, "minCandidateNodesAbsolute": absolute},
    )
    assert env.plugin.calculate_num_candidates(num_nodes) == want


def test_offset_is_deterministic_run_to_run() -> None:
    a = preemption_env(nodes_named("n1"), []).plugin
    b = preemption_env(nodes_named("n1"), []).plugin
    draws_a = [a.get_offset_and_num_candidates(1000)[0] for _ in range(20)]
    draws_b = [b.get_offset_and_num_candidates(1000)[0] for _ in range(20)]
    assert draws_a == draws_b
    assert len(set(draws_a)) > 1  # it is still an offset that moves from call to call
    assert all(0 <= d < 1000 for d in draws_a)


class _OtherArgs(BaseModel):
    pass


def test_plugin_rejects_foreign_args() -> None:
    env = preemption_env(nodes_named("n1"), [])
    with pytest.raises(TypeError, match="wants args of type DefaultPreemptionArgs"):
        DefaultPreemption(_OtherArgs(), env.fwk)
