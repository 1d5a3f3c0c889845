"""The embedded provisioner: when it provisions, what PV it makes, how it fails, and how
it tracks capacity."""

from __future__ import annotations

from controller_helpers import ControllerEnv
from volumebinding_helpers import capacity, csi_driver, csi_node, make_pvc, node, storage_class

from kubesched.api import K8sModel
from kubesched_volumebinding.controllers import (
    ANN_TOPOLOGY_KEYS,
    ANN_TRACK_CAPACITY,
    Provisioner,
    PVController,
)
from kubesched_volumebinding.storage import (
    ANN_SELECTED_NODE,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
)

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
DRIVER = "csi.example.com"
WFFC = storage_class("dyn", provisioner=DRIVER)


def claim(
    name: str = "data", size: str = "2Gi", node_name: str | None = None, cls: str = "dyn"
) -> PersistentVolumeClaim:
    b = make_pvc(name).cls(cls).request(size).modes("ReadWriteOnce").uid("")
    if node_name:
        b.selected_node(node_name)
    return b.obj()


def _only_pv(env: ControllerEnv) -> PersistentVolume:
    (pv,) = env.cluster.list("PersistentVolume")
    assert isinstance(pv, PersistentVolume)
    return pv


def _affinity(pv: PersistentVolume) -> list[tuple[str, list[str]]]:
    assert pv.spec.node_affinity is not None and pv.spec.node_affinity.required is not None
    (term,) = pv.spec.node_affinity.required.node_selector_terms
    return [(r.key, r.values) for r in term.match_expressions]


def test_waits_for_selected_node_then_provisions_after_the_delay() -> None:
    provisioner = Provisioner(delay=5)
    env = ControllerEnv([node("n1", **{ZONE: "z1"}), WFFC, claim()], provisioner, PVController())
    env.settle()
    assert env.cluster.list("PersistentVolume") == []
    selected = env.pvc("data").model_copy(deep=True)
    selected.metadata.annotations[ANN_SELECTED_NODE] = "n1"
    start = env.clock.now()
    env.do(lambda: env.cluster.update(selected))
    assert env.clock.now() - start >= 5
    pv = _only_pv(env)
    assert pv.spec.capacity["storage"] == 2 * 2**30
    assert pv.spec.storage_class_name == "dyn" and pv.spec.access_modes == ["ReadWriteOnce"]
    assert pv.spec.persistent_volume_reclaim_policy == "Delete"
    assert pv.metadata.annotations["pv.kubernetes.io/provisioned-by"] == DRIVER
    assert _affinity(pv) == [(ZONE, ["z1"])]
    assert env.pvc("data").spec.volume_name == pv.metadata.name  # the PV controller bound it
    assert provisioner.history[0].claim == "default/data"


def test_busy_while_a_provisioning_is_pending() -> None:
    provisioner = Provisioner(delay=30)
    env = ControllerEnv([node("n1"), WFFC, claim(node_name="n1")], provisioner)

    async def check() -> None:
        import asyncio

        await asyncio.sleep(1)
        assert provisioner.busy()

    env.settle(check)
    assert not provisioner.busy() and len(env.cluster.list("PersistentVolume")) == 1


def test_immediate_class_provisions_without_a_node() -> None:
    cls = storage_class("imm", mode="Immediate", provisioner=DRIVER, allowed={ZONE: ["z2"]})
    env = ControllerEnv([cls, claim(cls="imm")], Provisioner())
    env.settle()
    assert _affinity(_only_pv(env)) == [(ZONE, ["z2"])]


def test_topology_keys_from_csinode_and_class_annotation() -> None:
    drivers = [{"name": DRIVER, "topologyKeys": [HOST]}]
    env = ControllerEnv(
        [node("n1", **{ZONE: "z1"}), csi_node("n1", drivers), WFFC, claim(node_name="n1")],
        Provisioner(),
    )
    env.settle()
    assert _affinity(_only_pv(env)) == [(HOST, ["n1"])]

    cls = storage_class(
        "both", provisioner=DRIVER, annotations={ANN_TOPOLOGY_KEYS: f"{ZONE},{HOST}"}
    )
    env = ControllerEnv(
        [node("n1", **{ZONE: "z1"}), cls, claim(node_name="n1", cls="both")], Provisioner()
    )
    env.settle()
    assert _affinity(_only_pv(env)) == [(ZONE, ["z1"]), (HOST, ["n1"])]


def test_failure_drops_selected_node() -> None:
    provisioner = Provisioner(fail_nodes=frozenset({"n1"}))
    env = ControllerEnv([node("n1"), WFFC, claim(node_name="n1")], provisioner)
    env.settle()
    assert env.cluster.list("PersistentVolume") == []
    assert ANN_SELECTED_NODE not in env.pvc("data").metadata.annotations
    assert [(r.node, r.error) for r in provisioner.history] == [
        ("n1", "provisioning failed (told to fail here)")
    ]


def test_missing_node_drops_selected_node() -> None:
    provisioner = Provisioner()
    env = ControllerEnv([WFFC, claim(node_name="gone")], provisioner)
    env.settle()
    assert ANN_SELECTED_NODE not in env.pvc("data").metadata.annotations
    assert provisioner.history[0].error == 'node "gone" not found'


def test_capacity_tracking_takes_and_returns_space() -> None:
    cls = storage_class("dyn", provisioner=DRIVER, annotations={ANN_TRACK_CAPACITY: "true"})
    objects: list[K8sModel] = [
        node("n1"),
        cls,
        csi_driver(DRIVER, True),
        capacity("cap", "dyn", {HOST: "n1"}, "5Gi", "5Gi"),
        claim("a", "2Gi", node_name="n1"),
        claim("b", "2Gi", node_name="n1"),
        claim("c", "2Gi", node_name="n1"),
    ]
    provisioner = Provisioner()
    env = ControllerEnv(objects, provisioner, PVController())
    env.settle()
    cap = env.cluster.get("CSIStorageCapacity", "cap", "kube-system")
    assert isinstance(cap, CSIStorageCapacity)
    assert cap.capacity == 2**30 and cap.maximum_volume_size == 2**30
    assert [r.claim for r in provisioner.history if r.error] == ["default/c"]
    assert ANN_SELECTED_NODE not in env.pvc("c").metadata.annotations
    volume = env.pvc("a").spec.volume_name
    env.do(lambda: env.cluster.delete("PersistentVolume", volume))
    cap = env.cluster.get("CSIStorageCapacity", "cap", "kube-system")
    assert isinstance(cap, CSIStorageCapacity)
    assert cap.capacity == 3 * 2**30


def test_paused_provisioner_resumes() -> None:
    provisioner = Provisioner(enabled=False)
    env = ControllerEnv([node("n1"), WFFC, claim(node_name="n1")], provisioner)
    env.settle()
    assert env.cluster.list("PersistentVolume") == []

    async def resume() -> None:
        provisioner.resume()

    env.settle(resume)
    assert len(env.cluster.list("PersistentVolume")) == 1


def test_no_provisioner_class_is_ignored() -> None:
    cls = storage_class("local", provisioner="kubernetes.io/no-provisioner")
    env = ControllerEnv([node("n1"), cls, claim(node_name="n1", cls="local")], Provisioner())
    env.settle()
    assert env.cluster.list("PersistentVolume") == []
