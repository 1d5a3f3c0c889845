"""TaintToleration, from upstream tainttoleration/taint_toleration_test.go (v1.34):
TestTaintTolerationScore, TestTaintTolerationFilter, TestIsSchedulableAfterNodeChange and the
pod-toleration queueing hint."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import fake_handle

from kubesched.api import Node, Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    Code,
    CycleState,
    EventResource,
    NoArgs,
    NodeInfo,
    NodeScore,
    QueueingHint,
    Status,
    is_success,
)
from kubesched.testing import make_node, make_pod
from kubesched_builtin.tainttoleration import ERR_REASON_UNTOLERATED, TaintToleration

PNS = "PreferNoSchedule"
# v1.34 taint_toleration.go (kubernetes/kubernetes#134740, release-1.34 #135023): the reason
# no longer names the taint
UNTOLERATED = Status.unresolvable("node(s) had untolerated taint(s)")


def _plugin() -> TaintToleration:
    return TaintToleration(NoArgs(), fake_handle())


def node_with_taints(name: str, taints: list[dict[str, str]]) -> Node:
    node = make_node(name)
    for t in taints:
        node.taint(t["key"], t["value"], t["effect"])
    return node.obj()


def pod_with_tolerations(name: str, tolerations: list[dict[str, str]], uid: str = "") -> Pod:
    """A pod without containers, with these tolerations; its uid is its name unless given."""
    pod = make_pod(name, namespace=None, uid=uid or name).no_containers()
    for t in tolerations:
        pod.toleration(**t)
    return pod.obj()


def taint(key: str, value: str, effect: str) -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def tol(key: str, value: str = "", effect: str = "", operator: str = "Equal") -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect, "operator": operator}


SCORE_CASES: list[tuple[str, Pod, list[Node], list[int]]] = [
    (
        "node with taints tolerated by the pod, gets a higher score than those node with "
        "intolerable taints",
        pod_with_tolerations("pod1", [tol("foo", "bar", PNS)]),
        [
            node_with_taints("nodeA", [taint("foo", "bar", PNS)]),
            node_with_taints("nodeB", [taint("foo", "blah", PNS)]),
        ],
        [100, 0],
    ),
    (
        "the nodes that all of their taints are tolerated by the pod, get the same score, no "
        "matter how many tolerable taints a node has",
        pod_with_tolerations("pod1", [tol("cpu-type", "arm64", PNS), tol("disk-type", "ssd", PNS)]),
        [
            node_with_taints("nodeA", []),
            node_with_taints("nodeB", [taint("cpu-type", "arm64", PNS)]),
            node_with_taints(
                "nodeC", [taint("cpu-type", "arm64", PNS), taint("disk-type", "ssd", PNS)]
            ),
        ],
        [100, 100, 100],
    ),
    (
        "the more intolerable taints a node has, the lower score it gets.",
        pod_with_tolerations("pod1", [tol("foo", "bar", PNS)]),
        [
            node_with_taints("nodeA", []),
            node_with_taints("nodeB", [taint("cpu-type", "arm64", PNS)]),
            node_with_taints(
                "nodeC", [taint("cpu-type", "arm64", PNS), taint("disk-type", "ssd", PNS)]
            ),
        ],
        [100, 50, 0],
    ),
    (
        "only taints and tolerations that have effect PreferNoSchedule are checked by "
        "taints-tolerations priority function",
        pod_with_tolerations(
            "pod1",
            [tol("cpu-type", "arm64", "NoSchedule"), tol("disk-type", "ssd", "NoSchedule")],
        ),
        [
            node_with_taints("nodeA", []),
            node_with_taints("nodeB", [taint("cpu-type", "arm64", "NoSchedule")]),
            node_with_taints(
                "nodeC", [taint("cpu-type", "arm64", PNS), taint("disk-type", "ssd", PNS)]
            ),
        ],
        [100, 100, 0],
    ),
    (
        "Default behaviour No taints and tolerations, lands on node with no taints",
        pod_with_tolerations("pod1", []),
        [
            node_with_taints("nodeA", []),
            node_with_taints("nodeB", [taint("cpu-type", "arm64", PNS)]),
        ],
        [100, 0],
    ),
    (
        "a toleration with an empty effect tolerates PreferNoSchedule taints too",
        pod_with_tolerations("pod1", [tol("foo", operator="Exists")]),
        [node_with_taints("nodeA", [taint("foo", "x", PNS)]), node_with_taints("nodeB", [])],
        [100, 100],
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "nodes", "want"), SCORE_CASES, ids=[c[0][:60] for c in SCORE_CASES]
)
def test_score(name: str, pod: Pod, nodes: list[Node], want: list[int]) -> None:
    plugin = _plugin()
    state = CycleState()
    infos = [NodeInfo(n) for n in nodes]
    assert is_success(plugin.pre_score(state, pod, infos))
    scores = []
    for info in infos:
        score, status = plugin.score(state, pod, info)
        assert is_success(status)
        scores.append(NodeScore(info.name, score))
    assert is_success(plugin.normalize_score(state, pod, scores))
    assert [(s.name, s.score) for s in scores] == [
        (n.metadata.name, w) for n, w in zip(nodes, want, strict=True)
    ]


def test_raw_score_counts_untolerated_prefer_no_schedule_taints() -> None:
    plugin = _plugin()
    pod = pod_with_tolerations("p", [tol("a", "1", PNS)])
    node = node_with_taints(
        "n", [taint("a", "1", PNS), taint("b", "1", PNS), taint("c", "1", "NoSchedule")]
    )
    state = CycleState()
    plugin.pre_score(state, pod, [])
    assert plugin.score(state, pod, NodeInfo(node)) == (1, None)


def test_score_without_pre_score_is_an_error() -> None:
    pod = pod_with_tolerations("p", [])
    _, status = _plugin().score(CycleState(), pod, NodeInfo(node_with_taints("n", [])))
    assert status is not None and status.code is Code.Error
    assert 'failed to read "PreScoreTaintToleration" from cycleState' in status.message()


FILTER_CASES: list[tuple[str, Pod, Node, Status | None]] = [
    (
        "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
        pod_with_tolerations("pod1", []),
        node_with_taints("nodeA", [taint("dedicated", "user1", "NoSchedule")]),
        UNTOLERATED,
    ),
    (
        "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
        pod_with_tolerations("pod1", [tol("dedicated", "user1", "NoSchedule")]),
        node_with_taints("nodeA", [taint("dedicated", "user1", "NoSchedule")]),
        None,
    ),
    (
        "A pod which can't be scheduled on a dedicated node assigned to user2 with effect "
        "NoSchedule",
        pod_with_tolerations("pod1", [tol("dedicated", "user2", "NoSchedule")]),
        node_with_taints("nodeA", [taint("dedicated", "user1", "NoSchedule")]),
        UNTOLERATED,
    ),
    (
        "A pod can be scheduled onto the node, with a toleration uses operator Exists that "
        "tolerates the taints on the node",
        pod_with_tolerations("pod1", [tol("foo", effect="NoSchedule", operator="Exists")]),
        node_with_taints("nodeA", [taint("foo", "bar", "NoSchedule")]),
        None,
    ),
    (
        "A pod has multiple tolerations, node has multiple taints, all the taints are "
        "tolerated, pod can be scheduled onto the node",
        pod_with_tolerations(
            "pod1",
            [
                tol("dedicated", "user2", "NoSchedule"),
                tol("foo", effect="NoSchedule", operator="Exists"),
            ],
        ),
        node_with_taints(
            "nodeA", [taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")]
        ),
        None,
    ),
    (
        "A pod has a toleration that keys and values match the taint on the node, but "
        "(non-empty) effect doesn't match, can't be scheduled onto the node",
        pod_with_tolerations("pod1", [tol("foo", "bar", PNS)]),
        node_with_taints("nodeA", [taint("foo", "bar", "NoSchedule")]),
        UNTOLERATED,
    ),
    (
        "The pod has a toleration that keys and values match the taint on the node, the "
        "effect of toleration is empty, and the effect of taint is NoSchedule. Pod can be "
        "scheduled onto the node",
        pod_with_tolerations("pod1", [tol("foo", "bar")]),
        node_with_taints("nodeA", [taint("foo", "bar", "NoSchedule")]),
        None,
    ),
    (
        "The pod has a toleration that key and value don't match the taint on the node, but "
        "the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
        pod_with_tolerations("pod1", [tol("dedicated", "user2", "NoSchedule")]),
        node_with_taints("nodeA", [taint("dedicated", "user1", PNS)]),
        None,
    ),
    (
        "The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod "
        "can be scheduled onto the node",
        pod_with_tolerations("pod1", []),
        node_with_taints("nodeA", [taint("dedicated", "user1", PNS)]),
        None,
    ),
    (
        "NoExecute taints are enforced like NoSchedule",
        pod_with_tolerations("pod1", [tol("other", "x", "NoExecute")]),
        node_with_taints("nodeA", [taint("evict", "now", "NoExecute")]),
        UNTOLERATED,
    ),
    (
        "several untolerated taints give the one reason, which names none of them",
        pod_with_tolerations("pod1", [tol("a", "1", "NoSchedule")]),
        node_with_taints(
            "nodeA",
            [
                taint("a", "1", "NoSchedule"),
                taint("b", "2", "NoSchedule"),
                taint("c", "", "NoSchedule"),
            ],
        ),
        UNTOLERATED,
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "node", "want"), FILTER_CASES, ids=[c[0][:60] for c in FILTER_CASES]
)
def test_filter(name: str, pod: Pod, node: Node, want: Status | None) -> None:
    assert _plugin().filter(CycleState(), pod, NodeInfo(node)) == want


def test_reason_constant() -> None:
    assert ERR_REASON_UNTOLERATED == "node(s) had untolerated taint(s)"


NODE_HINT_CASES: list[tuple[str, Pod | None, Any, Any, QueueingHint]] = [
    ("backoff-wrong-new-object", None, None, "not-a-node", QueueingHint.Queue),
    (
        "backoff-wrong-old-object",
        None,
        "not-a-node",
        node_with_taints("nodeA", [taint("dedicated", "user1", "NoSchedule")]),
        QueueingHint.Queue,
    ),
    (
        "skip-queue-on-untoleratedtaint-node-added",
        pod_with_tolerations("pod1", [tol("dedicated", "user2", "NoSchedule")]),
        None,
        node_with_taints("nodeA", [taint("dedicated", "user1", "NoSchedule")]),
        QueueingHint.QueueSkip,
    ),
    (
        "queue-on-toleratedtaint-node-added",
        pod_with_tolerations("pod1", [tol("dedicated", "user2", "NoSchedule")]),
        None,
        node_with_taints("nodeA", [taint("dedicated", "user2", "NoSchedule")]),
        QueueingHint.Queue,
    ),
    (
        "skip-unrelated-change",
        pod_with_tolerations("pod1", [tol("dedicated", "user2", "NoSchedule")]),
        node_with_taints("nodeA", [taint("dedicated", "user1", "NoSchedule")]),
        node_with_taints(
            "nodeA",
            [taint("dedicated", "user1", "NoSchedule"), taint("dedicated", "user3", "NoSchedule")],
        ),
        QueueingHint.QueueSkip,
    ),
    (
        "queue-on-taint-change",
        pod_with_tolerations("pod1", [tol("dedicated", "user2", "NoSchedule")]),
        node_with_taints("nodeA", [taint("dedicated", "user1", "NoSchedule")]),
        node_with_taints("nodeA", [taint("dedicated", "user2", "NoSchedule")]),
        QueueingHint.Queue,
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "old", "new", "want"), NODE_HINT_CASES, ids=[c[0] for c in NODE_HINT_CASES]
)
def test_is_schedulable_after_node_change(
    name: str, pod: Pod | None, old: Any, new: Any, want: QueueingHint
) -> None:
    target = pod or pod_with_tolerations("p", [])
    assert _plugin().is_schedulable_after_node_change(target, old, new) is want


def test_is_schedulable_after_pod_toleration_change() -> None:
    plugin = _plugin()
    pod = pod_with_tolerations("pod-1", [], uid="uid0")
    other_old = pod_with_tolerations("pod-2", [], uid="uid1")
    other_new = pod_with_tolerations("pod-2", [tol("foo", effect="NoSchedule")], uid="uid1")
    same_new = pod_with_tolerations("pod-1", [tol("foo", effect="NoSchedule")], uid="uid0")
    hint = plugin.is_schedulable_after_pod_toleration_change
    assert hint(pod, None, "not-a-pod") is QueueingHint.Queue  # backoff-wrong-new-object
    assert hint(pod, "not-a-pod", pod) is QueueingHint.Queue  # backoff-wrong-old-object
    assert hint(pod, other_old, other_new) is QueueingHint.QueueSkip  # skip-updates-other-pod
    assert hint(pod, pod, same_new) is QueueingHint.Queue  # queue-on-toleration-added


def test_events_to_register() -> None:
    events = {(e.event.resource, e.event.action) for e in _plugin().events_to_register()}
    assert events == {
        (EventResource.Node, ActionType.Add | ActionType.UpdateNodeTaint),
        (EventResource.Pod, ActionType.UpdatePodToleration),
    }
    registered = [e.event for e in _plugin().events_to_register()]
    label_update = ClusterEvent(EventResource.Node, ActionType.UpdateNodeLabel)
    assert not any(r.matches(label_update) for r in registered)
