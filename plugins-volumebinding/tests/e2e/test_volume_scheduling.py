"""VolumeBinding end to end: the scheduler, the PV controller and the provisioner in the
embedded cluster on virtual time, in the spirit of upstream's
test/integration/volumescheduling tests."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from volume_sim_helpers import At, VolumeSim, claims_of, volumes_of
from volumebinding_helpers import (
    capacity,
    csi_driver,
    make_pv,
    make_pvc,
    node,
    storage_class,
)

from kubesched.api import K8sModel, Pod
from kubesched.testing import make_pod
from kubesched_volumebinding.controllers import ANN_TRACK_CAPACITY, Provisioner, PVController
from kubesched_volumebinding.storage import ANN_SELECTED_NODE, is_fully_bound

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
LOCAL = storage_class("local", provisioner="kubernetes.io/no-provisioner")


def pod(name: str, *claims: str, cpu: str = "100m") -> Pod:
    vols = [
        {"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}} for i, c in enumerate(claims)
    ]
    return make_pod(name).req(cpu=cpu).spec(volumes=vols).obj()


def local_pv(
    name: str, host: str, size: str = "10Gi", cls: str = "local", *, available: bool = False
) -> Any:
    """A local PV; by default without status, so the PV controller makes it Available."""
    b = make_pv(name).cls(cls).capacity(size).affinity({HOST: [host]})
    return b.obj() if available else b.pending().obj()


def claim(name: str, size: str = "5Gi", cls: str | None = "local") -> Any:
    return make_pvc(name).cls(cls).request(size).uid("").obj()


def _bound_to(sim: VolumeSim, key: str) -> str:
    pvc = claims_of(sim)[key]
    assert is_fully_bound(pvc), key
    assert pvc.status.phase == "Bound"
    return pvc.spec.volume_name


def test_two_pods_racing_for_one_pv() -> None:
    objects: list[K8sModel] = [
        node("n1"),
        node("n2"),
        LOCAL,
        local_pv("pv-1", "n1"),
        claim("data-a"),
        claim("data-b"),
        pod("a", "data-a"),
        pod("b", "data-b"),
    ]
    sim = VolumeSim(objects)
    result = sim.run()
    assert result.pod("a").node == "n1"
    assert _bound_to(sim, "default/data-a") == "pv-1"
    b = result.pod("b")
    assert b.status == "Unschedulable"
    assert b.message.startswith(
        "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind."
    )
    pv = volumes_of(sim)["pv-1"]
    assert pv.status.phase == "Bound" and pv.spec.claim_ref is not None
    assert pv.spec.claim_ref.name == "data-a"
    assert sim.plugin().pv_cache.assumed_keys() == []
    assert sim.plugin().pvc_cache.assumed_keys() == []


def test_local_pvs_pin_pods_to_their_nodes() -> None:
    bound_claim = make_pvc("old").cls("local").request("1Gi").bound("pv-old").uid("").obj()
    objects: list[K8sModel] = [
        node("n1"),
        node("n2"),
        node("n3"),
        LOCAL,
        local_pv("pv-n2", "n2"),
        local_pv("pv-n3", "n3"),
        make_pv("pv-old").cls("local").capacity("1Gi").affinity({HOST: ["n1"]}).obj(),
        claim("a"),
        claim("b"),
        bound_claim,
        pod("pa", "a"),
        pod("pb", "b"),
        pod("pold", "old"),
    ]
    sim = VolumeSim(objects)
    result = sim.run()
    # a pod's node is the one its claim's PV lives on; which claim gets which is free
    for p, c in (("pa", "a"), ("pb", "b")):
        placed = result.pod(p).node
        assert placed in ("n2", "n3")
        assert _bound_to(sim, f"default/{c}") == f"pv-{placed}"
    assert {result.pod("pa").node, result.pod("pb").node} == {"n2", "n3"}
    assert result.pod("pold").node == "n1"


def test_wait_for_first_consumer_provisioning_follows_allowed_topologies() -> None:
    zonal = storage_class("zonal", provisioner="csi.example.com", allowed={ZONE: ["b"]})
    objects: list[K8sModel] = [
        node("a1", **{ZONE: "a"}),
        node("b1", **{ZONE: "b"}),
        node("c1", **{ZONE: "c"}),
        zonal,
        claim("data", cls="zonal"),
        pod("app", "data"),
    ]
    sim = VolumeSim(objects, provisioner=Provisioner(delay=3))
    result = sim.run()
    assert result.pod("app").node == "b1"
    volume = volumes_of(sim)[_bound_to(sim, "default/data")]
    assert volume.spec.node_affinity is not None and volume.spec.node_affinity.required is not None
    (term,) = volume.spec.node_affinity.required.node_selector_terms
    assert [(r.key, r.values) for r in term.match_expressions] == [(ZONE, ["b"])]
    assert claims_of(sim)["default/data"].metadata.annotations[ANN_SELECTED_NODE] == "b1"
    assert result.virtual_seconds >= 3


def test_storage_capacity_too_small() -> None:
    objects: list[K8sModel] = [
        node("n1"),
        node("n2"),
        storage_class("fast", provisioner="csi.example.com"),
        csi_driver("csi.example.com", True),
        capacity("cap-n1", "fast", {HOST: "n1"}, "1Gi"),
        capacity("cap-n2", "fast", {HOST: "n2"}, "4Gi"),
        claim("data", size="5Gi", cls="fast"),
        pod("app", "data"),
    ]
    sim = VolumeSim(objects)
    result = sim.run()
    app = result.pod("app")
    assert app.status == "Unschedulable"
    assert app.message.startswith(
        "0/2 nodes are available: 2 node(s) did not have enough free storage."
    )
    assert sim.provisioner.history == []


def test_prebind_timeout_then_unreserve_and_retry() -> None:
    controller = PVController(enabled=False)  # nothing completes bindings at first
    objects: list[K8sModel] = [
        node("n1"),
        LOCAL,
        local_pv("pv-1", "n1", available=True),
        claim("data"),
        pod("app", "data"),
    ]
    sim = VolumeSim(
        objects,
        pv_controller=controller,
        bind_timeout=30,
        extra_controllers=[At(45, controller.resume)],
    )
    result = sim.run()
    app = result.pod("app")
    assert app.node == "n1" and app.attempts >= 2
    failures = sim.events("FailedScheduling")
    assert failures[0] == (
        'running PreBind plugin "VolumeBinding": binding volumes: timed out waiting for the '
        "condition (claims still unbound after 30s: default/data)"
    )
    assert _bound_to(sim, "default/data") == "pv-1"
    assert sim.plugin().pv_cache.assumed_keys() == []


def test_provisioning_failure_then_rescheduling_elsewhere() -> None:
    """Both pods first choose the roomier node n1, whose published capacity fits either
    claim but not both; the second provisioning fails there (the provisioner drops
    selected-node and publishes what is left), so that pod is retried and goes to n2."""
    cls = storage_class(
        "tracked", provisioner="csi.example.com", annotations={ANN_TRACK_CAPACITY: "true"}
    )
    big, small = node("n1"), node("n2")
    big.status.allocatable["cpu"] = Fraction(16)
    small.status.allocatable["cpu"] = Fraction(2)
    objects: list[K8sModel] = [
        big,
        small,
        cls,
        csi_driver("csi.example.com", True),
        capacity("cap-n1", "tracked", {HOST: "n1"}, "10Gi"),
        capacity("cap-n2", "tracked", {HOST: "n2"}, "10Gi"),
        claim("data-1", size="8Gi", cls="tracked"),
        claim("data-2", size="8Gi", cls="tracked"),
        pod("p1", "data-1", cpu="500m"),
        pod("p2", "data-2", cpu="500m"),
    ]
    sim = VolumeSim(objects, provisioner=Provisioner(delay=2, default_topology_keys=(HOST,)))
    result = sim.run()
    assert result.pod("p1").node == "n1"
    assert result.pod("p2").node == "n2"
    failed = [r for r in sim.provisioner.history if r.error]
    assert [(r.claim, r.node) for r in failed] == [("default/data-2", "n1")]
    assert any('provisioning failed for PVC "data-2"' in m for m in sim.events("FailedScheduling"))
    caps = {c.metadata.name: c.capacity for c in sim.cluster.list("CSIStorageCapacity")}
    assert caps == {"cap-n1": 2 * 2**30, "cap-n2": 2 * 2**30}
    for key in ("default/data-1", "default/data-2"):
        volume = volumes_of(sim)[_bound_to(sim, key)]
        assert volume.spec.node_affinity is not None


def test_immediate_claims_are_bound_by_the_pv_controller_first() -> None:
    """The pod is rejected until the PV controller binds its Immediate claim; the claim's
    update brings it back."""
    immediate = storage_class("std", mode="Immediate", provisioner="kubernetes.io/no-provisioner")
    objects: list[K8sModel] = [
        node("n1"),
        node("n2"),
        immediate,
        local_pv("pv-1", "n2", cls="std"),
        claim("data", cls="std"),
        pod("app", "data"),
    ]
    sim = VolumeSim(objects)
    result = sim.run()
    assert result.pod("app").node == "n2"
    assert _bound_to(sim, "default/data") == "pv-1"


def test_default_storage_class_is_given_to_claims_without_one() -> None:
    default = storage_class(
        "standard",
        provisioner="csi.example.com",
        annotations={"storageclass.kubernetes.io/is-default-class": "true"},
    )
    objects: list[K8sModel] = [node("n1"), default, claim("data", cls=None), pod("app", "data")]
    sim = VolumeSim(objects)
    result = sim.run()
    assert result.pod("app").node == "n1"
    assert claims_of(sim)["default/data"].spec.storage_class_name == "standard"


def _stress_objects(nodes: int, pvs_per_node: int) -> list[K8sModel]:
    objects: list[K8sModel] = [node(f"n{i}") for i in range(nodes)]
    objects.append(LOCAL)
    for i in range(nodes):
        for j in range(pvs_per_node):
            objects.append(local_pv(f"pv-{i}-{j:02d}", f"n{i}", size="1Gi"))
    return objects


def _assert_every_claim_on_a_distinct_pv(sim: VolumeSim, pods: int) -> None:
    claims = claims_of(sim)
    volumes = volumes_of(sim)
    used: list[str] = []
    for p in range(pods):
        for c in range(3):
            used.append(_bound_to(sim, f"default/p{p}-c{c}"))
    assert len(set(used)) == len(used) == pods * 3
    for name in used:
        ref = volumes[name].spec.claim_ref
        assert ref is not None and f"{ref.namespace}/{ref.name}" in claims


def test_stress_50_pods_3_claims_static() -> None:
    objects = _stress_objects(nodes=5, pvs_per_node=32)
    for p in range(50):
        names = [f"p{p}-c{c}" for c in range(3)]
        objects += [claim(n, size="1Gi") for n in names]
        objects.append(pod(f"p{p}", *names))
    sim = VolumeSim(objects)
    result = sim.run()
    assert result.count("Bound") == 50
    _assert_every_claim_on_a_distinct_pv(sim, 50)
    volumes = volumes_of(sim)
    for p in range(50):
        placed = result.pod(f"p{p}").node
        for c in range(3):
            affinity = volumes[_bound_to(sim, f"default/p{p}-c{c}")].spec.node_affinity
            assert affinity is not None and affinity.required is not None
            assert affinity.required.node_selector_terms[0].match_expressions[0].values == [placed]
    assert sim.plugin().pv_cache.assumed_keys() == []
    assert sim.plugin().pvc_cache.assumed_keys() == []


def test_stress_50_pods_3_claims_dynamic() -> None:
    objects: list[K8sModel] = [node(f"n{i}") for i in range(5)]
    objects.append(storage_class("dyn", provisioner="csi.example.com"))
    for p in range(50):
        names = [f"p{p}-c{c}" for c in range(3)]
        objects += [claim(n, size="1Gi", cls="dyn") for n in names]
        objects.append(pod(f"p{p}", *names))
    sim = VolumeSim(objects, provisioner=Provisioner(delay=1, default_topology_keys=(HOST,)))
    result = sim.run()
    assert result.count("Bound") == 50
    _assert_every_claim_on_a_distinct_pv(sim, 50)
