"""TaintToleration as a FilterExplainer: the Filter reason no longer names the taint (v1.34),
so `simulate --explain` says which one the pod does not tolerate."""

from __future__ import annotations

import pytest
from test_taint_toleration import UNTOLERATED, _plugin, node_with_taints, pod_with_tolerations, tol
from test_taint_toleration import taint as t

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, FilterExplainer, NodeInfo

EXPLAIN_CASES: list[tuple[str, Pod, Node, list[str]]] = [
    (
        "the untolerated taint is named",
        pod_with_tolerations("p", []),
        node_with_taints("n", [t("dedicated", "gpu", "NoSchedule")]),
        ["untolerated taint {dedicated: gpu}"],
    ),
    (
        "the first untolerated one, as Filter finds it",
        pod_with_tolerations("p", [tol("a", "1", "NoSchedule")]),
        node_with_taints(
            "n",
            [t("a", "1", "NoSchedule"), t("b", "2", "NoExecute"), t("c", "", "NoSchedule")],
        ),
        ["untolerated taint {b: 2}"],
    ),
    (
        "a taint without a value",
        pod_with_tolerations("p", []),
        node_with_taints("n", [t("node-role.kubernetes.io/control-plane", "", "NoSchedule")]),
        ["untolerated taint {node-role.kubernetes.io/control-plane: }"],
    ),
    (
        "nothing to say where the pod tolerates every taint",
        pod_with_tolerations("p", [tol("dedicated", "gpu", "NoSchedule")]),
        node_with_taints("n", [t("dedicated", "gpu", "NoSchedule")]),
        [],
    ),
    (
        "PreferNoSchedule taints never reject, so they are not named",
        pod_with_tolerations("p", []),
        node_with_taints("n", [t("spot", "true", "PreferNoSchedule")]),
        [],
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "node", "want"), EXPLAIN_CASES, ids=[c[0] for c in EXPLAIN_CASES]
)
def test_explain_filter(name: str, pod: Pod, node: Node, want: list[str]) -> None:
    plugin = _plugin()
    state = CycleState()
    assert plugin.explain_filter(state, pod, NodeInfo(node)) == want
    # the verdict beside it: one reason for every taint, never the taint itself
    assert plugin.filter(state, pod, NodeInfo(node)) == (UNTOLERATED if want else None)


def test_different_taints_give_the_same_reason() -> None:
    """So the FitError histogram counts them together."""
    plugin = _plugin()
    pod = pod_with_tolerations("p", [])
    verdicts = {
        plugin.filter(CycleState(), pod, NodeInfo(node_with_taints(n, [t(k, v, "NoSchedule")])))
        for n, k, v in [("a", "dedicated", "gpu"), ("b", "dedicated", "db"), ("c", "spot", "")]
    }
    assert verdicts == {UNTOLERATED}


def test_is_a_filter_explainer() -> None:
    assert isinstance(_plugin(), FilterExplainer)


def test_explaining_a_node_without_its_object_says_nothing() -> None:
    assert _plugin().explain_filter(CycleState(), pod_with_tolerations("p", []), NodeInfo()) == []
