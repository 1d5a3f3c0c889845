"""The embedded PV controller: how it completes, makes and undoes bindings (after the
binding rules of upstream's pv_controller.go and its *_test.go tables)."""

from __future__ import annotations

from controller_helpers import ControllerEnv
from volumebinding_helpers import make_pv, make_pvc, storage_class

from kubesched.api import K8sModel
from kubesched_volumebinding.controllers import PVController
from kubesched_volumebinding.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    PersistentVolumeClaim,
)

IMMEDIATE = storage_class("std", mode="Immediate")
WAIT = storage_class("wait")


def claim(name: str, size: str = "1Gi", cls: str | None = "std") -> PersistentVolumeClaim:
    return make_pvc(name).cls(cls).request(size).uid("").obj()


def test_unclaimed_pv_becomes_available() -> None:
    env = ControllerEnv([make_pv("pv").capacity("1Gi").pending().obj()], PVController())
    env.settle()
    pv = env.pv("pv")
    assert pv is not None and pv.status.phase == "Available"


def test_immediate_claim_binds_to_the_smallest_fitting_pv() -> None:
    pvs = [
        make_pv(n).cls("std").capacity(s).pending().obj()
        for n, s in (("big", "10Gi"), ("small", "1Gi"), ("mid", "3Gi"))
    ]
    env = ControllerEnv([IMMEDIATE, *pvs, claim("data", "2Gi")], PVController())
    env.settle()
    pvc = env.pvc("data")
    assert pvc.spec.volume_name == "mid"
    assert pvc.metadata.annotations[ANN_BIND_COMPLETED] == "yes"
    assert pvc.metadata.annotations[ANN_BOUND_BY_CONTROLLER] == "yes"
    assert pvc.status.phase == "Bound" and pvc.status.capacity["storage"] == 3 * 2**30
    pv = env.pv("mid")
    assert pv is not None and pv.status.phase == "Bound"
    assert pv.spec.claim_ref is not None and pv.spec.claim_ref.uid == pvc.metadata.uid
    assert env.pv("small").status.phase == "Available"  # type: ignore[union-attr]


def test_wait_for_first_consumer_claim_is_left_to_the_scheduler() -> None:
    env = ControllerEnv(
        [WAIT, make_pv("pv").cls("wait").capacity("1Gi").obj(), claim("data", cls="wait")],
        PVController(),
    )
    env.settle()
    assert env.pvc("data").spec.volume_name == ""
    assert env.pvc("data").status.phase == "Pending"


def test_pv_prebound_by_the_scheduler_completes() -> None:
    env = ControllerEnv([WAIT, claim("data", cls="wait")], PVController())
    pvc = env.pvc("data")
    pv = make_pv("pv").cls("wait").capacity("1Gi").claim(pvc).obj()
    env.do(lambda: env.cluster.create(pv))
    assert env.pvc("data").spec.volume_name == "pv"
    assert env.pv("pv").status.phase == "Bound"  # type: ignore[union-attr]


def test_claim_prebound_by_the_user() -> None:
    user_claim = make_pvc("data").cls("std").request("1Gi").prebound("pv").uid("").obj()
    env = ControllerEnv(
        [IMMEDIATE, make_pv("pv").cls("std").capacity("5Gi").obj(), user_claim], PVController()
    )
    env.settle()
    pvc = env.pvc("data")
    assert pvc.metadata.annotations[ANN_BIND_COMPLETED] == "yes"
    assert ANN_BOUND_BY_CONTROLLER not in pvc.metadata.annotations  # the user chose the PV
    assert env.pv("pv").spec.claim_ref.name == "data"  # type: ignore[union-attr]


def test_bound_claim_whose_pv_is_gone_is_lost() -> None:
    env = ControllerEnv(
        [IMMEDIATE, make_pv("pv").cls("std").capacity("1Gi").pending().obj(), claim("data")],
        PVController(),
    )
    env.settle()
    env.do(lambda: env.cluster.delete("PersistentVolume", "pv"))
    assert env.pvc("data").status.phase == "Lost"


def test_reservation_whose_claim_is_gone_is_freed() -> None:
    env = ControllerEnv([WAIT, claim("data", cls="wait")], PVController())
    pvc = env.pvc("data")
    pv = make_pv("pv").cls("wait").capacity("1Gi").claim(pvc).obj()  # Available, reserved
    env.do(lambda: env.cluster.delete("PersistentVolumeClaim", "data", "default"))
    env.do(lambda: env.cluster.create(pv))
    freed = env.pv("pv")
    assert freed is not None and freed.spec.claim_ref is None
    assert ANN_BOUND_BY_CONTROLLER not in freed.metadata.annotations
    assert freed.status.phase == "Available"


def test_bound_pv_whose_claim_is_gone_is_released_or_deleted() -> None:
    objects: list[K8sModel] = [
        IMMEDIATE,
        make_pv("keep").cls("std").capacity("1Gi").reclaim("Retain").obj(),
        make_pv("drop").cls("std").capacity("2Gi").reclaim("Delete").obj(),
        claim("a", "1Gi"),
        claim("b", "2Gi"),
    ]
    env = ControllerEnv(objects, PVController())
    env.settle()
    assert env.pvc("a").spec.volume_name == "keep" and env.pvc("b").spec.volume_name == "drop"
    env.do(lambda: env.cluster.delete("PersistentVolumeClaim", "a", "default"))
    env.do(lambda: env.cluster.delete("PersistentVolumeClaim", "b", "default"))
    assert env.pv("keep").status.phase == "Released"  # type: ignore[union-attr]
    assert env.pv("drop") is None


def test_controller_binding_lost_to_another_volume_is_undone() -> None:
    env = ControllerEnv([IMMEDIATE, claim("data")], PVController())
    pvc = env.pvc("data")
    # the claim got bound to "real"; "stale" still points at it from an earlier attempt
    objects = [
        make_pv("real").cls("std").capacity("1Gi").claim(pvc).obj(),
        make_pv("stale").cls("std").capacity("1Gi").claim(pvc).obj(),
    ]
    env.do(lambda: env.cluster.create(objects[0]))
    env.do(lambda: env.cluster.create(objects[1]))
    assert env.pvc("data").spec.volume_name == "real"
    stale = env.pv("stale")
    assert stale is not None and stale.spec.claim_ref is None and stale.status.phase == "Available"


def test_claim_without_class_gets_the_default_class() -> None:
    default = storage_class(
        "fast",
        mode="Immediate",
        annotations={"storageclass.kubernetes.io/is-default-class": "true"},
    )
    env = ControllerEnv([default, claim("data", cls=None), claim("none", cls="")], PVController())
    env.settle()
    assert env.pvc("data").spec.storage_class_name == "fast"
    assert env.pvc("none").spec.storage_class_name == ""  # "" asks for no class


def test_claim_to_provision_names_its_provisioner() -> None:
    cls = storage_class("dyn", provisioner="csi.example.com")
    pvc = make_pvc("data").cls("dyn").request("1Gi").selected_node("n1").uid("").obj()
    env = ControllerEnv([cls, pvc], PVController())
    env.settle()
    annotations = env.pvc("data").metadata.annotations
    assert annotations["volume.kubernetes.io/storage-provisioner"] == "csi.example.com"
    assert annotations[ANN_SELECTED_NODE] == "n1"


def test_paused_controller_holds_bindings_until_resumed() -> None:
    controller = PVController(enabled=False)
    env = ControllerEnv(
        [IMMEDIATE, make_pv("pv").cls("std").capacity("1Gi").obj(), claim("data")], controller
    )
    env.settle()
    assert env.pvc("data").spec.volume_name == ""
    assert not controller.busy()
    controller.resume()
    env.settle()
    assert env.pvc("data").spec.volume_name == "pv"
