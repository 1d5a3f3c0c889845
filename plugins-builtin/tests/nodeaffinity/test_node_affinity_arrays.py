"""NodeAffinity's array forms (plugin API 0.4) answer per group of nodes alike in the
labels the pod's terms read: every label the required terms, the nodeSelector and the
preferred terms read must count, or nodes that differ in it would share an answer."""

from __future__ import annotations

from kubesched.api import Node, Pod
from kubesched.framework import CycleState
from kubesched.testing import (
    PluginHarness,
    Scenario,
    array_filter_mismatch,
    array_score_mismatch,
    make_node,
    make_pod,
)
from kubesched_builtin.nodeaffinity import NodeAffinity
from kubesched_builtin.nodeaffinity.args import NodeAffinityArgs

ZONES = ("a", "b", "c")


def nodes() -> list[Node]:
    """Nodes in every combination of zone (or none), disk and arch labels."""
    out = []
    for i, zone in enumerate((*ZONES, None)):
        for j, disk in enumerate(("ssd", "hdd")):
            for arch in ("amd64", "arm64"):
                labels = {"disk": disk, "arch": arch} | ({"zone": zone} if zone else {})
                out.append(make_node(f"n{i}{j}{arch}").label(**labels).obj())
    return out


def check(pod: Pod, args: NodeAffinityArgs | None = None) -> None:
    h = PluginHarness(NodeAffinity, args or NodeAffinityArgs(), Scenario(nodes(), [], pod))
    assert isinstance(h.plugin, NodeAffinity)
    state = CycleState()
    h.filter_phase(state)
    infos = h.snapshot.list()
    for order in (infos, infos[::-1], infos[1::2]):
        assert array_filter_mismatch(h.plugin, state, h.pod, h.snapshot, order) is None
    if h.plugin.pre_score(state, h.pod, infos) is None:
        for order in (infos, infos[::-1]):
            assert array_score_mismatch(h.plugin, state, h.pod, h.snapshot, order) is None


def test_required_terms_and_node_selector_each_count() -> None:
    check(make_pod("p").node_affinity_in("zone", ["a", "b"]).node_selector(disk="ssd").obj())
    check(make_pod("p").node_affinity_not_in("zone", ["a"]).node_selector(arch="arm64").obj())


def test_preferred_terms_count() -> None:
    preferred = [
        {"weight": 3, "preference": {"matchExpressions": [_expr("zone", "In", ["b"])]}},
        {"weight": 5, "preference": {"matchExpressions": [_expr("disk", "In", ["ssd"])]}},
    ]
    pod = make_pod("p").spec(
        affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": preferred}}
    )
    check(pod.obj())


def test_the_profiles_added_affinity_counts() -> None:
    args = NodeAffinityArgs.model_validate(
        {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [_expr("arch", "In", ["amd64"])]}]
                },
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 2, "preference": {"matchExpressions": [_expr("zone", "Exists")]}}
                ],
            }
        }
    )
    check(make_pod("p").node_selector(disk="hdd").obj(), args)


def _expr(key: str, operator: str, values: list[str] | None = None) -> dict[str, object]:
    return {"key": key, "operator": operator, "values": values or []}
