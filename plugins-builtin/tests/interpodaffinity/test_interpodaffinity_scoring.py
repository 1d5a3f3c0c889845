"""InterPodAffinity PreScore, Score and NormalizeScore, from upstream scoring_test.go
(TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight)."""

from __future__ import annotations

from typing import Any

import pytest
from interpodaffinity_helpers import (
    affinity,
    expr_term,
    make_node,
    make_pod,
    plugin_for,
    scores,
    term,
    weighted,
)

from kubesched.api import Node, Pod
from kubesched.framework import Code, CycleState, NodeScore, Status
from kubesched_builtin.interpodaffinity.scoring import normalize

CHINA = {"region": "China"}
INDIA = {"region": "India"}
AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
CHINA_AZ1 = {"region": "China", "az": "az1"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}
TEAM1 = {"matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]}

STAY_WITH_S1_IN_REGION = affinity(preferred=[weighted(5, term("security", "In", ["S1"], "region"))])
STAY_WITH_S2_IN_REGION = affinity(preferred=[weighted(6, term("security", "In", ["S2"], "region"))])
AFFINITY3 = affinity(
    preferred=[
        weighted(
            8, expr_term([("security", "NotIn", ["S1"]), ("security", "In", ["S2"])], "region")
        ),
        weighted(
            2, expr_term([("security", "Exists", []), ("wrongkey", "DoesNotExist", [])], "region")
        ),
    ]
)
HARD_AFFINITY = affinity(
    required=[
        term("security", "In", ["S1", "value2"], "region"),
        expr_term([("security", "Exists", []), ("wrongkey", "DoesNotExist", [])], "region"),
    ]
)
AWAY_FROM_S1_IN_AZ = affinity(preferred_anti=[weighted(5, term("security", "In", ["S1"], "az"))])
AWAY_FROM_S2_IN_AZ = affinity(preferred_anti=[weighted(5, term("security", "In", ["S2"], "az"))])
STAY_S1_AWAY_S2 = affinity(
    preferred=[weighted(8, term("security", "In", ["S1"], "region"))],
    preferred_anti=[weighted(5, term("security", "In", ["S2"], "az"))],
)
_NS_TERM = term(
    "security", "In", ["S1"], "region", namespaces=["subteam2.team2"], namespaceSelector=TEAM1
)
AFFINITY_NS_SELECTOR = affinity(preferred=[weighted(5, _NS_TERM)])
ANTI_AFFINITY_NS_SELECTOR = affinity(preferred_anti=[weighted(5, _NS_TERM)])
INVALID_AFFINITY = affinity(
    preferred=[weighted(8, term("security", "In", ["{{.bad-value.}}"], "region"))]
)
INVALID_ANTI_AFFINITY = affinity(
    preferred_anti=[weighted(5, term("security", "In", ["{{.bad-value.}}"], "az"))]
)


def nodes(*labels: dict[str, str]) -> list[Node]:
    return [make_node(f"node{i}", **lab) for i, lab in enumerate(labels, 1)]


def on(
    node: int, labels: dict[str, str] | None = None, aff: Any = None, ns: str = "default"
) -> Pod:
    return make_pod(labels=labels, node=f"node{node}", aff=aff, namespace=ns)


def incoming(labels: dict[str, str] | None = None, aff: Any = None, ns: str = "default") -> Pod:
    return make_pod(labels=labels, aff=aff, namespace=ns)


SKIP = Status.skip()

# (name, pod, existing pods, nodes, want scores or a status, ignorePreferredTermsOfExistingPods)
PREFERRED: list[tuple[str, Pod, list[Pod], list[Node], list[int] | Status, bool]] = [
    ("no affinity anywhere: Skip", incoming(S1), [], nodes(CHINA, INDIA, AZ1), SKIP, False),
    (
        "matching pod in the topology scores high",
        incoming(S1, STAY_WITH_S1_IN_REGION),
        [on(1, S1), on(2, S2), on(3, S1)],
        nodes(CHINA, INDIA, AZ1),
        [100, 0, 0],
        False,
    ),
    (
        "every node of the matching pod's region scores the same",
        incoming(None, STAY_WITH_S1_IN_REGION),
        [on(1, S1)],
        nodes(CHINA, CHINA_AZ1, INDIA),
        [100, 100, 0],
        False,
    ),
    (
        "the region with more matching pods scores high",
        incoming(S1, STAY_WITH_S2_IN_REGION),
        [on(1, S2), on(1, S2), on(2, S2), on(3, S2), on(4, S2), on(5, S2)],
        nodes(CHINA, INDIA, CHINA, CHINA, INDIA),
        [100, 0, 100, 100, 0],
        False,
    ),
    (
        "different operators, some not matching",
        incoming(S1, AFFINITY3),
        [on(1, S1), on(2, S2), on(3, S1)],
        nodes(CHINA, INDIA, AZ1),
        [20, 100, 0],
        False,
    ),
    (
        "symmetry: existing pods' preferred affinity",
        incoming(S2),
        [on(1, S1, STAY_WITH_S1_IN_REGION), on(2, S2, STAY_WITH_S2_IN_REGION)],
        nodes(CHINA, INDIA, AZ1),
        [0, 100, 0],
        False,
    ),
    (
        "symmetry with a namespace selector",
        incoming(S1, ns="subteam1.team1"),
        [on(1, S1, AFFINITY_NS_SELECTOR), on(2, S2, STAY_WITH_S2_IN_REGION)],
        nodes(CHINA, INDIA, AZ1),
        [100, 0, 0],
        False,
    ),
    (
        "anti-affinity symmetry with a namespace selector",
        incoming(S1, ns="subteam1.team1"),
        [on(1, S1, ANTI_AFFINITY_NS_SELECTOR), on(2, S2, STAY_WITH_S2_IN_REGION)],
        nodes(CHINA, INDIA, AZ1),
        [0, 100, 100],
        False,
    ),
    (
        "symmetry: existing pods' required affinity",
        incoming(S1),
        [on(1, S1, HARD_AFFINITY), on(2, S2, HARD_AFFINITY)],
        nodes(CHINA, INDIA, AZ1),
        [100, 100, 0],
        False,
    ),
    (
        "anti-affinity: the node with the matching pod scores low",
        incoming(S1, AWAY_FROM_S1_IN_AZ),
        [on(1, S1), on(2, S2)],
        nodes(AZ1, CHINA),
        [0, 100],
        False,
    ),
    (
        "anti-affinity: a node without the topology key scores high",
        incoming(S1, AWAY_FROM_S1_IN_AZ),
        [on(1, S1), on(2, S1)],
        nodes(AZ1, CHINA),
        [0, 100],
        False,
    ),
    (
        "anti-affinity: more matching pods score lower",
        incoming(S1, AWAY_FROM_S1_IN_AZ),
        [on(1, S1), on(1, S1), on(2, S2)],
        nodes(AZ1, INDIA),
        [0, 100],
        False,
    ),
    (
        "anti-affinity symmetry",
        incoming(S2),
        [on(1, S1, AWAY_FROM_S2_IN_AZ), on(2, S2, AWAY_FROM_S1_IN_AZ)],
        nodes(AZ1, AZ2),
        [0, 100],
        False,
    ),
    (
        "affinity and anti-affinity",
        incoming(S1, STAY_S1_AWAY_S2),
        [on(1, S1), on(2, S1)],
        nodes(CHINA, AZ1),
        [100, 0],
        False,
    ),
    (
        "affinity and anti-affinity towards pods like the incoming one",
        incoming(S1, STAY_S1_AWAY_S2),
        [on(1, S1), on(1, S1), on(2, S1), on(3, S1), on(3, S1), on(4, S1), on(5, S1)],
        nodes(CHINA_AZ1, INDIA, CHINA, CHINA, INDIA),
        [100, 0, 100, 100, 0],
        False,
    ),
    (
        "affinity, anti-affinity and both symmetries",
        incoming(S1, STAY_S1_AWAY_S2),
        [on(1, S1), on(2, S2), on(3, None, STAY_S1_AWAY_S2), on(4, None, AWAY_FROM_S1_IN_AZ)],
        nodes(CHINA, AZ1, INDIA, AZ2),
        [100, 0, 100, 0],
        False,
    ),
    (
        "some nodes of a topology have no pods with affinity",
        incoming(S1),
        [on(1, S1), on(2, None, STAY_S1_AWAY_S2)],
        nodes(CHINA, CHINA),
        [0, 0],
        False,
    ),
    (
        "pods matching the namespace selector",
        incoming(S1, AFFINITY_NS_SELECTOR, ns="subteam1.team1"),
        [
            on(1, S1, ns="subteam1.team1"),
            on(1, S1, ns="subteam1.team1"),
            on(1, S1, ns="subteam1.team2"),
            on(2, S1, ns="subteam2.team1"),
        ],
        nodes(CHINA, INDIA),
        [100, 0],
        False,
    ),
    (
        "pods matching the namespace selector and the namespaces list",
        incoming(S1, AFFINITY_NS_SELECTOR, ns="subteam1.team1"),
        [
            on(1, S1, ns="subteam1.team1"),
            on(1, S1, ns="subteam1.team1"),
            on(1, S1, ns="subteam2.team2"),
            on(2, S1, ns="subteam2.team1"),
        ],
        nodes(CHINA, INDIA),
        [100, 0],
        False,
    ),
    (
        "anti-affinity to pods matching the namespace selector",
        incoming(S1, ANTI_AFFINITY_NS_SELECTOR, ns="subteam1.team1"),
        [
            on(1, S1, ns="subteam1.team1"),
            on(1, S1, ns="subteam1.team1"),
            on(1, S1, ns="subteam1.team2"),
            on(2, S1, ns="subteam2.team1"),
        ],
        nodes(CHINA, INDIA),
        [0, 100],
        False,
    ),
    (
        "ignore preferred terms of existing pods: Skip",
        incoming(S2),
        [on(1, S1, STAY_S1_AWAY_S2), on(2, S2, STAY_WITH_S2_IN_REGION)],
        nodes(CHINA, INDIA),
        SKIP,
        True,
    ),
    (
        "do not ignore preferred terms of existing pods",
        incoming(S2),
        [on(1, S1, STAY_S1_AWAY_S2), on(2, S2, STAY_WITH_S2_IN_REGION)],
        nodes(CHINA, INDIA),
        [0, 100],
        False,
    ),
    ("no nodes to score: Skip", incoming(S2), [], [], SKIP, False),
]


@pytest.mark.parametrize(
    ("pod", "pods", "node_list", "want", "ignore"),
    [c[1:] for c in PREFERRED],
    ids=[c[0] for c in PREFERRED],
)
def test_preferred_affinity(
    pod: Pod, pods: list[Pod], node_list: list[Node], want: list[int] | Status, ignore: bool
) -> None:
    plugin, snapshot = plugin_for(
        pods, node_list, hardPodAffinityWeight=1, ignorePreferredTermsOfExistingPods=ignore
    )
    status, got = scores(plugin, snapshot, pod)
    if isinstance(want, Status):
        assert status == want
    else:
        assert status is None
        assert got == want


@pytest.mark.parametrize("aff", [INVALID_AFFINITY, INVALID_ANTI_AFFINITY], ids=["affinity", "anti"])
def test_invalid_preferred_terms_fail_pre_score(aff: dict[str, Any]) -> None:
    plugin, snapshot = plugin_for([], nodes(CHINA, CHINA))
    status, _ = scores(plugin, snapshot, incoming(None, aff))
    assert status is not None and status.code is Code.Error
    assert 'Invalid value: "{{.bad-value.}}"' in status.message()
    assert status.message().startswith("failed to parse pod: preferred")


HARD_POD_AFFINITY = affinity(
    required=[
        term(
            "service",
            "In",
            ["S1"],
            "region",
            namespaces=["default", "subteam2.team2"],
            namespaceSelector=TEAM1,
        )
    ]
)


# (name, pod namespace, hardPodAffinityWeight, want scores or a status)
HARD_WEIGHT: list[tuple[str, str, int, list[int] | Status]] = [
    ("default weight", "default", 1, [100, 100, 0]),
    ("zero weight", "default", 0, SKIP),
    ("no matching namespace", "subteam1.team2", 1, SKIP),
    ("matching namespace selector", "subteam1.team1", 1, [100, 100, 0]),
    ("matching namespaces list", "subteam2.team2", 1, [100, 100, 0]),
]


@pytest.mark.parametrize(
    ("namespace", "weight", "want"), [c[1:] for c in HARD_WEIGHT], ids=[c[0] for c in HARD_WEIGHT]
)
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(
    namespace: str, weight: int, want: list[int] | Status
) -> None:
    pods = [on(1, None, HARD_POD_AFFINITY), on(2, None, HARD_POD_AFFINITY)]
    plugin, snapshot = plugin_for(pods, nodes(CHINA, INDIA, AZ1), hardPodAffinityWeight=weight)
    status, got = scores(plugin, snapshot, incoming({"service": "S1"}, ns=namespace))
    if isinstance(want, Status):
        assert status == want
    else:
        assert status is None
        assert got == want


def test_raw_scores_can_be_negative_and_sum_over_topology_keys() -> None:
    """Raw Score: +8 for S1 in the region, -5 for S2 in the az, summed per node."""
    pods = [on(1, S1), on(2, S2)]
    plugin, snapshot = plugin_for(pods, nodes({**CHINA, **AZ1}, {**CHINA, **AZ2}, AZ2))
    state = CycleState()
    assert plugin.pre_score(state, incoming(S1, STAY_S1_AWAY_S2), snapshot.list()) is None
    raw = [plugin.score(state, incoming(), n)[0] for n in snapshot.list()]
    assert raw == [8, 3, -5]


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ([-5, 0, 3], [0, 62, 100]),  # 100 * 5/8 = 62.5, truncated
        ([7, 7], [0, 0]),
        ([50, 0], [100, 0]),  # the reference's w50 example
        ([0, -50], [100, 0]),
        ([1, 2, 3], [0, 50, 100]),
        ([0, 1, 3], [0, 33, 100]),
    ],
)
def test_normalize(raw: list[int], want: list[int]) -> None:
    node_scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    normalize(node_scores)
    assert [s.score for s in node_scores] == want


def test_score_without_pre_score_is_an_error() -> None:
    plugin, snapshot = plugin_for([], nodes(CHINA))
    _, status = plugin.score(CycleState(), incoming(), snapshot.list()[0])
    assert status is not None and status.code is Code.Error
    assert (
        status.message() == 'failed to read "PreScoreInterPodAffinity" from cycleState: not found'
    )
