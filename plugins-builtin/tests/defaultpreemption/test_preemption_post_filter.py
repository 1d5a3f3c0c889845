"""DefaultPreemption.PostFilter, from upstream default_preemption_test.go (TestPostFilter,
TestPreempt) and TestPodEligibleToPreemptOthers."""

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
    SMALL,
    VERY_HIGH,
    VERY_LARGE,
    ErrorOnLabelPlugin,
    nodes_named,
    pdb,
    pod,
    preemption_env,
    statuses,
)

from kubesched.api import Node, Pod
from kubesched.framework import Code, NodeToStatus, PodInfo, PostFilterResult, Status

U, UUR = Code.Unschedulable, Code.UnschedulableAndUnresolvable
ONE_POD = {"pods": "1"}
NODE_RES = {"cpu": "200m", "memory": "400"}


def _nodes(*specs: tuple[str, dict[str, str]], labels: dict[str, str] | None = None) -> list[Node]:
    return [make_node(n).alloc(a).label(**(labels or {})).obj() for n, a in specs]


POST_FILTER_CASES: list[tuple[str, dict[str, Any], PostFilterResult | None, Status]] = [
    (
        "pod with higher priority can be made schedulable",
        {
            "pod": pod("p", prio=HIGH),
            "pods": [pod("p1", node="node1")],
            "nodes": _nodes(("node1", ONE_POD)),
            "statuses": statuses({"node1": U}),
        },
        PostFilterResult.nominate("node1"),
        Status(),
    ),
    (
        "pod with tied priority is still unschedulable",
        {
            "pod": pod("p"),
            "pods": [pod("p1", node="node1")],
            "nodes": _nodes(("node1", ONE_POD)),
            "statuses": statuses({"node1": U}),
        },
        PostFilterResult.nominate(""),
        Status.unschedulable(
            "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
        ),
    ),
    (
        "preemption should respect filteredNodesStatuses",
        {
            "pod": pod("p", prio=HIGH),
            "pods": [pod("p1", node="node1")],
            "nodes": _nodes(("node1", ONE_POD)),
            "statuses": statuses({"node1": UUR}),
        },
        PostFilterResult.nominate(""),
        Status.unschedulable(
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
        ),
    ),
    (
        "preemption should respect absent NodeToStatusReader entry meaning "
        "UnschedulableAndUnresolvable",
        {
            "pod": pod("p", prio=HIGH),
            "pods": [pod("p1", node="node1")],
            "nodes": _nodes(("node1", ONE_POD)),
            "statuses": NodeToStatus(),
        },
        PostFilterResult.nominate(""),
        Status.unschedulable(
            "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
        ),
    ),
    (
        "pod can be made schedulable on one node",
        {
            "pod": pod("p", prio=MID),
            "pods": [pod("p1", prio=HIGH, node="node1"), pod("p2", prio=LOW, node="node2")],
            "nodes": _nodes(("node1", ONE_POD), ("node2", ONE_POD)),
            "statuses": statuses({"node1": U, "node2": U}),
        },
        PostFilterResult.nominate("node2"),
        Status(),
    ),
    (
        "pod can be made schedulable on minHighestPriority node",
        {
            "pod": pod("p", prio=VERY_HIGH),
            "pods": [
                pod("p1", labels={"pdb": "non-violating"}, prio=HIGH, node="node1"),
                pod("p2", labels={"pdb": "violating"}, prio=LOW, node="node1"),
                pod("p3", labels={"pdb": "violating"}, prio=MID, node="node2"),
            ],
            "pdbs": [
                pdb({"pdb": "violating"}, 0, name="violating-pdb", min_available="100%"),
                pdb({"pdb": "non-violating"}, 2**31 - 1, name="non-violating-pdb"),
            ],
            "nodes": _nodes(("node1", ONE_POD), ("node2", ONE_POD)),
            "statuses": statuses({"node1": U, "node2": U}),
        },
        PostFilterResult.nominate("node2"),
        Status(),
    ),
    (
        "no candidate nodes found, no enough resource after removing low priority pods",
        {
            "pod": pod("p", prio=HIGH, req=LARGE),
            "pods": [pod("p1", node="node1"), pod("p2", node="node2")],
            "nodes": _nodes(("node1", NODE_RES), ("node2", NODE_RES)),
            "statuses": statuses({"node1": U, "node2": U}),
        },
        PostFilterResult.nominate(""),
        Status.unschedulable("preemption: 0/2 nodes are available: 2 Insufficient cpu."),
    ),
    (
        "no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU "
        "resource",
        {
            "pod": pod("p", prio=HIGH, req=LARGE),
            "pods": [
                pod("p1", node="node1", prio=HIGH),
                pod("p2", node="node2"),
                pod("p3", node="node3", prio=HIGH),
            ],
            "nodes": _nodes(("node1", ONE_POD), ("node2", NODE_RES), ("node3", ONE_POD)),
            "statuses": statuses({"node1": U, "node2": U, "node3": U}),
        },
        PostFilterResult.nominate(""),
        Status.unschedulable(
            "preemption: 0/3 nodes are available: 1 Insufficient cpu, "
            "2 No preemption victims found for incoming pod."
        ),
    ),
    (
        "no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and "
        "2 nodes don't have enough CPU resource",
        {
            "pod": pod("p", prio=HIGH, req=LARGE),
            "pods": [pod("p1", node="node1"), pod("p2", node="node2")],
            "nodes": _nodes(*((f"node{i}", NODE_RES) for i in range(1, 5))),
            "statuses": statuses({"node1": U, "node2": U, "node4": UUR}),
        },
        PostFilterResult.nominate(""),
        Status.unschedulable(
            "preemption: 0/4 nodes are available: 2 Insufficient cpu, "
            "2 Preemption is not helpful for scheduling."
        ),
    ),
    (
        "one failed with TestPlugin and the other pass",
        {
            "pod": pod("p", prio=HIGH, req=LARGE),
            "pods": [pod("p1", node="node1"), pod("p2", node="node2", req=MEDIUM)],
            "nodes": [
                make_node("node1").alloc(LARGE).label(error="true").obj(),
                make_node("node2").alloc(LARGE).obj(),
            ],
            "statuses": statuses({"node1": U, "node2": U}),
        },
        PostFilterResult.nominate("node2"),
        Status(),
    ),
]


@pytest.mark.parametrize(
    ("case", "want_result", "want_status"),
    [(c, r, s) for _, c, r, s in POST_FILTER_CASES],
    ids=[name for name, *_ in POST_FILTER_CASES],
)
def test_post_filter(
    case: dict[str, Any], want_result: PostFilterResult | None, want_status: Status
) -> None:
    env = preemption_env(
        case["nodes"],
        case["pods"],
        preemptor=case["pod"],
        pdbs=case.get("pdbs", ()),
        pre_filters=[ErrorOnLabelPlugin],
    )
    result, status = env.post_filter(case["pod"], case["statuses"])
    assert status is not None
    assert (status.code, status.message()) == (want_status.code, want_status.message())
    assert result == want_result


def test_post_filter_error_from_remove_pod_extension() -> None:
    # upstream "only one node but failed with TestPlugin"
    env = preemption_env(
        [make_node("node1").alloc(LARGE).label(error="true").obj()],
        [pod("p1", node="node1")],
        preemptor=pod("p", prio=HIGH, req=LARGE),
        pre_filters=[ErrorOnLabelPlugin],
    )
    result, status = env.post_filter(pod("p", prio=HIGH, req=LARGE), statuses({"node1": U}))
    assert result is None
    assert status is not None and status.code is Code.Error
    assert status.message() == (
        'preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p'
    )
    assert env.cluster.deleted == []


# -- TestPreempt: the victims are evicted -------------------------------------------------

PREEMPT_NODES = ("node1", "node2", "node3")


@pytest.mark.parametrize(
    ("name", "preemptor", "pods", "want_node", "want_victims"),
    [
        (
            "basic preemption logic",
            pod("p", prio=HIGH, req=VERY_LARGE),
            [
                pod("p1.1", node="node1", prio=LOW, req=SMALL),
                pod("p1.2", node="node1", prio=LOW, req=SMALL),
                pod("p2.1", node="node2", prio=HIGH, req=LARGE),
                pod("p3.1", node="node3", prio=MID, req=MEDIUM),
            ],
            "node1",
            ["p1.1", "p1.2"],
        ),
        (
            "no preempting in pod",
            pod("p", prio=HIGH, req=VERY_LARGE, never=True),
            [
                pod("p1.1", node="node1", prio=LOW, req=SMALL),
                pod("p1.2", node="node1", prio=LOW, req=SMALL),
                pod("p2.1", node="node2", prio=HIGH, req=LARGE),
                pod("p3.1", node="node3", prio=MID, req=MEDIUM),
            ],
            None,
            [],
        ),
        (
            "PreemptionPolicy is nil",
            pod("p", prio=HIGH, req=VERY_LARGE),
            [
                pod("p1.1", node="node1", prio=LOW, req=SMALL),
                pod("p1.2", node="node1", prio=LOW, req=SMALL),
                pod("p2.1", node="node2", prio=HIGH, req=LARGE),
                pod("p3.1", node="node3", prio=MID, req=MEDIUM),
            ],
            "node1",
            ["p1.1", "p1.2"],
        ),
    ],
)
def test_preempt(
    name: str, preemptor: Any, pods: list[Any], want_node: str | None, want_victims: list[str]
) -> None:
    env = preemption_env(nodes_named(*PREEMPT_NODES), pods, preemptor=preemptor)
    all_unschedulable = statuses(dict.fromkeys(PREEMPT_NODES, U))
    result, status = env.post_filter(preemptor, all_unschedulable)
    if want_node is None:
        assert result is None
        assert status == Status.unschedulable(
            "preemption: not eligible due to preemptionPolicy=Never."
        )
    else:
        assert result == PostFilterResult.nominate(want_node)
        assert status is not None and status.is_success
    assert sorted(env.cluster.deleted) == want_victims
    # every deleted victim first got the DisruptionTarget condition
    patched = sorted(n for n, c, _ in env.cluster.conditions if c.type == "DisruptionTarget")
    assert patched == want_victims
    for _, cond, _ in env.cluster.conditions:
        assert (cond.status, cond.reason, cond.message) == (
            "True",
            "PreemptionByScheduler",
            "default-scheduler: preempting to accommodate a higher priority pod",
        )
    assert sorted(e[0] for e in env.recorder.events) == want_victims
    for _, kind, reason, action, message in env.recorder.events:
        assert (kind, reason, action) == ("Normal", "Preempted", "Preempting")
        assert message == f"Preempted by pod p on node {want_node}"
    # preemption.go Eventf(victim, pod, ...): the preemptor is the related object
    assert env.recorder.related == ["p"] * len(want_victims)


def test_preempt_clears_lower_priority_nominations_on_the_node() -> None:
    # upstream prepareCandidate: getLowerPriorityNominatedPods + clearNominatedNodeName
    low = pod("low", prio=LOW, nominated="node1")
    higher = pod("higher", prio=VERY_HIGH, nominated="node1")
    preemptor = pod("p", prio=HIGH, req=VERY_LARGE)
    victim = pod("v", node="node1", prio=LOW, req=SMALL)
    env = preemption_env(nodes_named("node1"), [victim], preemptor=preemptor)
    env.cluster.pods.update({("default", "low"): low, ("default", "higher"): higher})
    env.nominator.by_node["node1"] = [PodInfo(low), PodInfo(higher)]
    result, _ = env.post_filter(preemptor, statuses({"node1": U}))
    assert result == PostFilterResult.nominate("node1")
    assert env.cluster.deleted == ["v"]
    assert [p.metadata.name for p in env.cluster.updated] == ["low"]
    assert env.cluster.pods[("default", "low")].status.nominated_node_name == ""
    assert env.cluster.pods[("default", "higher")].status.nominated_node_name == "node1"


def test_failed_eviction_activates_the_preemptor() -> None:
    # upstream prepareCandidateAsync: on an API error the preemptor is moved to activeQ
    preemptor = pod("p", prio=HIGH, req=VERY_LARGE)
    env = preemption_env(
        nodes_named("node1"), [pod("v", node="node1", prio=LOW, req=SMALL)], preemptor=preemptor
    )
    activated: list[str] = []
    env.fwk.activator = lambda pods: activated.extend(p.metadata.name for p in pods)

    async def failing_delete(kind: str, name: str, namespace: str | None = None) -> None:
        raise RuntimeError("apiserver unavailable")

    env.cluster.delete = failing_delete  # type: ignore[method-assign]
    result, _ = env.post_filter(preemptor, statuses({"node1": U}))
    assert result == PostFilterResult.nominate("node1")
    assert activated == ["p"]
    assert env.recorder.events == []


# -- TestPodEligibleToPreemptOthers ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "preemptor", "pods", "nodes", "nominated_status", "want"),
    [
        (
            "Pod with nominated node",
            pod("p_with_nominated_node", prio=HIGH, nominated="node1"),
            [pod("p1", prio=LOW, node="node1", terminating=True)],
            ["node1"],
            Status.unresolvable("node(s) had untolerated taint"),
            True,
        ),
        ("Pod without nominated node", pod("p", prio=HIGH), [], [], None, True),
        (
            "Pod with 'PreemptNever' preemption policy",
            pod("p", prio=HIGH, never=True),
            [],
            [],
            None,
            False,
        ),
        (
            "preemption victim pod terminating, as indicated by the dedicated DisruptionTarget "
            "condition",
            pod("p_with_nominated_node", prio=HIGH, nominated="node1"),
            [pod("p1", prio=LOW, node="node1", terminating=True, disruption_target=True)],
            ["node1"],
            None,
            False,
        ),
        (
            "non-victim Pods terminating",
            pod("p_with_nominated_node", prio=HIGH, nominated="node1"),
            [pod("p1", prio=LOW, node="node1", terminating=True)],
            ["node1"],
            None,
            True,
        ),
        (
            "higher-priority pod terminating by preemption does not block",
            pod("p_with_nominated_node", prio=HIGH, nominated="node1"),
            [pod("p1", prio=VERY_HIGH, node="node1", terminating=True, disruption_target=True)],
            ["node1"],
            None,
            True,
        ),
    ],
)
def test_pod_eligible_to_preempt_others(
    name: str,
    preemptor: Any,
    pods: list[Any],
    nodes: list[str],
    nominated_status: Status | None,
    want: bool,
) -> None:
    env = preemption_env(nodes_named(*nodes), pods, preemptor=preemptor, filters=[])
    eligible, reason = env.plugin.pod_eligible_to_preempt_others(preemptor, nominated_status)
    assert eligible is want
    assert (reason == "") is want


def test_not_eligible_while_its_victim_terminates_keeps_the_nomination() -> None:
    preemptor = pod("p", prio=HIGH, req=VERY_LARGE, nominated="node1")
    victim = pod("v", node="node1", prio=LOW, req=LARGE, terminating=True, disruption_target=True)
    env = preemption_env(nodes_named("node1"), [victim], preemptor=preemptor)
    result, status = env.post_filter(preemptor, statuses({"node1": U}))
    assert result is None  # None keeps the pod's nomination
    assert status == Status.unschedulable(
        "preemption: not eligible due to a terminating pod on the nominated node."
    )
    assert env.cluster.deleted == []


class _WaitingVictim:
    def __init__(self, victim: Pod) -> None:
        self.pod = victim
        self.rejected: list[tuple[str, str]] = []

    def get_pending_plugins(self) -> list[str]:
        return ["SomePermit"]

    def allow(self, plugin: str) -> None:
        raise AssertionError("a victim is never allowed")

    def reject(self, plugin: str, message: str) -> bool:
        self.rejected.append((plugin, message))
        return True


def test_victim_waiting_at_permit_is_rejected_not_deleted() -> None:
    # upstream PreemptPod: a WaitingPod is sent Preempt(plugin, "preempted")
    victim = pod("v", node="node1", prio=LOW, req=LARGE)
    preemptor = pod("p", prio=HIGH, req=LARGE)
    env = preemption_env([make_node("node1").alloc(LARGE).obj()], [victim], preemptor=preemptor)
    waiting = _WaitingVictim(victim)
    env.fwk.get_waiting_pod = lambda uid: waiting if uid == "v" else None  # type: ignore[method-assign]
    result, _ = env.post_filter(preemptor, statuses({"node1": U}))
    assert result == PostFilterResult.nominate("node1")
    assert waiting.rejected == [("DefaultPreemption", "preempted")]
    assert env.cluster.deleted == []
    assert [e[2] for e in env.recorder.events] == ["Preempted"]
