"""NodeVolumeLimits counts the node's VolumeAttachments (upstream csi.go since PR #127757,
issue #126502: a deleted pod's volume still takes a slot until it is detached), after
csi_test.go: TestCSILimits' VolumeAttachment cases (attachments `va-<driver>-<j>` of the
PVs `csi-<driver>-<j>` on the node) and TestCSILimitsDeletedVolumeAttachmentQHint."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from volumebinding_helpers import VolumeEnv, csi_node, make_pv, make_pvc, node, volume_kinds

from kubesched.api import Pod
from kubesched.framework import (
    CycleState,
    NodeInfo,
    PodInfo,
    QueueingHint,
    Status,
)
from kubesched.testing import make_pod
from kubesched_volumebinding import NodeVolumeLimits
from kubesched_volumebinding.nodevolumelimits import is_schedulable_after_volume_attachment_deleted
from kubesched_volumebinding.storage import VolumeAttachment

EBS, GCE_TEST = "ebs.csi.aws.com", "test.storage.gke.io"
EXCEEDED = Status.unschedulable("node(s) exceed max volume count")


def _va(name: str, attacher: str, pv: str | None, node_name: str = "n1", **status: Any) -> Any:
    source: dict[str, Any] = {} if pv is None else {"persistentVolumeName": pv}
    return VolumeAttachment.model_validate(
        {
            "metadata": {"name": name},
            "spec": {"attacher": attacher, "nodeName": node_name, "source": source},
            "status": status,
        }
    )


def _csi_objects(count: int = 4) -> list[Any]:
    objs: list[Any] = []
    for i in range(count):
        name = f"csi-{EBS}-{i}"
        objs += [make_pv(name).csi(EBS, name).obj(), make_pvc(name, "ns1").prebound(name).obj()]
    return objs


def _vas(count: int) -> list[Any]:
    """upstream getFakeVolumeAttachmentLister: `count` attachments of the driver's PVs."""
    return [_va(f"va-{EBS}-{j}", EBS, f"csi-{EBS}-{j}") for j in range(count)]


def _pod(name: str, *claims: str, inline: list[dict[str, Any]] | None = None) -> Pod:
    volumes: list[dict[str, Any]] = [
        {"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)
    ]
    return make_pod(name, "ns1").spec(volumes=volumes + (inline or [])).obj()


EBS_ONE = _pod("ebs-one", f"csi-{EBS}-0")


def _run(new: Pod, objects: list[Any], existing: Sequence[Pod] = (), limit: int = 2) -> Any:
    csi = csi_node("n1", [{"name": EBS, "allocatable": {"count": limit}}])
    env = VolumeEnv([*_csi_objects(), *objects, csi], [node("n1")])
    running = []
    for pod in existing:
        placed = pod.model_copy(deep=True)
        placed.spec.node_name = "n1"
        running.append(PodInfo(placed))
    info = NodeInfo(env.node_info("n1").node, running)
    plugin = env.plugin(NodeVolumeLimits)
    state = CycleState()
    _, pre = plugin.pre_filter(state, new, [])
    assert pre is None
    return plugin.filter(state, new, info), plugin.explain_filter(CycleState(), new, info)


CASES: dict[str, tuple[list[Any], list[Pod], Status | None]] = {
    # csi_test.go TestCSILimits
    "should count VolumeAttachments towards volume limit when no pods exist": (
        _vas(2),
        [],
        EXCEEDED,
    ),
    "should schedule pod when VolumeAttachments count does not exceed limit": (_vas(1), [], None),
    # the rule's corners (csi.go getNodeVolumeAttachmentInfo and Filter)
    "an attachment on another node is not counted": (
        [_va("far", EBS, f"csi-{EBS}-1", node_name="n2"), *_vas(1)],
        [],
        None,
    ),
    "an attachment still attaching (or detaching) counts": (
        [_va("a", EBS, f"csi-{EBS}-1", attached=False), _va("b", EBS, f"csi-{EBS}-2")],
        [],
        EXCEEDED,
    ),
    "attachments without attacher, PV name, PV, or of a non-CSI PV are not counted": (
        [
            _va("no-attacher", "", f"csi-{EBS}-1"),
            _va("no-pv-name", EBS, None),
            _va("pv-gone", EBS, "gone"),
            _va("in-tree", EBS, "in-tree"),
            make_pv("in-tree").spec(awsElasticBlockStore={"volumeID": "vol-1"}).obj(),
            *_vas(1),
        ],
        [],
        None,
    ),
    "two attachments of one volume count once": (
        [_va("x", EBS, f"csi-{EBS}-1"), _va("y", EBS, f"csi-{EBS}-1")],
        [],
        None,
    ),
}


@pytest.mark.parametrize(("objects", "existing", "want"), CASES.values(), ids=CASES.keys())
def test_csi_limits_with_volume_attachments(
    objects: list[Any], existing: list[Pod], want: Status | None
) -> None:
    status, _ = _run(EBS_ONE, objects, existing)
    assert status == want


@pytest.mark.parametrize(("limit", "want"), [(3, None), (2, EXCEEDED)])
def test_attachment_of_a_volume_a_pod_there_uses_counts_once(
    limit: int, want: Status | None
) -> None:
    """csi-1: the running pod's and attached; csi-0: attached only, and the new pod's
    (counted new too: attachments do not dedupe the new pod's volumes)."""
    status, _ = _run(EBS_ONE, _vas(2), [_pod("running", f"csi-{EBS}-1")], limit=limit)
    assert status == want


def test_explanation_says_what_only_attachments_hold() -> None:
    _, lines = _run(EBS_ONE, _vas(2), [_pod("running", f"csi-{EBS}-3")], limit=3)
    assert lines == [
        f"driver {EBS}: 3 volume(s) attached (2 only through VolumeAttachments) + 1 new "
        f"(claim ns1/csi-{EBS}-0) > limit 3"
    ]


def _inline_va(driver: str) -> Any:
    va = _va("volumeattachment1", driver, None, node_name="fake-node")
    va.spec.source.inline_volume_spec = {"csi": {"driver": driver}}
    return va


_PVC_VOLUME = {"name": "c", "persistentVolumeClaim": {"claimName": "pvc1"}}
_EBS_INLINE = {"name": "i", "awsElasticBlockStore": {"volumeID": "test"}}
_GCE_INLINE = {"name": "i", "gcePersistentDisk": {"pdName": "test"}}
_PV1_VA = _va("volumeattachment1", GCE_TEST, "pv1", node_name="fake-node")

# csi_test.go TestCSILimitsDeletedVolumeAttachmentQHint: (pod volumes, deleted VA, queue?)
HINTS: dict[str, tuple[list[dict[str, Any]], Any, bool]] = {
    "a pod has PVC when VolumeAttachment is deleting": ([_PVC_VOLUME], _PV1_VA, True),
    "a pod has an Inline Migratable volume (AWSEBSDriver) when VolumeAttachment "
    "(AWSEBSDriver) is deleting (match)": ([_EBS_INLINE], _inline_va(EBS), True),
    "a pod has an Inline Migratable volume (GCEPDDriver) when VolumeAttachment "
    "(AWSEBSDriver) is deleting (no match)": ([_GCE_INLINE], _inline_va(EBS), False),
    "a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when VolumeAttachment "
    "(AWSEBSDriver) is deleting": ([_EBS_INLINE, _PVC_VOLUME], _inline_va(EBS), True),
    "a pod has an Inline Migratable volume (AWSEBSDriver) and PVC when VolumeAttachment "
    "(AWSEBSDriver)  is deleting": ([_EBS_INLINE, _PVC_VOLUME], _PV1_VA, True),
    "a pod has no PVC when VolumeAttachment is deleting": ([], _PV1_VA, False),
    # not upstream's: a generic ephemeral volume does not count here
    "a pod with only an ephemeral volume": (
        [{"name": "e", "ephemeral": {"volumeClaimTemplate": {}}}],
        _PV1_VA,
        False,
    ),
    # azure_file.go and rbd.go translate any inline volume, to their own driver
    "an inline azureFile volume, its driver's attachment": (
        [{"name": "f", "azureFile": {"secretName": "s", "shareName": "x"}}],
        _inline_va("file.csi.azure.com"),
        True,
    ),
    "an inline azureFile volume, another driver's attachment": (
        [{"name": "f", "azureFile": {"secretName": "s", "shareName": "x"}}],
        _inline_va(EBS),
        False,
    ),
    "an inline rbd volume, its driver's attachment": (
        [{"name": "r", "rbd": {"monitors": ["m"], "image": "i"}}],
        _inline_va("rbd.csi.ceph.com"),
        True,
    ),
    "an inline rbd volume, another driver's attachment": (
        [{"name": "r", "rbd": {"monitors": ["m"], "image": "i"}}],
        _inline_va(EBS),
        False,
    ),
    "an inline EBS volume that does not translate requeues": (
        [{"name": "i", "awsElasticBlockStore": {"volumeID": "aws://zone/bad"}}],
        _inline_va(GCE_TEST),
        True,
    ),
}


@pytest.mark.parametrize(("volumes", "deleted", "queue"), HINTS.values(), ids=HINTS.keys())
def test_deleted_volume_attachment_hint(
    volumes: list[dict[str, Any]], deleted: Any, queue: bool
) -> None:
    pod = make_pod("p", "ns1").spec(volumes=volumes).obj()
    hint = is_schedulable_after_volume_attachment_deleted(pod, deleted, None)
    assert hint == (QueueingHint.Queue if queue else QueueingHint.QueueSkip)


def test_volume_attachment_kind_is_registered_and_loads() -> None:
    info = next(k for k in volume_kinds() if k.kind == "VolumeAttachment")
    assert (info.api_version, info.namespaced) == ("storage.k8s.io/v1", False)
    va = VolumeAttachment.model_validate(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "VolumeAttachment",
            "metadata": {"name": "csi-123"},
            "spec": {
                "attacher": EBS,
                "nodeName": "n1",
                "source": {"persistentVolumeName": "pv-a"},
            },
            "status": {"attached": True, "attachmentMetadata": {"devicePath": "/dev/xvdba"}},
        }
    )
    assert (va.spec.attacher, va.spec.node_name, va.spec.source.persistent_volume_name) == (
        EBS,
        "n1",
        "pv-a",
    )
    assert va.status.attached and va.status.attachment_metadata == {"devicePath": "/dev/xvdba"}
