"""NodeVolumeLimits after upstream's csi_test.go (TestCSILimits, v1.34 cases without
VolumeAttachments): the same fixtures (4 PVs and claims per driver named
`csi-<driver>-<i>`, in-tree EBS PVs for `kubernetes.io/aws-ebs`, hostPath ones for
`kubernetes.io/hostpath`; `csi-4` unbound with class `csi-sc`, `csi-5` without class,
`csi-6` bound to a missing PV; a CSINode listing each driver), the same pods and the same
expected statuses, including in-tree and inline volumes migrated to `ebs.csi.aws.com`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from volumebinding_helpers import VolumeEnv, csi_node, make_pv, make_pvc, node, storage_class

from kubesched.api import Pod
from kubesched.framework import CycleState, NodeInfo, PodInfo, Status
from kubesched.testing import make_pod
from kubesched_volumebinding import NodeVolumeLimits

EBS, GCE = "ebs.csi.aws.com", "pd.csi.storage.gke.io"
IN_TREE_EBS, HOSTPATH = "kubernetes.io/aws-ebs", "kubernetes.io/hostpath"
EXCEEDED = Status.unschedulable("node(s) exceed max volume count")
SKIP = Status.skip()


def _name(driver: str, i: int | str) -> str:
    """Object names as upstream's, with `/` (not allowed in a name here) as `-`."""
    return f"csi-{driver}-{i}".replace("/", "-")


def _objects(drivers: list[str]) -> list[Any]:
    objs: list[Any] = [storage_class("csi-sc", mode="Immediate", provisioner=drivers[0])]
    for driver in drivers:
        for i in range(4):
            handle = f"csi-{driver}-{i}"  # the volume handle keeps upstream's text
            pv = make_pv(_name(driver, i))
            if driver == IN_TREE_EBS:
                pv = pv.spec(awsElasticBlockStore={"volumeID": handle})
            elif driver == HOSTPATH:
                pv = pv.spec(hostPath={"path": "/tmp"})
            else:
                pv = pv.csi(driver, handle)
            objs += [pv.obj(), make_pvc(_name(driver, i)).prebound(_name(driver, i)).obj()]
    objs += [
        make_pvc("csi-4").cls("csi-sc").obj(),
        make_pvc("csi-5").obj(),
        make_pvc("csi-6").cls("csi-sc").prebound("missing-in-action").obj(),
    ]
    return objs


def _pod(name: str, *claims: str, inline: list[dict[str, Any]] | None = None) -> Pod:
    volumes: list[dict[str, Any]] = [
        {"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)
    ]
    volumes += inline or []
    return make_pod(name).spec(volumes=volumes).obj()


def _ebs_inline(volume_id: str) -> dict[str, Any]:
    return {"name": "inline", "awsElasticBlockStore": {"volumeID": volume_id}}


RUNNING = _pod("running", _name(EBS, 3))
PENDING = _pod("pending", "csi-4")
UNBOUND_2 = _pod("unbound-2", "csi-4")
MISSING_PV = _pod("missing-pv", "csi-6")
NO_SC = _pod("no-sc", "csi-5")
GCE_TWO = _pod("gce-two", _name(GCE, 1), _name(GCE, 2))
IN_TREE_ONE = _pod("in-tree-one", _name(IN_TREE_EBS, 0))
IN_TREE_TWO = _pod("in-tree-two", _name(IN_TREE_EBS, 1), _name(IN_TREE_EBS, 2))
EBS_ONE = _pod("ebs-one", _name(EBS, 0))
EBS_TWO = _pod("ebs-two", _name(EBS, 1), _name(EBS, 2))
NON_MIGRATABLE = _pod("hostpath-one", _name(HOSTPATH, 0))
INLINE = _pod("inline", inline=[_ebs_inline("aws-inline1")])
INLINE_SAME_ID = _pod("inline-same", inline=[_ebs_inline(f"csi-{EBS}-1")])
CONFIG_ONLY = _pod(
    "config-only",
    inline=[{"name": "cm", "configMap": {"name": "x"}}, {"name": "s", "secret": {}}],
)
PVC_AND_CONFIG = _pod("pvc-config", _name(EBS, 0), inline=[{"name": "cm", "configMap": {}}])
INLINE_AND_CONFIG = _pod(
    "inline-config", inline=[{"name": "cm", "configMap": {}}, _ebs_inline("aws-inline1")]
)


@dataclass
class Case:
    new: Pod
    existing: list[Pod]
    drivers: list[str]
    limit_source: str = "csinode"  # "csinode" | "csinode-with-no-limit" | "" (no CSINode)
    max_vols: int = 2
    want: Status | None = None
    want_pre_filter: Status | None = None
    extra: list[Any] = field(default_factory=list)


CASES: dict[str, Case] = {
    "fits when node volume limit >= new pods CSI volume": Case(
        EBS_ONE, [RUNNING, EBS_TWO], [EBS], max_vols=4
    ),
    "doesn't when node volume limit <= pods CSI volume": Case(
        EBS_ONE, [RUNNING, EBS_TWO], [EBS], want=EXCEEDED
    ),
    "should when driver does not support volume limits": Case(
        EBS_ONE, [RUNNING, EBS_TWO], [EBS], limit_source="csinode-with-no-limit"
    ),
    "count pending PVCs towards volume limit <= pods CSI volume": Case(
        EBS_ONE, [PENDING, EBS_TWO], [EBS], want=EXCEEDED
    ),
    "count multiple pending pvcs towards volume limit >= pods CSI volume": Case(
        EBS_ONE, [PENDING, UNBOUND_2, EBS_TWO], [EBS], max_vols=4
    ),
    "should count PVCs with invalid PV name but valid SC": Case(
        EBS_ONE, [MISSING_PV, EBS_TWO], [EBS], want=EXCEEDED
    ),
    "don't count pvcs with missing SC towards volume limit": Case(EBS_ONE, [RUNNING, NO_SC], [EBS]),
    "count pvcs with the same type towards volume limit": Case(
        EBS_ONE, [GCE_TWO, EBS_TWO], [EBS, GCE], want=EXCEEDED
    ),
    "don't count pvcs with different type towards volume limit": Case(
        GCE_TWO, [EBS_TWO, RUNNING], [EBS, GCE]
    ),
    # in-tree volume migration
    "should count in-tree volumes if migration is enabled": Case(
        IN_TREE_ONE, [IN_TREE_TWO], [IN_TREE_EBS, EBS], want=EXCEEDED
    ),
    "nil csi node": Case(INLINE, [IN_TREE_TWO], [IN_TREE_EBS, EBS], limit_source=""),
    "should count unbound in-tree volumes if migration is enabled": Case(
        PENDING, [IN_TREE_TWO], [IN_TREE_EBS, EBS], want=EXCEEDED
    ),
    "should not limit pod if volume used does not report limits": Case(
        IN_TREE_ONE, [IN_TREE_TWO], [IN_TREE_EBS, EBS], limit_source="csinode-with-no-limit"
    ),
    "should not count non-migratable in-tree volumes": Case(
        NON_MIGRATABLE, [EBS_TWO], [HOSTPATH, EBS]
    ),
    "should count in-tree inline volumes if migration is enabled": Case(
        INLINE, [IN_TREE_TWO], [IN_TREE_EBS, EBS], want=EXCEEDED
    ),
    "should count in-tree and csi volumes if migration is enabled (when scheduling in-tree "
    "volumes)": Case(IN_TREE_ONE, [EBS_TWO], [IN_TREE_EBS, EBS], want=EXCEEDED),
    "should count in-tree, inline and csi volumes if migration is enabled (when scheduling "
    "in-tree volumes)": Case(
        INLINE, [EBS_TWO, IN_TREE_ONE], [IN_TREE_EBS, EBS], max_vols=3, want=EXCEEDED
    ),
    "should not count in-tree, inline and csi volumes if migration is enabled (when "
    "scheduling in-tree volumes)": Case(
        INLINE_SAME_ID, [EBS_TWO, IN_TREE_ONE], [IN_TREE_EBS, EBS], max_vols=3
    ),
    "should count in-tree and csi volumes if migration is enabled (when scheduling csi "
    "volumes)": Case(EBS_ONE, [IN_TREE_TWO], [IN_TREE_EBS, EBS], want=EXCEEDED),
    "skip Filter when the pod only uses secrets and configmaps": Case(
        CONFIG_ONLY, [], [EBS], want_pre_filter=SKIP
    ),
    "don't skip Filter when the pod has pvcs": Case(PVC_AND_CONFIG, [], [EBS]),
    "don't skip Filter when the pod has inline migratable volumes": Case(
        INLINE_AND_CONFIG, [IN_TREE_TWO], [IN_TREE_EBS, EBS], want=EXCEEDED
    ),
}


def _env(case: Case) -> tuple[VolumeEnv, NodeInfo]:
    objects = _objects(case.drivers) + case.extra
    if case.limit_source:
        count = case.max_vols if case.limit_source == "csinode" else None
        drivers = [{"name": d, "allocatable": {"count": count}} for d in case.drivers]
        objects.append(csi_node("n1", drivers, migrated=IN_TREE_EBS))
    env = VolumeEnv(objects, [node("n1")])
    running = []
    for pod in case.existing:
        placed = pod.model_copy(deep=True)
        placed.spec.node_name = "n1"
        running.append(PodInfo(placed))
    return env, NodeInfo(env.node_info("n1").node, running)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_csi_limits(case: Case) -> None:
    env, info = _env(case)
    plugin = env.plugin(NodeVolumeLimits)
    _, pre = plugin.pre_filter(CycleState(), case.new, [])
    assert pre == case.want_pre_filter
    if pre is None:
        assert plugin.filter(CycleState(), case.new, info) == case.want


def test_explanation_names_the_driver_counts_and_new_volumes() -> None:
    case = CASES[
        "should count in-tree, inline and csi volumes if migration is enabled (when "
        "scheduling in-tree volumes)"
    ]
    env, info = _env(case)
    plugin = env.plugin(NodeVolumeLimits)
    assert plugin.explain_filter(CycleState(), case.new, info) == [
        f"driver {EBS}: 3 volume(s) attached + 1 new (volume inline (awsElasticBlockStore)) "
        "> limit 3"
    ]
    fits = CASES["fits when node volume limit >= new pods CSI volume"]
    env, info = _env(fits)
    assert env.plugin(NodeVolumeLimits).explain_filter(CycleState(), fits.new, info) == []
