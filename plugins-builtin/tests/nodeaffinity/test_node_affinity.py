"""NodeAffinity PreFilter and Filter, from upstream nodeaffinity/node_affinity_test.go (v1.34)
TestNodeAffinity, plus the PreFilterResult rules for `matchFields metadata.name`."""

from __future__ import annotations

from typing import Any

import pytest
from nodeaffinity_helpers import (
    affinity_plugin,
    expr,
    field_in,
    make_affinity_node,
    pod_with,
    required,
    term,
)

from kubesched.api import Pod
from kubesched.framework import CycleState, NodeInfo, PreFilterResult, Status
from kubesched_builtin.nodeaffinity import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    PRE_FILTER_STATE_KEY,
)

POD_MISMATCH = Status.unresolvable(ERR_REASON_POD)
SKIP = Status.skip()
ADDED_NODE2 = {"addedAffinity": required(term(fields=[field_in("node2")]))}


def case(
    name: str,
    pod: Pod,
    *,
    labels: dict[str, str] | None = None,
    node_name: str = "",
    want: Status | None = None,
    want_pre_filter: Status | None = None,
    want_result: set[str] | None = None,
    args: dict[str, Any] | None = None,
    run_pre_filter: bool = True,
) -> Any:
    return pytest.param(
        pod,
        labels,
        node_name,
        want,
        want_pre_filter,
        want_result,
        args,
        run_pre_filter,
        id=name,
    )


GPU = {"GPU": "NVIDIA-GRID-K1"}

CASES = [
    case("missing labels", pod_with(node_selector={"foo": "bar"}), want=POD_MISMATCH),
    case("same labels", pod_with(node_selector={"foo": "bar"}), labels={"foo": "bar"}),
    case(
        "node labels are superset",
        pod_with(node_selector={"foo": "bar"}),
        labels={"foo": "bar", "baz": "blah"},
    ),
    case(
        "node labels are subset",
        pod_with(node_selector={"foo": "bar", "baz": "blah"}),
        labels={"foo": "bar"},
        want=POD_MISMATCH,
    ),
    case(
        "Pod with matchExpressions using In operator that matches the existing node",
        pod_with(required(term(expr("foo", "In", "bar", "value2")))),
        labels={"foo": "bar"},
    ),
    case(
        "Pod with matchExpressions using Gt operator that matches the existing node",
        pod_with(required(term(expr("kernel-version", "Gt", "0204")))),
        labels={"kernel-version": "0206"},
    ),
    case(
        "Pod with matchExpressions using NotIn operator that matches the existing node",
        pod_with(required(term(expr("mem-type", "NotIn", "DDR", "DDR2")))),
        labels={"mem-type": "DDR3"},
    ),
    case(
        "Pod with matchExpressions using Exists operator that matches the existing node",
        pod_with(required(term(expr("GPU", "Exists")))),
        labels=GPU,
    ),
    case(
        "Pod with affinity that don't match node's labels won't schedule onto the node",
        pod_with(required(term(expr("foo", "In", "value1", "value2")))),
        labels={"foo": "bar"},
        want=POD_MISMATCH,
    ),
    case(
        "Pod with empty MatchExpressions is not a valid value will match no objects and won't "
        "schedule onto the node",
        pod_with(required({"matchExpressions": []})),
        labels={"foo": "bar"},
        want=POD_MISMATCH,
    ),
    case(
        "Pod with no Affinity will schedule onto a node",
        pod_with(),
        labels={"foo": "bar"},
        want_pre_filter=SKIP,
    ),
    case(
        "Pod with Affinity but nil NodeSelector will schedule onto a node",
        pod_with({}),
        labels={"foo": "bar"},
        want_pre_filter=SKIP,
    ),
    case(
        "Pod with multiple matchExpressions ANDed that matches the existing node",
        pod_with(required(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")))),
        labels=GPU,
    ),
    case(
        "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
        pod_with(required(term(expr("GPU", "Exists"), expr("GPU", "In", "AMD", "INTER")))),
        labels=GPU,
        want=POD_MISMATCH,
    ),
    case(
        "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and "
        "will schedule onto the node",
        pod_with(
            required(
                term(expr("foo", "In", "bar", "value2")),
                term(expr("diffkey", "In", "wrong", "value2")),
            )
        ),
        labels={"foo": "bar"},
    ),
    case(
        "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are "
        "deprecating) both are satisfied, will schedule onto the node",
        pod_with(required(term(expr("foo", "Exists"))), node_selector={"foo": "bar"}),
        labels={"foo": "bar"},
    ),
    case(
        "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing "
        "that we are deprecating) is not satisfied, won't schedule onto the node",
        pod_with(required(term(expr("foo", "Exists"))), node_selector={"foo": "bar"}),
        labels={"foo": "barrrrrr"},
        want=POD_MISMATCH,
    ),
    case(
        "Pod with an invalid value in Affinity term won't be scheduled onto the node",
        pod_with(required(term(expr("foo", "NotIn", "invalid value: ___@#$%^")))),
        labels={"foo": "bar"},
        want=POD_MISMATCH,
    ),
    case(
        "Pod with matchFields using In operator that matches the existing node",
        pod_with(required(term(fields=[field_in("node1")]))),
        node_name="node1",
        want_result={"node1"},
    ),
    case(
        "Pod with matchFields using In operator that does not match the existing node",
        pod_with(required(term(fields=[field_in("node1")]))),
        node_name="node2",
        want=POD_MISMATCH,
        want_result={"node1"},
    ),
    case(
        "Pod with two terms: matchFields does not match, but matchExpressions matches",
        pod_with(
            required(
                term(fields=[field_in("node1"), field_in("node2")]),
                term(expr("foo", "In", "bar")),
            )
        ),
        node_name="node2",
        labels={"foo": "bar"},
    ),
    case(
        "Pod with one term: matchFields does not match, but matchExpressions matches",
        pod_with(required(term(expr("foo", "In", "bar"), fields=[field_in("node1")]))),
        node_name="node2",
        labels={"foo": "bar"},
        want=POD_MISMATCH,
        want_result={"node1"},
    ),
    case(
        "Pod with one term: both matchFields and matchExpressions match",
        pod_with(required(term(expr("foo", "In", "bar"), fields=[field_in("node1")]))),
        node_name="node1",
        labels={"foo": "bar"},
        want_result={"node1"},
    ),
    case(
        "Pod with two terms: both matchFields and matchExpressions do not match",
        pod_with(
            required(
                term(fields=[field_in("node1")]),
                term(expr("foo", "In", "not-match-to-bar")),
            )
        ),
        node_name="node2",
        labels={"foo": "bar"},
        want=POD_MISMATCH,
    ),
    case(
        "Pod with two terms of node.Name affinity",
        pod_with(required(term(fields=[field_in("node1")]), term(fields=[field_in("node2")]))),
        node_name="node2",
        want_result={"node1", "node2"},
    ),
    case(
        "Pod with two conflicting mach field requirements",
        pod_with(required(term(fields=[field_in("node1"), field_in("node2")]))),
        node_name="node2",
        labels={"foo": "bar"},
        want_pre_filter=Status.unresolvable(ERR_REASON_CONFLICT),
        want=POD_MISMATCH,
    ),
    case(
        "Matches added affinity and Pod's node affinity",
        pod_with(required(term(expr("zone", "In", "foo")))),
        node_name="node2",
        labels={"zone": "foo"},
        args=ADDED_NODE2,
    ),
    case(
        "Matches added affinity but not Pod's node affinity",
        pod_with(required(term(expr("zone", "In", "bar")))),
        node_name="node2",
        labels={"zone": "foo"},
        args=ADDED_NODE2,
        want=POD_MISMATCH,
    ),
    case(
        "Doesn't match added affinity",
        pod_with(),
        node_name="node2",
        labels={"zone": "foo"},
        args={"addedAffinity": required(term(expr("zone", "In", "bar")))},
        want=Status.unresolvable(ERR_REASON_ENFORCED),
    ),
    case(
        "Matches node selector correctly even if PreFilter is not called",
        pod_with(node_selector={"foo": "bar"}),
        labels={"foo": "bar", "baz": "blah"},
        run_pre_filter=False,
    ),
    case(
        "Matches node affinity correctly even if PreFilter is not called",
        pod_with(required(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER")))),
        labels=GPU,
        run_pre_filter=False,
    ),
    # beyond upstream's table
    case(
        "matchFields requirements of one term intersect",
        pod_with(required(term(fields=[field_in("n1", "n2", "n3"), field_in("n2", "n3", "n4")]))),
        node_name="n2",
        want_result={"n2", "n3"},
        want=POD_MISMATCH,  # a field requirement with several values does not parse
    ),
    case(
        "a NotIn matchFields requirement does not narrow the nodes",
        pod_with(
            required(term(fields=[{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]))
        ),
        node_name="n2",
    ),
    case(
        "a term that does not parse never matches, but another term still can",
        pod_with(required(term(expr("bad key", "Exists")), term(expr("foo", "Exists")))),
        labels={"foo": "bar"},
    ),
    case(
        "Gt with a value that is not an integer does not match",
        pod_with(required(term(expr("kernel-version", "Gt", "two")))),
        labels={"kernel-version": "3"},
        want=POD_MISMATCH,
    ),
    case(
        "Lt compares integers, not strings",
        pod_with(required(term(expr("cores", "Lt", "10")))),
        labels={"cores": "9"},
    ),
    case(
        "a term of only matchFields checks the node name",
        pod_with(
            required(term(fields=[{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]))
        ),
        node_name="n1",
        want=POD_MISMATCH,
    ),
]


@pytest.mark.parametrize(
    (
        "pod",
        "labels",
        "node_name",
        "want",
        "want_pre_filter",
        "want_result",
        "args",
        "run_pre_filter",
    ),
    CASES,
)
def test_node_affinity(
    pod: Pod,
    labels: dict[str, str] | None,
    node_name: str,
    want: Status | None,
    want_pre_filter: Status | None,
    want_result: set[str] | None,
    args: dict[str, Any] | None,
    run_pre_filter: bool,
) -> None:
    plugin = affinity_plugin(args)
    info = NodeInfo(make_affinity_node(node_name, labels))
    state = CycleState()
    if run_pre_filter:
        result, status = plugin.pre_filter(state, pod, [info])
        assert status == want_pre_filter
        want_pf = None if want_result is None else PreFilterResult.of(want_result)
        assert result == want_pf
    assert plugin.filter(state, pod, info) == want


def test_pre_filter_state_is_shared_by_clones() -> None:
    plugin = affinity_plugin()
    state = CycleState()
    pod = pod_with(node_selector={"a": "b"})
    plugin.pre_filter(state, pod, [])
    assert state.clone().read(PRE_FILTER_STATE_KEY) is state.read(PRE_FILTER_STATE_KEY)


def test_skip_only_without_any_required_constraint() -> None:
    added = {"addedAffinity": required(term(expr("zone", "Exists")))}
    _, status = affinity_plugin(added).pre_filter(CycleState(), pod_with(), [])
    assert status is None  # the added affinity alone is enough to filter
    _, status = affinity_plugin().pre_filter(CycleState(), pod_with(), [])
    assert status == SKIP
    preferred_only = pod_with(
        {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 1, "preference": term(expr("a", "Exists"))}
            ]
        }
    )
    _, status = affinity_plugin().pre_filter(CycleState(), preferred_only, [])
    assert status == SKIP
