"""VolumeZone, after upstream's volume_zone_test.go (TestSingleZone, TestMultiZone,
TestWithBinding) and its queueing hint tests."""

from __future__ import annotations

import pytest
from volumebinding_helpers import VolumeEnv, make_pv, make_pvc, pod_with_claims, storage_class

from kubesched.api import Node
from kubesched.framework import CycleState, QueueingHint, Status
from kubesched.testing import make_node, make_pod
from kubesched_volumebinding import VolumeZone

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
CONFLICT = Status.unresolvable("node(s) had no available volume zone")

PVS = [
    make_pv("Vol_1").labels({BETA_ZONE: "us-west1-a"}).obj(),
    make_pv("Vol_2").labels({BETA_REGION: "us-west1", "uselessLabel": "none"}).obj(),
    make_pv("Vol_Stable_1").labels({ZONE: "us-west1-a"}).obj(),
    make_pv("Vol_Stable_2").labels({REGION: "us-west1", "uselessLabel": "none"}).obj(),
    make_pv("Vol_Stable_3").labels({ZONE: "us-west1-a", REGION: "us-west1-a"}).obj(),
    make_pv("Vol_Multi").labels({ZONE: "us-west1-a__us-west1-b"}).obj(),
    make_pv("Vol_Bad_Label").labels({ZONE: "us-west1-a__"}).obj(),
]
CLAIMS = [
    make_pvc("PVC_1").bound("Vol_1").obj(),
    make_pvc("PVC_2").bound("Vol_2").obj(),
    make_pvc("PVC_Stable_1").bound("Vol_Stable_1").obj(),
    make_pvc("PVC_Stable_2").bound("Vol_Stable_2").obj(),
    make_pvc("PVC_Stable_3").bound("Vol_Stable_3").obj(),
    make_pvc("PVC_Multi").bound("Vol_Multi").obj(),
    make_pvc("PVC_Bad").bound("Vol_Bad_Label").obj(),
    make_pvc("PVC_NoPV").bound("Vol_not_exist").obj(),
    make_pvc("PVC_Wait").cls("Class_Wait").obj(),
    make_pvc("PVC_Immediate").cls("Class_Immediate").obj(),
    make_pvc("PVC_NoClass").obj(),
    make_pvc("PVC_MissingClass").cls("Class_0").obj(),
]
CLASSES = [
    storage_class("Class_Wait"),
    storage_class("Class_Immediate", mode="Immediate"),
]


def _node(**labels: str) -> Node:
    return make_node("host1").label(**labels).obj()


CASES = {
    "node without labels": ("PVC_1", _node(), None),
    "beta zone label matched": ("PVC_1", _node(**{BETA_ZONE: "us-west1-a", "x": "y"}), None),
    "beta region label matched": ("PVC_2", _node(**{BETA_REGION: "us-west1"}), None),
    "beta region label doesn't match": ("PVC_2", _node(**{BETA_REGION: "no_us-west1"}), CONFLICT),
    "beta zone label doesn't match": ("PVC_1", _node(**{BETA_ZONE: "no_us-west1-a"}), CONFLICT),
    "zone label matched": ("PVC_Stable_1", _node(**{ZONE: "us-west1-a"}), None),
    "region label matched": ("PVC_Stable_2", _node(**{REGION: "us-west1"}), None),
    "region label doesn't match": ("PVC_Stable_2", _node(**{REGION: "no_us-west1"}), CONFLICT),
    "zone label doesn't match": ("PVC_Stable_1", _node(**{ZONE: "no_us-west1-a"}), CONFLICT),
    "pv with zone and region, node with only zone": (
        "PVC_Stable_3",
        _node(**{ZONE: "us-west1-a"}),
        CONFLICT,
    ),
    "pv with beta zone, node with ga zone": ("PVC_1", _node(**{ZONE: "us-west1-a"}), None),
    "pv with beta zone, node with other ga zone": (
        "PVC_1",
        _node(**{ZONE: "us-west1-b"}),
        CONFLICT,
    ),
    "multi-zone pv, node in second zone": ("PVC_Multi", _node(**{ZONE: "us-west1-b"}), None),
    "multi-zone pv, node elsewhere": ("PVC_Multi", _node(**{ZONE: "us-west1-c"}), CONFLICT),
}


@pytest.mark.parametrize(("claim", "node", "want"), CASES.values(), ids=CASES.keys())
def test_filter(claim: str, node: Node, want: Status | None) -> None:
    env = VolumeEnv([*CLASSES, *PVS, *CLAIMS], [node])
    plugin = env.plugin(VolumeZone)
    pod = pod_with_claims("pod", claim)
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, env.snapshot.list())
    assert status is None
    assert plugin.filter(state, pod, env.node_info("host1")) == want
    assert plugin.filter(CycleState(), pod, env.node_info("host1")) == want  # without PreFilter


@pytest.mark.parametrize(
    ("claim", "want"),
    [
        ("PVC_Wait", Status.skip()),  # unbound WaitForFirstConsumer: VolumeBinding's job
        ("PVC_Bad", Status.skip()),  # a label with an empty zone is ignored
        ("PVC_Immediate", Status.unresolvable("PersistentVolume had no name")),
        (
            "PVC_NoClass",
            Status.unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
        ),
        (
            "PVC_MissingClass",
            Status.unresolvable('storageclass.storage.k8s.io "Class_0" not found'),
        ),
        ("PVC_NoPV", Status.unresolvable('persistentvolume "Vol_not_exist" not found')),
        ("PVC_Missing", Status.unresolvable('persistentvolumeclaim "PVC_Missing" not found')),
    ],
)
def test_pre_filter(claim: str, want: Status) -> None:
    env = VolumeEnv([*CLASSES, *PVS, *CLAIMS], [_node()])
    plugin = env.plugin(VolumeZone)
    _, status = plugin.pre_filter(CycleState(), pod_with_claims("pod", claim), [])
    assert status == want


def test_pod_without_volumes_is_skipped() -> None:
    env = VolumeEnv([], [_node(**{ZONE: "a"})])
    plugin = env.plugin(VolumeZone)
    pod = make_pod("p").obj()
    assert plugin.pre_filter(CycleState(), pod, [])[1] == Status.skip()
    assert plugin.filter(CycleState(), pod, env.node_info("host1")) is None


def test_hints() -> None:
    env = VolumeEnv()
    plugin = env.plugin(VolumeZone)
    pod = pod_with_claims("pod", "PVC_1")
    q, skip = QueueingHint.Queue, QueueingHint.QueueSkip
    assert plugin.is_schedulable_after_pvc_change(pod, None, CLAIMS[0]) is q
    assert plugin.is_schedulable_after_pvc_change(pod, None, CLAIMS[1]) is skip
    assert plugin.is_schedulable_after_storage_class_added(pod, None, CLASSES[0]) is q
    assert plugin.is_schedulable_after_storage_class_added(pod, None, CLASSES[1]) is skip
    assert plugin.is_schedulable_after_pv_change(pod, None, PVS[0]) is q
    relabelled = make_pv("Vol_1").labels({BETA_ZONE: "us-west1-b"}).obj()
    assert plugin.is_schedulable_after_pv_change(pod, PVS[0], relabelled) is q
    same = make_pv("Vol_1").labels({BETA_ZONE: "us-west1-a", "other": "x"}).obj()
    assert plugin.is_schedulable_after_pv_change(pod, PVS[0], same) is skip
