"""What VolumeBinding registers for, and its queueing hints (upstream volume_binding.go
isSchedulableAfter* and their tests)."""

from __future__ import annotations

import pytest
from volumebinding_helpers import (
    capacity,
    csi_driver,
    csi_node,
    make_pvc,
    pod_with_claims,
    storage_class,
)

from kubesched.framework import ActionType, EventResource, QueueingHint
from kubesched.testing import make_pod
from kubesched_volumebinding.volumebinding import events

Q, SKIP = QueueingHint.Queue, QueueingHint.QueueSkip
POD = pod_with_claims("p", "pvc-a", ephemeral=["scratch"])


def test_registered_events() -> None:
    got = {(e.event.resource, e.event.action) for e in events.volume_binding_events()}
    add_update = ActionType.Add | ActionType.Update
    assert got == {
        (EventResource.StorageClass, add_update),
        (EventResource.PersistentVolumeClaim, add_update),
        (EventResource.PersistentVolume, add_update),
        (EventResource.Node, ActionType.Add | ActionType.UpdateNodeLabel),
        (EventResource.CSINode, add_update),
        (EventResource.CSIDriver, ActionType.Update),
        (EventResource.CSIStorageCapacity, add_update),
    }


@pytest.mark.parametrize(
    ("claim", "want"),
    [
        (make_pvc("pvc-a").obj(), Q),
        (make_pvc("p-scratch").obj(), Q),  # the ephemeral volume's claim
        (make_pvc("pvc-a", "other").obj(), SKIP),  # another namespace
        (make_pvc("unrelated").obj(), SKIP),
    ],
)
def test_pvc_hint(claim: object, want: QueueingHint) -> None:
    assert events.after_pvc_change(POD, None, claim) is want


def test_storage_class_hint() -> None:
    old = storage_class("sc", allowed={"zone": ["a"]})
    assert events.after_storage_class_change(POD, None, old) is Q
    assert events.after_storage_class_change(POD, old, old.model_copy(deep=True)) is SKIP
    wider = storage_class("sc", allowed={"zone": ["a", "b"]})
    assert events.after_storage_class_change(POD, old, wider) is Q


def test_csi_node_hint() -> None:
    assert events.after_csi_node_change(POD, None, csi_node("n")) is Q
    assert (
        events.after_csi_node_change(POD, csi_node("n", migrated="a"), csi_node("n", migrated="a"))
        is SKIP
    )
    assert (
        events.after_csi_node_change(POD, csi_node("n", migrated="a"), csi_node("n", migrated="b"))
        is Q
    )


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        (None, capacity("c", "sc", None, "1Gi"), Q),
        (capacity("c", "sc", None, "1Gi"), capacity("c", "sc", None, "2Gi"), Q),
        (capacity("c", "sc", None, "2Gi"), capacity("c", "sc", None, "1Gi"), SKIP),
        (capacity("c", "sc", None), capacity("c", "sc", None, "1Gi"), Q),
        (capacity("c", "sc", None, "1Gi", "1Gi"), capacity("c", "sc", None, "5Gi", "1Gi"), SKIP),
        (capacity("c", "sc", None, "1Gi", "1Gi"), capacity("c", "sc", None, "1Gi", "2Gi"), Q),
    ],
)
def test_csi_storage_capacity_hint(old: object, new: object, want: QueueingHint) -> None:
    assert events.after_csi_storage_capacity_change(POD, old, new) is want


def test_csi_driver_hint() -> None:
    inline = make_pod("i").spec(volumes=[{"name": "v", "csi": {"driver": "drv"}}]).obj()
    on, off = csi_driver("drv", True), csi_driver("drv", False)
    assert events.after_csi_driver_change(inline, on, off) is Q
    assert events.after_csi_driver_change(inline, off, on) is SKIP
    assert events.after_csi_driver_change(POD, on, off) is SKIP  # no inline volume of it
