"""VolumeRestrictions, after upstream's volume_restrictions_test.go: GCE PD, AWS EBS, RBD
and iSCSI conflicts, and ReadWriteOncePod claims in use."""

from __future__ import annotations

from typing import Any

import pytest
from volumebinding_helpers import VolumeEnv, make_pvc, node, pod_with_claims

from kubesched.api import Pod
from kubesched.framework import CycleState, NodeInfo, PodInfo, QueueingHint, Status
from kubesched.testing import make_pod
from kubesched_volumebinding import VolumeRestrictions

DISK = Status.unschedulable("node(s) had no available disk")
RWOP = Status.unschedulable(
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)


def _pod(name: str, *volumes: dict[str, Any], node_name: str = "") -> Pod:
    b = make_pod(name).spec(volumes=[{"name": f"v{i}", **v} for i, v in enumerate(volumes)])
    if node_name:
        b.node(node_name)
    return b.obj()


def gce(pd: str, ro: bool = False) -> dict[str, Any]:
    return {"gcePersistentDisk": {"pdName": pd, "readOnly": ro}}


def ebs(vid: str) -> dict[str, Any]:
    return {"awsElasticBlockStore": {"volumeID": vid}}


def rbd(monitors: list[str], pool: str, image: str, ro: bool = False) -> dict[str, Any]:
    return {"rbd": {"monitors": monitors, "pool": pool, "image": image, "readOnly": ro}}


def iscsi(iqn: str, ro: bool = False) -> dict[str, Any]:
    return {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": iqn, "lun": 0, "readOnly": ro}}


CONFLICTS = {
    "gce: nothing on node": (gce("foo"), [], None),
    "gce: same disk": (gce("foo"), [gce("foo")], DISK),
    "gce: other disk": (gce("foo"), [gce("bar")], None),
    "gce: both read-only": (gce("foo", ro=True), [gce("foo", ro=True)], None),
    "ebs: same volume": (ebs("foo"), [ebs("foo")], DISK),
    "ebs: other volume": (ebs("foo"), [ebs("bar")], None),
    "rbd: same image, shared monitor": (
        rbd(["a", "b"], "p", "img"),
        [rbd(["b", "c"], "p", "img")],
        DISK,
    ),
    "rbd: no shared monitor": (rbd(["a"], "p", "img"), [rbd(["c"], "p", "img")], None),
    "rbd: other image": (rbd(["a"], "p", "img"), [rbd(["a"], "p", "img2")], None),
    "rbd: both read-only": (
        rbd(["a"], "p", "img", ro=True),
        [rbd(["a"], "p", "img", ro=True)],
        None,
    ),
    "iscsi: same iqn": (iscsi("iqn.1"), [iscsi("iqn.1")], DISK),
    "iscsi: both read-only": (iscsi("iqn.1", ro=True), [iscsi("iqn.1", ro=True)], None),
    "iscsi: other iqn": (iscsi("iqn.1"), [iscsi("iqn.2")], None),
}


@pytest.mark.parametrize(("volume", "existing", "want"), CONFLICTS.values(), ids=CONFLICTS.keys())
def test_disk_conflicts(volume: dict[str, Any], existing: list[dict[str, Any]], want: Any) -> None:
    env = VolumeEnv([], [node("n1")])
    plugin = env.plugin(VolumeRestrictions)
    info = NodeInfo(env.node_info("n1").node, [PodInfo(_pod("old", *existing, node_name="n1"))])
    pod = _pod("new", volume)
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, [info])
    assert status is None
    assert plugin.filter(state, pod, info) == want


def test_pod_without_checked_volumes_or_rwop_claims_is_skipped() -> None:
    env = VolumeEnv([make_pvc("c").modes("ReadWriteOnce").obj()], [node("n1")])
    plugin = env.plugin(VolumeRestrictions)
    assert plugin.pre_filter(CycleState(), pod_with_claims("p", "c"), [])[1] == Status.skip()


def test_missing_claim_is_unresolvable() -> None:
    env = VolumeEnv([], [node("n1")])
    plugin = env.plugin(VolumeRestrictions)
    _, status = plugin.pre_filter(CycleState(), pod_with_claims("p", "c"), [])
    assert status == Status.unresolvable('persistentvolumeclaim "c" not found')


def test_read_write_once_pod_claim_in_use() -> None:
    claim = make_pvc("rwop").modes("ReadWriteOncePod").obj()
    user = pod_with_claims("user", "rwop").model_copy(deep=True)
    user.spec.node_name = "n1"
    env = VolumeEnv([claim], [node("n1"), node("n2")])
    env.snapshot.get("n1").add_pod(user)  # type: ignore[union-attr]
    plugin = env.plugin(VolumeRestrictions)
    pod = pod_with_claims("p", "rwop")
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, env.snapshot.list())
    assert status is None
    assert plugin.filter(state, pod, env.node_info("n2")) == RWOP
    # preemption dry run: removing the user frees the claim, adding it back takes it again
    ext = plugin.pre_filter_extensions()
    assert ext is not None
    ext.remove_pod(state, pod, PodInfo(user), env.node_info("n1"))
    assert plugin.filter(state, pod, env.node_info("n2")) is None
    ext.add_pod(state, pod, PodInfo(user), env.node_info("n1"))
    assert plugin.filter(state, pod, env.node_info("n2")) == RWOP


def test_hints() -> None:
    env = VolumeEnv()
    plugin = env.plugin(VolumeRestrictions)
    pod = _pod("p", gce("foo"), {"persistentVolumeClaim": {"claimName": "c"}})
    q, skip = QueueingHint.Queue, QueueingHint.QueueSkip
    assert plugin.is_schedulable_after_pod_deleted(pod, _pod("d", gce("foo")), None) is q
    assert plugin.is_schedulable_after_pod_deleted(pod, _pod("d", gce("bar")), None) is skip
    uses_claim = _pod("d", {"persistentVolumeClaim": {"claimName": "c"}})
    assert plugin.is_schedulable_after_pod_deleted(pod, uses_claim, None) is q
    assert plugin.is_schedulable_after_pvc_added(pod, None, make_pvc("c").obj()) is q
    assert plugin.is_schedulable_after_pvc_added(pod, None, make_pvc("x").obj()) is skip
    assert plugin.is_schedulable_after_pvc_added(pod, None, make_pvc("c", "other").obj()) is skip
