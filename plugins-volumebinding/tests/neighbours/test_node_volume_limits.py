"""NodeVolumeLimits (CSI limits), after upstream's csi_test.go: volumes counted per driver
against the CSINode's allocatable count, shared volumes counted once, unbound claims
counted for their class's provisioner."""

from __future__ import annotations

from typing import Any

import pytest
from volumebinding_helpers import (
    VolumeEnv,
    csi_node,
    make_pv,
    make_pvc,
    node,
    pod_with_claims,
    storage_class,
)

from kubesched.api import Pod
from kubesched.framework import CycleState, NodeInfo, PodInfo, Status
from kubesched.testing import make_pod
from kubesched_volumebinding import NodeVolumeLimits

EXCEEDED = Status.unschedulable("node(s) exceed max volume count")
DRIVER = "ebs.csi.aws.com"


def _objects() -> list[Any]:
    objs: list[Any] = [storage_class("csi-sc", provisioner=DRIVER)]
    for i in range(4):
        objs.append(make_pv(f"pv-{i}").csi(DRIVER, f"vol-{i}").obj())
        objs.append(make_pvc(f"c-{i}").bound(f"pv-{i}").obj())
    objs.append(make_pv("pv-other").csi("other.csi", "vol-x").obj())
    objs.append(make_pvc("c-other").bound("pv-other").obj())
    objs.append(make_pvc("c-unbound").cls("csi-sc").obj())
    objs.append(make_pv("pv-intree").spec(hostPath={"path": "/x"}).obj())
    objs.append(make_pvc("c-intree").bound("pv-intree").obj())
    return objs


def _running(name: str, *claims: str) -> Pod:
    pod = pod_with_claims(name, *claims).model_copy(deep=True)
    pod.spec.node_name = "n1"
    return pod


def _info(env: VolumeEnv, *pods: Pod) -> NodeInfo:
    return NodeInfo(env.node_info("n1").node, [PodInfo(p) for p in pods])


CASES = {
    "fits under the limit": (["c-2"], ["c-0"], 2, None),
    "one over the limit": (["c-2"], ["c-0", "c-1"], 2, EXCEEDED),
    "a volume already attached counts once": (["c-1"], ["c-0", "c-1"], 2, None),
    "another driver's volume does not count": (["c-other"], ["c-0", "c-1"], 2, None),
    "an unbound claim counts for its provisioner": (["c-unbound"], ["c-0", "c-1"], 2, EXCEEDED),
    "an in-tree volume does not count": (["c-intree"], ["c-0", "c-1"], 2, None),
    "two new volumes over the limit": (["c-2", "c-3"], ["c-0"], 2, EXCEEDED),
    "no limit for the driver": (["c-2"], ["c-0", "c-1"], None, None),
}


@pytest.mark.parametrize(("new", "existing", "limit", "want"), CASES.values(), ids=CASES.keys())
def test_csi_limits(new: list[str], existing: list[str], limit: int | None, want: Any) -> None:
    drivers = [{"name": DRIVER, "allocatable": {"count": limit}}] if limit is not None else []
    env = VolumeEnv([*_objects(), csi_node("n1", drivers)], [node("n1")])
    plugin = env.plugin(NodeVolumeLimits)
    pod = pod_with_claims("new", *new)
    assert plugin.pre_filter(CycleState(), pod, [])[1] is None
    info = _info(env, _running("old", *existing))
    assert plugin.filter(CycleState(), pod, info) == want


@pytest.mark.parametrize(
    ("csinode_limit", "want"), [(None, None), (2, None), (1, EXCEEDED)], ids=["none", "2", "1"]
)
def test_node_allocatable_attach_limit_is_not_read(csinode_limit: int | None, want: Any) -> None:
    """v1.34 csi.go getVolumeLimits reads the CSINode only: the node's
    `attachable-volumes-csi-<driver>` allocatable (1 here) limits nothing, with or
    without a CSINode."""
    n = node("n1")
    n.status.allocatable[f"attachable-volumes-csi-{DRIVER}"] = 1  # type: ignore[assignment]
    objects = _objects()
    if csinode_limit is not None:
        objects.append(csi_node("n1", [{"name": DRIVER, "allocatable": {"count": csinode_limit}}]))
    env = VolumeEnv(objects, [n])
    plugin = env.plugin(NodeVolumeLimits)
    info = _info(env, _running("old", "c-0"))
    assert plugin.filter(CycleState(), pod_with_claims("new", "c-1"), info) == want


def test_missing_claim_is_unresolvable() -> None:
    env = VolumeEnv(_objects(), [node("n1")])
    plugin = env.plugin(NodeVolumeLimits)
    status = plugin.filter(CycleState(), pod_with_claims("new", "nope"), _info(env))
    assert status == Status.unresolvable(
        'looking up PVC default/nope: persistentvolumeclaim "nope" not found'
    )


def test_pod_without_claims_is_skipped() -> None:
    env = VolumeEnv()
    plugin = env.plugin(NodeVolumeLimits)
    assert plugin.pre_filter(CycleState(), make_pod("p").obj(), [])[1] == Status.skip()
