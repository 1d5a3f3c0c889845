"""InterPodAffinity PreFilter and Filter, from upstream interpodaffinity/filtering_test.go
(TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes, TestPreFilterDisabled)."""

from __future__ import annotations

import pytest
from interpodaffinity_helpers import (
    affinity,
    expr_term,
    filter_statuses,
    make_node,
    make_pod,
    plugin_for,
    term,
)

from kubesched.api import Node, Pod
from kubesched.framework import Code, CycleState, Status
from kubesched_builtin.interpodaffinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
)

AFFINITY = Status.unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH)
ANTI = Status.unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
EXISTING = Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
SKIP = Status.skip()

SECURITYSCAN = {"service": "securityscan"}
S1 = {"security": "S1"}
NODE1 = make_node("node1", region="r1", zone="z11")
SCAN_VALUES = ["securityscan", "value2"]
TEAM1 = {"matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]}


def existing() -> Pod:
    return make_pod(labels=SECURITYSCAN, node="node1")


def with_aff(labels: dict[str, str], namespace: str = "default", **kw: object) -> Pod:
    return make_pod(labels=labels, namespace=namespace, aff=affinity(**kw))  # type: ignore[arg-type]


# (name, incoming pod, existing pods, PreFilter status, Filter status on node1)
SINGLE_NODE: list[tuple[str, Pod, list[Pod], Status | None, Status | None]] = [
    ("no required terms and no pods: Skip", make_pod(), [], SKIP, None),
    (
        "affinity In matches the existing pod",
        with_aff(S1, required=[term("service", "In", SCAN_VALUES, "region")]),
        [existing()],
        None,
        None,
    ),
    (
        "affinity NotIn matches the existing pod",
        with_aff(S1, required=[term("service", "NotIn", ["securityscan3", "value3"], "region")]),
        [existing()],
        None,
        None,
    ),
    (
        "affinity to another namespace does not match",
        with_aff(S1, required=[term("service", "In", SCAN_VALUES, namespaces=["DiffNameSpace"])]),
        [make_pod(namespace="ns", labels=SECURITYSCAN, node="node1")],
        None,
        AFFINITY,
    ),
    (
        "affinity selector does not match the existing pod",
        with_aff(SECURITYSCAN, required=[term("service", "In", ["antivirusscan", "value2"])]),
        [existing()],
        None,
        AFFINITY,
    ),
    (
        "several terms with different operators all match",
        with_aff(
            S1,
            required=[
                expr_term([("service", "Exists", []), ("wrongkey", "DoesNotExist", [])], "region"),
                expr_term(
                    [("service", "In", ["securityscan"]), ("service", "NotIn", ["WrongValue"])],
                    "region",
                ),
            ],
        ),
        [existing()],
        None,
        None,
    ),
    (
        "requirements are ANDed: one does not match",
        with_aff(
            S1,
            required=[
                expr_term([("service", "Exists", []), ("wrongkey", "DoesNotExist", [])], "region"),
                expr_term(
                    [("service", "In", ["securityscan2"]), ("service", "NotIn", ["WrongValue"])],
                    "region",
                ),
            ],
        ),
        [existing()],
        None,
        AFFINITY,
    ),
    (
        "affinity and anti-affinity both satisfied",
        with_aff(
            S1,
            required=[term("service", "In", SCAN_VALUES, "region")],
            anti=[term("service", "In", ["antivirusscan", "value2"], "node")],
        ),
        [existing()],
        None,
        None,
    ),
    (
        "affinity, anti-affinity and the existing pod's anti-affinity satisfied",
        with_aff(
            S1,
            required=[term("service", "In", SCAN_VALUES, "region")],
            anti=[term("service", "In", ["antivirusscan", "value2"], "node")],
        ),
        [
            make_pod(
                labels=SECURITYSCAN,
                node="node1",
                aff=affinity(anti=[term("service", "In", ["antivirusscan", "value2"], "node")]),
            )
        ],
        None,
        None,
    ),
    (
        "affinity satisfied, anti-affinity not",
        with_aff(
            S1,
            required=[term("service", "In", SCAN_VALUES, "region")],
            anti=[term("service", "In", SCAN_VALUES, "zone")],
        ),
        [existing()],
        None,
        ANTI,
    ),
    (
        "the existing pod's anti-affinity rejects the pod",
        with_aff(
            SECURITYSCAN,
            required=[term("service", "In", SCAN_VALUES, "region")],
            anti=[term("service", "In", ["antivirusscan", "value2"], "node")],
        ),
        [
            make_pod(
                labels=SECURITYSCAN,
                node="node1",
                aff=affinity(anti=[term("service", "In", SCAN_VALUES, "zone")]),
            )
        ],
        None,
        EXISTING,
    ),
    (
        "no pod matches and the pod does not match its own affinity",
        with_aff(SECURITYSCAN, required=[term("service", "NotIn", SCAN_VALUES, "region")]),
        [make_pod(labels=SECURITYSCAN, node="node2")],  # node2 is not in the snapshot
        None,
        AFFINITY,
    ),
    (
        "existing anti-affinity applies to a pod without terms",
        make_pod(labels=SECURITYSCAN),
        [
            make_pod(
                labels=SECURITYSCAN,
                node="node1",
                aff=affinity(anti=[term("service", "In", SCAN_VALUES, "zone")]),
            )
        ],
        None,
        EXISTING,
    ),
    (
        "existing anti-affinity that does not match leaves nothing to check: Skip",
        make_pod(labels=SECURITYSCAN),
        [
            make_pod(
                labels=SECURITYSCAN,
                node="node1",
                aff=affinity(anti=[term("service", "NotIn", SCAN_VALUES, "zone")]),
            )
        ],
        SKIP,
        None,
    ),
    (
        "incoming anti-affinity matches though the existing pod's does not",
        with_aff(
            SECURITYSCAN,
            anti=[
                term("service", "Exists", [], "region"),
                term("security", "Exists", [], "region"),
            ],
        ),
        [
            make_pod(
                labels=S1, node="node1", aff=affinity(anti=[term("security", "Exists", [], "zone")])
            )
        ],
        None,
        ANTI,
    ),
    (
        "symmetry a1: partial match, the incoming pod's term rejects",
        with_aff(
            SECURITYSCAN,
            anti=[term("service", "Exists", [], "zone"), term("security", "Exists", [], "zone")],
        ),
        [
            make_pod(
                labels=S1, node="node1", aff=affinity(anti=[term("security", "Exists", [], "zone")])
            )
        ],
        None,
        ANTI,
    ),
    (
        "symmetry a2: partial match, the existing pod's term rejects",
        with_aff(S1, anti=[term("security", "Exists", [], "zone")]),
        [
            make_pod(
                labels=SECURITYSCAN,
                node="node1",
                aff=affinity(
                    anti=[
                        term("service", "Exists", [], "zone"),
                        term("security", "Exists", [], "zone"),
                    ]
                ),
            )
        ],
        None,
        EXISTING,
    ),
    (
        "symmetry b1",
        with_aff(
            {"abc": "", "xyz": ""},
            anti=[term("abc", "Exists", [], "zone"), term("def", "Exists", [], "zone")],
        ),
        [
            make_pod(
                labels={"def": "", "xyz": ""},
                node="node1",
                aff=affinity(
                    anti=[term("abc", "Exists", [], "zone"), term("def", "Exists", [], "zone")]
                ),
            )
        ],
        None,
        ANTI,
    ),
    (
        "symmetry b2",
        with_aff(
            {"def": "", "xyz": ""},
            anti=[term("abc", "Exists", [], "zone"), term("def", "Exists", [], "zone")],
        ),
        [
            make_pod(
                labels={"abc": "", "xyz": ""},
                node="node1",
                aff=affinity(
                    anti=[term("abc", "Exists", [], "zone"), term("def", "Exists", [], "zone")]
                ),
            )
        ],
        None,
        ANTI,
    ),
    (
        "an invalid label value in an affinity term fails PreFilter",
        with_aff(
            SECURITYSCAN,
            required=[
                term("service", "In", ["{{.bad-value.}}"], "region"),
                term("service", "In", ["antivirusscan", "value2"], "node"),
            ],
        ),
        [],
        Status.unresolvable(
            "parsing pod: requiredAffinityTerms: values[0][service]: "
            'Invalid value: "{{.bad-value.}}": '
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
            "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
            "'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ),
        None,
    ),
    (
        "affinity with a matching namespaceSelector",
        with_aff(
            S1, required=[term("service", "In", SCAN_VALUES, "region", namespaceSelector=TEAM1)]
        ),
        [make_pod(namespace="subteam1.team1", labels=SECURITYSCAN, node="node1")],
        None,
        None,
    ),
    (
        "affinity with a namespaceSelector that does not match",
        with_aff(
            S1, required=[term("service", "In", SCAN_VALUES, "region", namespaceSelector=TEAM1)]
        ),
        [make_pod(namespace="subteam1.team2", labels=SECURITYSCAN, node="node1")],
        None,
        AFFINITY,
    ),
    (
        "anti-affinity with a matching namespaceSelector",
        with_aff(
            S1,
            "subteam1.team1",
            anti=[term("service", "In", SCAN_VALUES, "zone", namespaceSelector=TEAM1)],
        ),
        [make_pod(namespace="subteam2.team1", labels=SECURITYSCAN, node="node1")],
        None,
        ANTI,
    ),
    (
        "anti-affinity with an empty namespaceSelector (all namespaces)",
        with_aff(
            S1,
            "subteam1.team1",
            anti=[term("service", "In", SCAN_VALUES, "zone", namespaceSelector={})],
        ),
        [make_pod(namespace="subteam2.team1", labels=SECURITYSCAN, node="node1")],
        None,
        ANTI,
    ),
    (
        "anti-affinity with a namespaceSelector that does not match",
        with_aff(
            S1,
            "subteam1.team1",
            anti=[term("service", "In", SCAN_VALUES, "zone", namespaceSelector=TEAM1)],
        ),
        [make_pod(namespace="subteam1.team2", labels=SECURITYSCAN, node="node1")],
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    ("pod", "pods", "want_pre", "want_filter"),
    [c[1:] for c in SINGLE_NODE],
    ids=[c[0] for c in SINGLE_NODE],
)
def test_required_affinity_single_node(
    pod: Pod, pods: list[Pod], want_pre: Status | None, want_filter: Status | None
) -> None:
    plugin, snapshot = plugin_for(pods, [NODE1])
    pre, filters, _ = filter_statuses(plugin, snapshot, pod)
    assert pre == want_pre
    if pre is None:
        assert filters == [want_filter]


CHINA = {"region": "China"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
INDIA = {"region": "India"}


def nodes3(**names: dict[str, str]) -> list[Node]:
    return [make_node(n, **labels) for n, labels in names.items()]


def abc_nodes(*zones: str) -> list[Node]:
    """nodeA, nodeB ... in region r1 with the given zones and hostname labels."""
    names = ["nodeA", "nodeB", "nodeC"]
    return [
        make_node(n, region="r1", zone=z, hostname=n) for n, z in zip(names, zones, strict=False)
    ]


# (name, incoming pod, existing pods, nodes, PreFilter status, Filter status per node)
MULTIPLE_NODES: list[tuple[str, Pod, list[Pod], list[Node], Status | None, list[Status | None]]] = [
    (
        "nodes sharing the matching pod's region all fit",
        make_pod(aff=affinity(required=[term("foo", "In", ["bar"], "region")])),
        [make_pod(labels={"foo": "bar"}, node="node1")],
        nodes3(node1=CHINA, node2=CHINA_AZ1, node3=INDIA),
        None,
        [None, None, AFFINITY],
    ),
    (
        "the first pod of a group with affinity to itself fits anywhere",
        make_pod(
            labels={"foo": "bar", "service": "securityscan"},
            aff=affinity(
                required=[
                    term("foo", "In", ["bar"], "zone"),
                    term("service", "In", ["securityscan"], "zone"),
                ]
            ),
        ),
        [make_pod(labels={"foo": "bar"}, node="nodeA")],
        [
            make_node("nodeA", zone="az1", hostname="h1"),
            make_node("nodeB", zone="az2", hostname="h2"),
        ],
        None,
        [None, None],
    ),
    (
        "the first pod of a group needs nodes with the topology keys",
        make_pod(
            labels={"foo": "bar", "service": "securityscan"},
            aff=affinity(
                required=[
                    term("foo", "In", ["bar"], "zone"),
                    term("service", "In", ["securityscan"], "zone"),
                ]
            ),
        ),
        [make_pod(labels={"foo": "bar"}, node="nodeA")],
        [
            make_node("nodeA", zoneLabel="az1", hostname="h1"),
            make_node("nodeB", zoneLabel="az2", hostname="h2"),
        ],
        None,
        [AFFINITY, AFFINITY],
    ),
    (
        "anti-affinity rejects every node of the matching pod's region",
        make_pod(aff=affinity(anti=[term("foo", "In", ["abc"], "region")])),
        [make_pod(labels={"foo": "abc"}, node="nodeA")],
        [
            make_node("nodeA", region="r1", hostname="nodeA"),
            make_node("nodeB", region="r1", hostname="nodeB"),
        ],
        None,
        [ANTI, ANTI],
    ),
    (
        "anti-affinity rejects when any term matches",
        make_pod(
            aff=affinity(
                anti=[
                    term("foo", "In", ["abc"], "region"),
                    term("service", "In", ["securityscan"], "zone"),
                ]
            )
        ),
        [make_pod(labels={"foo": "abc", "service": "securityscan"}, node="nodeA")],
        abc_nodes("z1", "z2"),
        None,
        [ANTI, ANTI],
    ),
    (
        "anti-affinity leaves other regions free",
        make_pod(aff=affinity(anti=[term("foo", "In", ["abc"], "region")])),
        [make_pod(labels={"foo": "abc"}, node="nodeA")],
        nodes3(nodeA=CHINA, nodeB=CHINA_AZ1, nodeC=INDIA),
        None,
        [ANTI, ANTI, None],
    ),
    (
        "anti-affinity ignores pods of other namespaces",
        make_pod(
            namespace="NS1",
            labels={"foo": "123"},
            aff=affinity(anti=[term("foo", "In", ["bar"], "region")]),
        ),
        [
            make_pod(namespace="NS1", labels={"foo": "bar"}, node="nodeA"),
            make_pod(
                namespace="NS2",
                node="nodeC",
                aff=affinity(anti=[term("foo", "In", ["123"], "region")]),
            ),
        ],
        nodes3(nodeA=CHINA, nodeB=CHINA_AZ1, nodeC=INDIA),
        None,
        [ANTI, ANTI, None],
    ),
    (
        "an existing pod's term with a topology key no node has rejects nothing: Skip",
        make_pod(labels={"foo": ""}),
        [
            make_pod(
                node="nodeA", aff=affinity(anti=[term("foo", "Exists", [], "invalid-node-label")])
            )
        ],
        abc_nodes("z1", "z1"),
        SKIP,
        [],
    ),
    (
        "the incoming pod's term with a topology key no node has rejects nothing",
        make_pod(
            node="nodeA", aff=affinity(anti=[term("foo", "Exists", [], "invalid-node-label")])
        ),
        [make_pod(labels={"foo": ""}, node="nodeA")],
        abc_nodes("z1", "z1"),
        None,
        [None, None],
    ),
    (
        "each existing pod's anti-affinity rejects its domain",
        make_pod(labels={"foo": "", "bar": ""}),
        [
            make_pod(node="nodeA", aff=affinity(anti=[term("foo", "Exists", [], "zone")])),
            make_pod(node="nodeA", aff=affinity(anti=[term("bar", "Exists", [], "region")])),
        ],
        abc_nodes("z1", "z2"),
        None,
        [EXISTING, EXISTING],
    ),
    (
        "the incoming pod's anti-affinity terms each reject their domain",
        make_pod(
            aff=affinity(
                anti=[term("foo", "Exists", [], "zone"), term("bar", "Exists", [], "region")]
            )
        ),
        [make_pod(labels={"foo": ""}, node="nodeA"), make_pod(labels={"bar": ""}, node="nodeB")],
        abc_nodes("z1", "z2"),
        None,
        [ANTI, ANTI],
    ),
    (
        "an existing pod's term counts only where its topology key exists",
        make_pod(labels={"foo": "", "bar": ""}),
        [
            make_pod(
                node="nodeA",
                aff=affinity(
                    anti=[
                        term("foo", "Exists", [], "invalid-node-label"),
                        term("bar", "Exists", [], "zone"),
                    ]
                ),
            )
        ],
        abc_nodes("z1", "z2"),
        None,
        [EXISTING, None],
    ),
    (
        "the incoming pod's term counts only where its topology key exists",
        make_pod(
            aff=affinity(
                anti=[
                    term("foo", "Exists", [], "invalid-node-label"),
                    term("bar", "Exists", [], "zone"),
                ]
            )
        ),
        [make_pod(labels={"foo": "", "bar": ""}, node="nodeA")],
        abc_nodes("z1", "z2"),
        None,
        [ANTI, None],
    ),
    (
        "existing pods' anti-affinity leaves only nodeC",
        make_pod(labels={"foo": "", "bar": ""}),
        [
            make_pod(
                node="nodeA",
                aff=affinity(
                    anti=[term("foo", "Exists", [], "zone"), term("labelA", "Exists", [], "zone")]
                ),
            ),
            make_pod(
                node="nodeB",
                aff=affinity(
                    anti=[term("bar", "Exists", [], "zone"), term("labelB", "Exists", [], "zone")]
                ),
            ),
        ],
        abc_nodes("z1", "z2", "z3"),
        None,
        [EXISTING, EXISTING, None],
    ),
    (
        "one pod matching all affinity terms satisfies them in every domain it is in",
        make_pod(
            aff=affinity(
                required=[term("foo", "Exists", [], "region"), term("bar", "Exists", [], "zone")]
            )
        ),
        [make_pod(labels={"foo": "", "bar": ""}, node="nodeA")],
        abc_nodes("z1", "z1"),
        None,
        [None, None],
    ),
    (
        "affinity terms must be matched by the same pod",
        make_pod(
            aff=affinity(
                required=[term("foo", "Exists", [], "region"), term("bar", "Exists", [], "zone")]
            )
        ),
        [make_pod(labels={"foo": ""}, node="nodeA"), make_pod(labels={"bar": ""}, node="nodeB")],
        abc_nodes("z1", "z2"),
        None,
        [AFFINITY, AFFINITY],
    ),
]


@pytest.mark.parametrize(
    ("pod", "pods", "nodes", "want_pre", "want_filters"),
    [c[1:] for c in MULTIPLE_NODES],
    ids=[c[0] for c in MULTIPLE_NODES],
)
def test_required_affinity_multiple_nodes(
    pod: Pod,
    pods: list[Pod],
    nodes: list[Node],
    want_pre: Status | None,
    want_filters: list[Status | None],
) -> None:
    plugin, snapshot = plugin_for(pods, nodes, namespaces=[("NS1", {})])
    pre, filters, _ = filter_statuses(plugin, snapshot, pod)
    assert pre == want_pre
    assert filters == want_filters


def test_filter_without_pre_filter_is_an_error() -> None:
    """upstream TestPreFilterDisabled."""
    plugin, snapshot = plugin_for([], [NODE1])
    status = plugin.filter(CycleState(), make_pod(), snapshot.list()[0])
    assert status is not None and status.code is Code.Error
    assert (
        status.message() == 'error reading "PreFilterInterPodAffinity" from cycleState: not found'
    )


def test_match_label_keys_are_merged_into_the_selector() -> None:
    """matchLabelKeys / mismatchLabelKeys become In / NotIn requirements on the pod's own
    values (as the API server merges them on create)."""
    nodes = abc_nodes("z1", "z2", "z3")
    pods = [
        make_pod(labels={"app": "web", "rev": "1"}, node="nodeA"),
        make_pod(labels={"app": "web", "rev": "2"}, node="nodeB"),
        make_pod(labels={"app": "web", "rev": "2", "tenant": "x"}, node="nodeC"),
    ]
    incoming = make_pod(
        labels={"app": "web", "rev": "2", "tenant": "x"},
        aff=affinity(
            required=[term("app", "In", ["web"], "zone", matchLabelKeys=["rev"])],
            anti=[term("app", "In", ["web"], "zone", mismatchLabelKeys=["tenant"])],
        ),
    )
    plugin, snapshot = plugin_for(pods, nodes)
    pre, filters, _ = filter_statuses(plugin, snapshot, incoming)
    assert pre is None
    # rev=1 does not match the merged rev In (2); nodeB's pod has no tenant=x: anti-affinity
    assert filters == [AFFINITY, ANTI, None]
