"""NodeAffinity PreScore, Score and NormalizeScore, from upstream node_affinity_test.go
TestNodeAffinityPriority, and the queueing hint from Test_isSchedulableAfterNodeChange."""

from __future__ import annotations

from typing import Any

import pytest
from nodeaffinity_helpers import (
    affinity_plugin,
    expr,
    make_affinity_node,
    pod_with,
    preferred,
    required,
    term,
)

from kubesched.api import Node, Pod
from kubesched.framework import (
    ActionType,
    Code,
    CycleState,
    EventResource,
    NodeInfo,
    NodeScore,
    QueueingHint,
    Status,
    is_success,
)

LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}

AFFINITY1 = preferred((2, term(expr("foo", "In", "bar"))))
AFFINITY2 = preferred(
    (2, term(expr("foo", "In", "bar"))),
    (4, term(expr("key", "In", "value"))),
    (5, term(expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1"))),
)

BROKEN_KEY_MESSAGE = (
    '[0].matchExpressions[0].key: Invalid value: "invalid key": name part must consist of '
    "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def nodes(*spec: tuple[str, dict[str, str]]) -> list[Node]:
    return [make_affinity_node(name, labels) for name, labels in spec]


def case(
    name: str,
    pod: Pod,
    node_list: list[Node],
    want: list[int] | None = None,
    *,
    args: dict[str, Any] | None = None,
    run_pre_score: bool = True,
    want_pre_score: Status | None = None,
) -> Any:
    return pytest.param(pod, node_list, want, args, run_pre_score, want_pre_score, id=name)


CASES = [
    case(
        "all nodes are same priority as NodeAffinity is nil",
        pod_with(),
        nodes(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)),
        [0, 0, 0],
        run_pre_score=False,
    ),
    case(
        "Skip is returned in PreScore when NodeAffinity is nil",
        pod_with(),
        nodes(("node1", LABEL1)),
        want_pre_score=Status.skip(),
    ),
    case(
        "PreScore returns error when an incoming Pod has a broken affinity",
        pod_with(preferred((2, term(expr("invalid key", "In", "bar"))))),
        nodes(("node1", LABEL1)),
        want_pre_score=Status.as_error(BROKEN_KEY_MESSAGE),
    ),
    case(
        "no node matches preferred scheduling requirements in NodeAffinity of pod so all "
        "nodes' priority is zero",
        pod_with(AFFINITY1),
        nodes(("node1", LABEL4), ("node2", LABEL2), ("node3", LABEL3)),
        [0, 0, 0],
    ),
    case(
        "only node1 matches the preferred scheduling requirements of pod",
        pod_with(AFFINITY1),
        nodes(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL3)),
        [100, 0, 0],
    ),
    case(
        "all nodes matches the preferred scheduling requirements of pod but with different "
        "priorities",
        pod_with(AFFINITY2),
        nodes(("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)),
        [18, 100, 36],
    ),
    case(
        "added affinity",
        pod_with(),
        nodes(("node1", LABEL1), ("node2", LABEL2)),
        [100, 0],
        args={"addedAffinity": AFFINITY1},
    ),
    case(
        "added affinity and pod has default affinity",
        pod_with(AFFINITY1),
        nodes(("node1", LABEL1), ("node2", LABEL2), ("node3", LABEL5)),
        [40, 60, 100],
        args={"addedAffinity": preferred((3, term(expr("key", "In", "value"))))},
    ),
    case(
        "calculate the priorities correctly even if PreScore is not called",
        pod_with(AFFINITY2),
        nodes(("node1", LABEL1), ("node5", LABEL5), ("node2", LABEL2)),
        [18, 100, 36],
        run_pre_score=False,
    ),
    # beyond upstream's table
    case(
        "terms of weight 0 and empty terms are ignored",
        pod_with(
            preferred((0, term(expr("foo", "Exists"))), (7, {}), (1, term(expr("az", "Exists"))))
        ),
        nodes(("node1", LABEL1), ("node3", LABEL3)),
        [0, 100],
    ),
]


@pytest.mark.parametrize(
    ("pod", "node_list", "want", "args", "run_pre_score", "want_pre_score"), CASES
)
def test_node_affinity_priority(
    pod: Pod,
    node_list: list[Node],
    want: list[int] | None,
    args: dict[str, Any] | None,
    run_pre_score: bool,
    want_pre_score: Status | None,
) -> None:
    plugin = affinity_plugin(args)
    infos = [NodeInfo(n) for n in node_list]
    state = CycleState()
    if run_pre_score:
        status = plugin.pre_score(state, pod, infos)
        assert status == want_pre_score
        if not is_success(status):
            return
    scores = []
    for info in infos:
        score, status = plugin.score(state, pod, info)
        assert is_success(status)
        scores.append(NodeScore(info.name, score))
    assert is_success(plugin.normalize_score(state, pod, scores))
    assert [s.score for s in scores] == want


def test_raw_score_sums_matching_weights() -> None:
    plugin = affinity_plugin({"addedAffinity": preferred((3, term(expr("key", "In", "value"))))})
    pod = pod_with(AFFINITY2)
    state = CycleState()
    assert plugin.pre_score(state, pod, []) is None
    node = make_affinity_node("node5", LABEL5)
    assert plugin.score(state, pod, NodeInfo(node)) == (2 + 4 + 5 + 3, None)


def test_score_without_pre_score_reports_a_broken_affinity() -> None:
    pod = pod_with(preferred((2, term(expr("invalid key", "In", "bar")))))
    _, status = affinity_plugin().score(CycleState(), pod, NodeInfo(make_affinity_node("n")))
    assert status is not None and status.code is Code.Error
    assert status.message() == BROKEN_KEY_MESSAGE


POD_WITH_NODE_AFFINITY = pod_with(required(term(expr("foo", "In", "bar"))))
ADDED_FOO_BAR = {"addedAffinity": required(term(expr("foo", "In", "bar")))}


def node(labels: dict[str, str] | None = None) -> Node:
    return make_affinity_node("", labels)


@pytest.mark.parametrize(
    ("args", "old", "new", "want"),
    [
        pytest.param({}, None, "not-a-node", QueueingHint.Queue, id="backoff-wrong-new-object"),
        pytest.param({}, "not-a-node", node(), QueueingHint.Queue, id="backoff-wrong-old-object"),
        pytest.param({}, None, node(), QueueingHint.QueueSkip, id="skip-queue-on-add"),
        pytest.param({}, None, node({"foo": "bar"}), QueueingHint.Queue, id="queue-on-add"),
        pytest.param({}, node(), node(), QueueingHint.QueueSkip, id="skip-unrelated-changes"),
        pytest.param(
            {},
            node(),
            node({"k": "v"}),
            QueueingHint.QueueSkip,
            id="skip-unrelated-changes-on-labels",
        ),
        pytest.param(
            {},
            node({"foo": "bar"}),
            node({"k": "v"}),
            QueueingHint.QueueSkip,
            id="skip-labels-changes-on-node-from-suitable-to-unsuitable",
        ),
        pytest.param(
            {},
            node(),
            node({"foo": "bar"}),
            QueueingHint.Queue,
            id="queue-on-labels-change-makes-pod-schedulable",
        ),
        pytest.param(
            ADDED_FOO_BAR,
            None,
            node(),
            QueueingHint.QueueSkip,
            id="skip-queue-on-add-scheduler-enforced-node-affinity",
        ),
        pytest.param(
            ADDED_FOO_BAR,
            None,
            node({"foo": "bar"}),
            QueueingHint.Queue,
            id="queue-on-add-scheduler-enforced-node-affinity",
        ),
        pytest.param(
            {},
            node({"foo": "bar"}),
            node({"foo": "bar", "x": "y"}),
            QueueingHint.QueueSkip,
            id="skip-still-matching",
        ),
    ],
)
def test_is_schedulable_after_node_change(
    args: dict[str, Any], old: Any, new: Any, want: QueueingHint
) -> None:
    plugin = affinity_plugin(args)
    assert plugin.is_schedulable_after_node_change(POD_WITH_NODE_AFFINITY, old, new) is want


def test_hint_queues_when_the_pods_affinity_does_not_parse() -> None:
    # upstream returns (Queue, err) when matching reports a parse error
    pod = pod_with(required(term(expr("bad key", "Exists"))))
    hint = affinity_plugin().is_schedulable_after_node_change(pod, None, node({"a": "b"}))
    assert hint is QueueingHint.Queue


def test_events_to_register() -> None:
    events = affinity_plugin().events_to_register()
    assert [(e.event.resource, e.event.action) for e in events] == [
        (EventResource.Node, ActionType.Add | ActionType.UpdateNodeLabel)
    ]
    assert events[0].hint is not None
