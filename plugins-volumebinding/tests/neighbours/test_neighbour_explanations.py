"""Explanations of VolumeZone and VolumeRestrictions (FilterExplainer) and the helpers the
four volume plugins share (`kubesched_volumebinding.common`)."""

from __future__ import annotations

from typing import Any

import pytest
from volumebinding_helpers import VolumeEnv, make_pv, make_pvc, node, pod_with_claims

from kubesched.framework import CycleState, NodeInfo, PodInfo, QueueingHint, Status
from kubesched.testing import make_pod
from kubesched_volumebinding import VolumeRestrictions, VolumeZone
from kubesched_volumebinding.common import (
    claim_names,
    is_schedulable_after_claim_added,
    namespace_of,
    skip_unless,
)

ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"


def test_volume_zone_names_each_pv_label_the_node_does_not_match() -> None:
    objects = [
        make_pv("pv-a").labels({ZONE: "z1__z2", REGION: "r1"}).obj(),
        make_pv("pv-b").labels({BETA_ZONE: "z3"}).obj(),
        make_pvc("a").bound("pv-a").obj(),
        make_pvc("b").bound("pv-b").obj(),
    ]
    env = VolumeEnv(objects, [node("n1", **{ZONE: "z3", REGION: "r1"})])
    plugin = env.plugin(VolumeZone)
    pod = pod_with_claims("p", "a", "b")
    state = CycleState()
    assert plugin.pre_filter(state, pod, [])[1] is None
    info = env.node_info("n1")
    assert plugin.filter(state, pod, info) == Status.unresolvable(
        "node(s) had no available volume zone"
    )
    # pv-b's beta zone label matches the node's GA label; pv-a's zone does not
    assert plugin.explain_filter(state, pod, info) == [
        f"PV pv-a: {ZONE} in [z1, z2], node n1 has z3"
    ]


def test_volume_zone_explains_a_missing_node_label() -> None:
    objects = [make_pv("pv-a").labels({REGION: "r1"}).obj(), make_pvc("a").bound("pv-a").obj()]
    env = VolumeEnv(objects, [node("n1", **{ZONE: "z3"})])
    plugin = env.plugin(VolumeZone)
    pod, state = pod_with_claims("p", "a"), CycleState()
    plugin.pre_filter(state, pod, [])
    assert plugin.explain_filter(state, pod, env.node_info("n1")) == [
        f"PV pv-a: {REGION} in [r1], node n1 has no {REGION}"
    ]


def _pod_on(name: str, volumes: list[dict[str, Any]], node_name: str = "") -> Any:
    b = make_pod(name).spec(volumes=volumes)
    if node_name:
        b.node(node_name)
    return b.obj()


def test_volume_restrictions_names_the_conflicting_pod() -> None:
    env = VolumeEnv([], [node("n1")])
    plugin = env.plugin(VolumeRestrictions)
    disk = {"name": "d", "gcePersistentDisk": {"pdName": "foo"}}
    info = NodeInfo(env.node_info("n1").node, [PodInfo(_pod_on("old", [disk], "n1"))])
    pod, state = _pod_on("new", [disk]), CycleState()
    plugin.pre_filter(state, pod, [info])
    assert plugin.filter(state, pod, info) == Status.unschedulable("node(s) had no available disk")
    assert plugin.explain_filter(state, pod, info) == [
        "volume d conflicts with a volume of pod default/old on the node"
    ]


def test_volume_restrictions_names_the_user_of_a_read_write_once_pod_claim() -> None:
    claim = make_pvc("rwop").modes("ReadWriteOncePod").obj()
    user = pod_with_claims("user", "rwop").model_copy(deep=True)
    user.spec.node_name = "n1"
    env = VolumeEnv([claim], [node("n1"), node("n2")])
    env.snapshot.get("n1").add_pod(user)  # type: ignore[union-attr]
    plugin = env.plugin(VolumeRestrictions)
    pod, state = pod_with_claims("p", "rwop"), CycleState()
    plugin.pre_filter(state, pod, env.snapshot.list())
    assert plugin.explain_filter(state, pod, env.node_info("n2")) == [
        "claim default/rwop (ReadWriteOncePod) is used by default/user"
    ]


def test_claim_names_and_the_shared_hint() -> None:
    pod = (
        make_pod("p", "ns")
        .spec(
            volumes=[
                {"name": "a", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "e", "ephemeral": {"volumeClaimTemplate": {}}},
                {"name": "c", "configMap": {"name": "x"}},
            ]
        )
        .obj()
    )
    assert claim_names(pod, ephemeral=True) == ["data", "p-e"]
    assert claim_names(pod, ephemeral=False) == ["data"]
    q, skip = QueueingHint.Queue, QueueingHint.QueueSkip
    assert is_schedulable_after_claim_added(pod, make_pvc("data", "ns").obj(), ephemeral=False) is q
    assert is_schedulable_after_claim_added(pod, make_pvc("p-e", "ns").obj(), ephemeral=True) is q
    assert (
        is_schedulable_after_claim_added(pod, make_pvc("p-e", "ns").obj(), ephemeral=False) is skip
    )
    assert is_schedulable_after_claim_added(pod, make_pvc("data").obj(), ephemeral=True) is skip
    assert is_schedulable_after_claim_added(pod, object(), ephemeral=True) is q
    assert namespace_of(make_pod("x").obj()) == "default"


@pytest.mark.parametrize(("needed", "want"), [(True, None), (False, Status.skip())])
def test_skip_unless(needed: bool, want: Status | None) -> None:
    assert skip_unless(needed) == (None, want)
