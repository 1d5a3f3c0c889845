"""NodeVolumeLimits' events and queueing hints (nodevolumelimits/hints.py), after upstream
csi.go v1.34 (bwsalmon/kubernetes @33b24c4f) and csi_test.go: TestCSILimitsQHint,
TestCSILimitsAddedPVCQHint, TestCSILimitsAfterCSINodeUpdatedQHint; and end to end, a
pod rejected for a driver's limit is retried when the CSINode raises it (not before the
unschedulable pool's 5-minute flush otherwise)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from volume_sim_helpers import At, VolumeSim
from volumebinding_helpers import csi_node, make_pv, make_pvc, node

from kubesched.api import K8sModel, Pod
from kubesched.framework import ActionType, ClusterEvent, EventResource, QueueingHint
from kubesched.testing import make_pod
from kubesched_volumebinding.nodevolumelimits import (
    VOLUME_ATTACHMENT,
    is_schedulable_after_csi_node_updated,
    is_schedulable_after_pod_deleted,
    is_schedulable_after_pvc_added,
    is_schedulable_after_volume_attachment_deleted,
    node_volume_limits_events,
)
from kubesched_volumebinding.storage import CSINode

Q, SKIP = QueueingHint.Queue, QueueingHint.QueueSkip
EBS = "ebs.csi.aws.com"


def test_events_to_register_as_upstream() -> None:
    """csi.go EventsToRegister: CSINode Add has no hint (any new CSINode may help)."""
    got = [(e.event, e.hint) for e in node_volume_limits_events()]
    assert got == [
        (ClusterEvent(EventResource.CSINode, ActionType.Add), None),
        (
            ClusterEvent(EventResource.CSINode, ActionType.Update),
            is_schedulable_after_csi_node_updated,
        ),
        (ClusterEvent(EventResource.Pod, ActionType.Delete), is_schedulable_after_pod_deleted),
        (
            ClusterEvent(EventResource.PersistentVolumeClaim, ActionType.Add),
            is_schedulable_after_pvc_added,
        ),
        (
            ClusterEvent(VOLUME_ATTACHMENT, ActionType.Delete),
            is_schedulable_after_volume_attachment_deleted,
        ),
    ]


def _pod(name: str, *volumes: dict[str, Any], namespace: str = "default") -> Pod:
    return make_pod(name, namespace).spec(volumes=list(volumes)).obj()


def _claim(name: str, volume: str = "v") -> dict[str, Any]:
    return {"name": volume, "persistentVolumeClaim": {"claimName": name}}


def _placed(pod: Pod, node_name: str = "n1", nominated: str = "") -> Pod:
    copy = pod.model_copy(deep=True)
    copy.spec.node_name = node_name
    copy.status.nominated_node_name = nominated
    return copy


_EBS_INLINE = {"name": "i", "awsElasticBlockStore": {"volumeID": ""}}
_EPHEMERAL = {"name": "e", "ephemeral": {"volumeClaimTemplate": {}}}
_CONFIG = {"name": "cm", "configMap": {"name": "x"}}
POD_EBS = _pod("new", _claim(f"csi-{EBS}-2"))

# TestCSILimitsQHint (the deleted pod on node n1 unless said otherwise), then csi.go's
# other branches
DELETED: dict[str, tuple[Any, QueueingHint]] = {
    "return a Queue when a deleted pod has a PVC": (_placed(_pod("d", _claim("placeholder"))), Q),
    "return a Queue when a deleted pod has a inline migratable volume": (
        _placed(_pod("d", _EBS_INLINE)),
        Q,
    ),
    "return a QueueSkip when a deleted pod doesn't have any volume": (_placed(_pod("d")), SKIP),
    "return a QueueSkip when a deleted pod is not scheduled.": (
        _placed(_pod("d", _claim(f"csi-{EBS}-0")), ""),
        SKIP,
    ),
    "a deleted pod only nominated to a node, with a PVC": (
        _placed(_pod("d", _claim("placeholder")), "", nominated="n1"),
        Q,
    ),
    "a deleted pod with a generic ephemeral volume": (_placed(_pod("d", _EPHEMERAL)), Q),
    "a deleted pod with volumes this plugin does not count": (_placed(_pod("d", _CONFIG)), SKIP),
    "not a pod": (None, Q),
}


@pytest.mark.parametrize(("deleted", "want"), DELETED.values(), ids=DELETED.keys())
def test_pod_deleted_hint(deleted: Any, want: QueueingHint) -> None:
    assert is_schedulable_after_pod_deleted(POD_EBS, deleted, None) is want


_EPHEMERAL_POD1 = {"name": "ephemeral", "ephemeral": {"volumeClaimTemplate": {}}}

# TestCSILimitsAddedPVCQHint: (pod, added claim's name and namespace, hint)
ADDED: dict[str, tuple[Pod, tuple[str, str], QueueingHint]] = {
    "a pod isn't in the same namespace as an added PVC": (
        _pod("p", namespace="ns1"),
        ("pvc", "ns2"),
        SKIP,
    ),
    "a pod is in the same namespace as an added PVC": (
        _pod("p", _claim("pvc1"), namespace="ns1"),
        ("pvc1", "ns1"),
        Q,
    ),
    "a pod has an ephemeral volume related to an added PVC": (
        _pod("pod1", _EPHEMERAL_POD1, namespace="ns1"),
        ("pod1-ephemeral", "ns1"),
        Q,
    ),
    "a pod doesn't have the same PVC as an added PVC": (
        _pod("p", _claim("pvc1"), namespace="ns1"),
        ("pvc2", "ns1"),
        SKIP,
    ),
    "a pod doesn't have any PVC attached": (_pod("p", namespace="ns1"), ("pvc2", "ns1"), SKIP),
    "the pod's claim name in another namespace": (
        _pod("p", _claim("pvc1"), namespace="ns1"),
        ("pvc1", "ns2"),
        SKIP,
    ),
}


@pytest.mark.parametrize(("pod", "added", "want"), ADDED.values(), ids=ADDED.keys())
def test_pvc_added_hint(pod: Pod, added: tuple[str, str], want: QueueingHint) -> None:
    pvc = make_pvc(*added).obj()
    assert is_schedulable_after_pvc_added(pod, None, pvc) is want


def _driver(name: str, count: int | None) -> dict[str, Any]:
    d: dict[str, Any] = {"name": name, "nodeID": "test-node"}
    if count is not None:
        d["allocatable"] = {"count": count}
    return d


def _csi_node(*drivers: dict[str, Any]) -> CSINode:
    return csi_node("test-node", list(drivers))


# TestCSILimitsAfterCSINodeUpdatedQHint, then csi.go's other branches: (old, new drivers)
UPDATED: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]], QueueingHint]] = {
    "limit raised, queue": ([_driver(EBS, 1)], [_driver(EBS, 2)], Q),
    "limit decreased, skip queueing": ([_driver(EBS, 2)], [_driver(EBS, 1)], SKIP),
    "limit unchanged, skip queueing": ([_driver(EBS, 1)], [_driver(EBS, 1)], SKIP),
    "a driver appears with a limit": ([], [_driver(EBS, 1)], Q),
    "a driver appears without a limit (0 before, 0 now)": ([], [_driver(EBS, None)], SKIP),
    "a driver's limit removed (no count is 0)": ([_driver(EBS, 3)], [_driver(EBS, None)], SKIP),
    "a driver gets a limit": ([_driver(EBS, None)], [_driver(EBS, 1)], Q),
    "a limit of 0 stays 0": ([_driver(EBS, 0)], [_driver(EBS, 0)], SKIP),
    "a driver removed": ([_driver(EBS, 2), _driver("b", 1)], [_driver(EBS, 2)], SKIP),
    "another driver's limit raised (the pod's drivers are not looked at)": (
        [_driver(EBS, 1), _driver("b", 1)],
        [_driver(EBS, 1), _driver("b", 5)],
        Q,
    ),
    "one driver lowered, another raised": (
        [_driver(EBS, 4), _driver("b", 1)],
        [_driver(EBS, 1), _driver("b", 2)],
        Q,
    ),
}


@pytest.mark.parametrize(("old", "new", "want"), UPDATED.values(), ids=UPDATED.keys())
def test_csi_node_updated_hint(
    old: list[dict[str, Any]], new: list[dict[str, Any]], want: QueueingHint
) -> None:
    pod = _pod("test-pod", _claim(f"csi-{EBS}-0"), namespace="ns1")
    hint = is_schedulable_after_csi_node_updated(pod, _csi_node(*old), _csi_node(*new))
    assert hint is want


def test_csi_node_updated_hint_queues_objects_it_cannot_read() -> None:
    """util.As fails: upstream queues (and logs the error)."""
    pod = _pod("p", _claim("c"))
    assert is_schedulable_after_csi_node_updated(pod, None, _csi_node()) is Q
    assert is_schedulable_after_csi_node_updated(pod, _csi_node(), object()) is Q


# -- end to end -------------------------------------------------------------------------


def _objects(limit: int) -> list[K8sModel]:
    """n1 attaches `limit` EBS volumes; `old` runs there with one, `new` wants another."""
    objs: list[K8sModel] = [node("n1"), csi_node("n1", [_driver(EBS, limit)])]
    for i in range(2):
        claim = make_pvc(f"c-{i}").bound(f"pv-{i}").obj()
        objs += [make_pv(f"pv-{i}").csi(EBS, f"vol-{i}").claim(claim).obj(), claim]
    old = make_pod("old").req(cpu="100m").spec(volumes=[_claim("c-0")]).node("n1").obj()
    new = make_pod("new").req(cpu="100m").spec(volumes=[_claim("c-1")]).obj()
    return [*objs, old, new]


class _Update:
    """Replaces the CSINode n1's drivers at a virtual time."""

    def __init__(self, drivers: list[dict[str, Any]]) -> None:
        self.drivers = drivers
        self.sim: VolumeSim | None = None
        self.tasks: list[asyncio.Task[Any]] = []

    def __call__(self) -> None:
        assert self.sim is not None
        current = self.sim.cluster.get("CSINode", "n1")
        changed = current.model_copy(deep=True)
        changed.spec = csi_node("n1", self.drivers).spec
        self.tasks.append(asyncio.ensure_future(self.sim.cluster.update(changed)))


END_TO_END: dict[str, tuple[list[dict[str, Any]], str, int]] = {
    # (the CSINode's drivers from t=10s, the pod's outcome at 2 minutes, its attempts)
    "limit raised: retried and bound": ([_driver(EBS, 2)], "Bound", 2),
    "limit unchanged: not retried": ([_driver(EBS, 1), _driver("x", None)], "Unschedulable", 1),
    "another driver's limit raised: retried, still over": (
        [_driver(EBS, 1), _driver("x", 9)],
        "Unschedulable",
        2,
    ),
}


@pytest.mark.parametrize(("drivers", "status", "attempts"), END_TO_END.values(), ids=END_TO_END)
def test_csi_node_update_requeues_end_to_end(
    drivers: list[dict[str, Any]], status: str, attempts: int
) -> None:
    update = _Update(drivers)
    sim = VolumeSim(_objects(1), extra_controllers=[At(10, update)], until=120)
    update.sim = sim
    result = sim.run()
    assert update.tasks and all(t.done() for t in update.tasks)
    new = result.pod("new")
    assert (new.status, new.attempts) == (status, attempts)
    if status == "Bound":
        assert new.node == "n1"
    else:
        assert new.message == "0/1 nodes are available: 1 node(s) exceed max volume count."
