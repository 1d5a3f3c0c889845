"""FindPodVolumes on one node, after upstream's binder_test.go
(TestFindPodVolumesWithoutProvisioning, TestFindPodVolumesWithProvisioning, TestCapacity):
which PV each claim gets, which claims are provisioned, and the reasons a node fails.

Every scenario runs without a CSIDriver and with one that does or does not track
capacity; with tracking and no CSIStorageCapacity objects, provisioning is blocked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from binder_fixtures import (
    BOUND,
    IMMEDIATE_BOUND,
    IMMEDIATE_UNBOUND,
    NO_PROVISIONER,
    NODE1,
    NODE2,
    NODE_KEY,
    PREBOUND,
    PROVISIONED,
    PROVISIONER,
    PV_BOUND,
    PV_BOUND_IMMEDIATE,
    PV_BOUND_IMMEDIATE_NODE2,
    PV_NODE1A,
    PV_NODE1A_BOUND,
    PV_NODE1B,
    PV_NODE2,
    SELECTED_NODE_PVC,
    TOPO_MISMATCH_PVC,
    UNBOUND,
    UNBOUND2,
    WAIT_PROV,
    BinderEnv,
    ephemeral_pvc,
    make_test_pod,
    pv,
)
from volumebinding_helpers import capacity, csi_driver

from kubesched.api import Pod
from kubesched_volumebinding.storage import (
    CSIDriver,
    CSIStorageCapacity,
    PersistentVolume,
    PersistentVolumeClaim,
)
from kubesched_volumebinding.volumebinding import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    PodVolumes,
    VolumeBindingError,
)

BIND, NODE, SPACE, NOPV = (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
)


@dataclass
class Scenario:
    claims: list[PersistentVolumeClaim] = field(default_factory=list)
    pvs: list[PersistentVolume] = field(default_factory=list)
    cached_claims: list[PersistentVolumeClaim] | None = None
    pod: Pod | None = None
    bindings: list[tuple[str, str]] = field(default_factory=list)
    provisions: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    fails: bool = False
    needs_capacity: bool = False


def find(env: BinderEnv, pod: Pod, node: object = NODE1) -> tuple[PodVolumes, list[str]]:
    """What the plugin does: classify, refuse unbound immediate claims, then find."""
    claims = env.binder.get_pod_volume_claims(pod)
    if claims.immediate:
        raise VolumeBindingError("pod has unbound immediate PersistentVolumeClaims")
    return env.binder.find_pod_volumes(pod, claims, node)  # type: ignore[arg-type]


def _ephemeral_pod() -> Pod:
    return make_test_pod(ephemeral=["test-volume"])


_EPH_POD = _ephemeral_pod()
_EPH_OWNED = ephemeral_pvc(_EPH_POD, "test-volume", owned=True)
_EPH_FOREIGN = ephemeral_pvc(_EPH_POD, "test-volume", owned=False)
_PV_BOUND_EPH = pv("pv-bound", "node1", "1G", "waitClass", claim=_EPH_OWNED)

WITHOUT_PROVISIONING: dict[str, Scenario] = {
    "no-volumes": Scenario(pod=make_test_pod()),
    "pvc-not-found": Scenario(claims=[BOUND], cached_claims=[], fails=True),
    "bound-pvc": Scenario(claims=[BOUND], pvs=[PV_BOUND]),
    "bound-pvc,pv-not-exists": Scenario(claims=[BOUND], reasons=[NOPV]),
    "prebound-pvc": Scenario(claims=[PREBOUND], pvs=[PV_NODE1A_BOUND], fails=True),
    "unbound-pvc,pv-same-node": Scenario(
        claims=[UNBOUND],
        pvs=[PV_NODE2, PV_NODE1A, PV_NODE1B],
        bindings=[("unbound-pvc", "pv-node1a")],
    ),
    "unbound-pvc,pv-different-node": Scenario(claims=[UNBOUND], pvs=[PV_NODE2], reasons=[BIND]),
    "two-unbound-pvcs": Scenario(
        claims=[UNBOUND, UNBOUND2],
        pvs=[PV_NODE1A, PV_NODE1B],
        bindings=[("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")],
    ),
    "two-unbound-pvcs,order-by-size": Scenario(
        claims=[UNBOUND2, UNBOUND],
        pvs=[PV_NODE1A, PV_NODE1B],
        bindings=[("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")],
    ),
    "two-unbound-pvcs,partial-match": Scenario(
        claims=[UNBOUND, UNBOUND2],
        pvs=[PV_NODE1A],
        bindings=[("unbound-pvc", "pv-node1a")],
        reasons=[BIND],
    ),
    "one-bound,one-unbound": Scenario(
        claims=[UNBOUND, BOUND],
        pvs=[PV_BOUND, PV_NODE1A],
        bindings=[("unbound-pvc", "pv-node1a")],
    ),
    "one-bound,one-unbound,no-match": Scenario(
        claims=[UNBOUND, BOUND], pvs=[PV_BOUND, PV_NODE2], reasons=[BIND]
    ),
    "one-prebound,one-unbound": Scenario(
        claims=[UNBOUND, PREBOUND], pvs=[PV_NODE1A, PV_NODE1B], fails=True
    ),
    "immediate-bound-pvc": Scenario(claims=[IMMEDIATE_BOUND], pvs=[PV_BOUND_IMMEDIATE]),
    "immediate-bound-pvc-wrong-node": Scenario(
        claims=[IMMEDIATE_BOUND], pvs=[PV_BOUND_IMMEDIATE_NODE2], reasons=[NODE]
    ),
    "immediate-unbound-pvc": Scenario(claims=[IMMEDIATE_UNBOUND], fails=True),
    "immediate-unbound-pvc,delayed-mode-bound": Scenario(
        claims=[IMMEDIATE_UNBOUND, BOUND], pvs=[PV_BOUND], fails=True
    ),
    "immediate-unbound-pvc,delayed-mode-unbound": Scenario(
        claims=[IMMEDIATE_UNBOUND, UNBOUND], fails=True
    ),
    "generic-ephemeral,no-pvc": Scenario(pod=_EPH_POD, cached_claims=[], fails=True),
    "generic-ephemeral,with-pvc": Scenario(
        pod=_EPH_POD, cached_claims=[_EPH_OWNED], pvs=[_PV_BOUND_EPH]
    ),
    "generic-ephemeral,wrong-pvc": Scenario(
        pod=_EPH_POD, cached_claims=[_EPH_FOREIGN], pvs=[_PV_BOUND_EPH], fails=True
    ),
}

WITH_PROVISIONING: dict[str, Scenario] = {
    "one-provisioned": Scenario(
        claims=[PROVISIONED], provisions=["provisioned-pvc"], needs_capacity=True
    ),
    "two-unbound-pvcs,one-matched,one-provisioned": Scenario(
        claims=[UNBOUND, PROVISIONED],
        pvs=[PV_NODE1A],
        bindings=[("unbound-pvc", "pv-node1a")],
        provisions=["provisioned-pvc"],
        needs_capacity=True,
    ),
    "one-bound,one-provisioned": Scenario(
        claims=[BOUND, PROVISIONED],
        pvs=[PV_BOUND],
        provisions=["provisioned-pvc"],
        needs_capacity=True,
    ),
    "one-binding,one-selected-node": Scenario(
        claims=[BOUND, SELECTED_NODE_PVC],
        pvs=[PV_BOUND],
        provisions=["provisioned-pvc"],
        needs_capacity=True,
    ),
    "immediate-unbound-pvc": Scenario(claims=[IMMEDIATE_UNBOUND], fails=True),
    "one-immediate-bound,one-provisioned": Scenario(
        claims=[IMMEDIATE_BOUND, PROVISIONED],
        pvs=[PV_BOUND_IMMEDIATE],
        provisions=["provisioned-pvc"],
        needs_capacity=True,
    ),
    "invalid-provisioner": Scenario(claims=[NO_PROVISIONER], reasons=[BIND]),
    "volume-topology-unsatisfied": Scenario(claims=[TOPO_MISMATCH_PVC], reasons=[BIND]),
}

DRIVERS: dict[str, CSIDriver | None] = {
    "no CSIDriver": None,
    "CSIDriver with capacity tracking": csi_driver(PROVISIONER, True),
    "CSIDriver without capacity tracking": csi_driver(PROVISIONER, False),
}


def _run(scenario: Scenario, driver: CSIDriver | None) -> None:
    env = BinderEnv([driver] if driver is not None else [])
    cached = scenario.claims if scenario.cached_claims is None else scenario.cached_claims
    env.add(scenario.pvs, cached)
    pod = scenario.pod or make_test_pod(*scenario.claims)
    try:
        volumes, reasons = find(env, pod)
    except VolumeBindingError:
        assert scenario.fails, "unexpected error"
        return
    assert not scenario.fails, "expected an error"
    want_reasons, want_provisions = list(scenario.reasons), list(scenario.provisions)
    if scenario.needs_capacity and driver is not None and driver.spec.storage_capacity:
        want_reasons.append(SPACE)  # no CSIStorageCapacity objects: nowhere to provision
        want_provisions = []
    assert reasons == want_reasons
    bindings = [(b.pvc.metadata.name, b.pv.metadata.name) for b in volumes.static_bindings or []]
    assert bindings == scenario.bindings
    provisions = [p.pvc.metadata.name for p in volumes.dynamic_provisions or []]
    assert provisions == want_provisions


@pytest.mark.parametrize("driver", DRIVERS.values(), ids=DRIVERS.keys())
@pytest.mark.parametrize("scenario", WITHOUT_PROVISIONING.values(), ids=WITHOUT_PROVISIONING)
def test_find_pod_volumes_without_provisioning(
    scenario: Scenario, driver: CSIDriver | None
) -> None:
    _run(scenario, driver)


@pytest.mark.parametrize("driver", DRIVERS.values(), ids=DRIVERS.keys())
@pytest.mark.parametrize("scenario", WITH_PROVISIONING.values(), ids=WITH_PROVISIONING)
def test_find_pod_volumes_with_provisioning(scenario: Scenario, driver: CSIDriver | None) -> None:
    _run(scenario, driver)


def test_bound_and_unbound_unsatisfied_reports_both_reasons_in_order() -> None:
    env = BinderEnv().add([pv("pv-bound", "node2", "1G", "waitClass", claim=BOUND)])
    env.add(pvcs=[BOUND, UNBOUND])
    _, reasons = find(env, make_test_pod(BOUND, UNBOUND))
    assert reasons == [NODE, BIND]


def test_selected_node_fast_path_rejects_other_nodes_without_matching() -> None:
    env = BinderEnv().add([PV_NODE1A], [SELECTED_NODE_PVC, UNBOUND])
    volumes, reasons = find(env, make_test_pod(SELECTED_NODE_PVC, UNBOUND), NODE2)
    assert reasons == [BIND]
    assert volumes.static_bindings is None and volumes.dynamic_provisions is None


def test_selected_node_naming_a_missing_node_does_not_pin_the_pod() -> None:
    claim = PROVISIONED.model_copy(deep=True)
    claim.metadata.annotations["volume.kubernetes.io/selected-node"] = "gone"
    env = BinderEnv().add(pvcs=[claim])
    volumes, reasons = find(env, make_test_pod(claim))
    assert reasons == []
    assert [p.pvc.metadata.name for p in volumes.dynamic_provisions or []] == ["provisioned-pvc"]


def test_selected_node_naming_a_missing_node_pins_with_the_upstream_option() -> None:
    from kubesched_volumebinding.volumebinding import BinderOptions

    claim = PROVISIONED.model_copy(deep=True)
    claim.metadata.annotations["volume.kubernetes.io/selected-node"] = "gone"
    env = BinderEnv().add(pvcs=[claim])
    env.binder.options = BinderOptions(ignore_missing_selected_node=False)
    _, reasons = find(env, make_test_pod(claim))
    assert reasons == [BIND]


def test_duplicate_claim_references_bind_once() -> None:
    env = BinderEnv().add([PV_NODE1A, PV_NODE1B], [UNBOUND])
    volumes, reasons = find(env, make_test_pod(UNBOUND, UNBOUND))
    assert reasons == []
    assert [b.pv.metadata.name for b in volumes.static_bindings or []] == ["pv-node1a"]


def test_prebound_pv_wins_over_a_smaller_one() -> None:
    small = pv("pv-small", "node1", "1G", "waitClass")
    env = BinderEnv().add([small, PV_NODE1A_BOUND], [UNBOUND])
    volumes, _ = find(env, make_test_pod(UNBOUND))
    assert [b.pv.metadata.name for b in volumes.static_bindings or []] == ["pv-node1a"]


def test_prebound_pv_on_another_node_matches_nothing() -> None:
    elsewhere = pv("pv-node2a", "node2", "5G", "waitClass", claim=UNBOUND)
    env = BinderEnv().add([elsewhere, PV_NODE1A], [UNBOUND])
    volumes, reasons = find(env, make_test_pod(UNBOUND))
    assert reasons == [BIND]  # no fall-through to pv-node1a
    assert volumes.static_bindings is None


def test_greedy_smallest_first_is_upstream_behaviour() -> None:
    """§3.5: C1 (1Gi, RWO) takes P1 (5Gi, RWO+RWX); C2 (2Gi, RWX) then finds nothing,
    although C1→P2, C2→P1 would work. Upstream accepts this."""
    from volumebinding_helpers import make_pv, make_pvc

    p1 = make_pv("p1").capacity("5Gi").cls("waitClass").modes("ReadWriteOnce", "ReadWriteMany")
    p2 = make_pv("p2").capacity("6Gi").cls("waitClass").modes("ReadWriteOnce")
    c1 = make_pvc("c1", "testns").request("1Gi").cls("waitClass").modes("ReadWriteOnce").obj()
    c2 = make_pvc("c2", "testns").request("2Gi").cls("waitClass").modes("ReadWriteMany").obj()
    env = BinderEnv().add([p1.obj(), p2.obj()], [c1, c2])
    volumes, reasons = find(env, make_test_pod(c1, c2))
    assert reasons == [BIND]
    assert [(b.pvc.metadata.name, b.pv.metadata.name) for b in volumes.static_bindings or []] == [
        ("c1", "p1")
    ]


# -- capacity (upstream TestCapacity) ---------------------------------------------------

_NODE1_TOPO = {NODE_KEY: "node1"}
_NODE2_TOPO = {NODE_KEY: "node2"}

CAPACITIES: dict[str, tuple[list[CSIStorageCapacity], bool]] = {
    "network-attached": ([capacity("net", WAIT_PROV, None, "1Gi")], True),
    "local-storage": ([capacity("net", WAIT_PROV, _NODE1_TOPO, "1Gi")], True),
    "multiple": (
        [
            capacity("net", WAIT_PROV, None, "1Gi"),
            capacity("net", WAIT_PROV, _NODE2_TOPO, "1Gi"),
            capacity("net", WAIT_PROV, _NODE1_TOPO, "1Gi"),
        ],
        True,
    ),
    "no-storage": ([], False),
    "wrong-node": ([capacity("net", WAIT_PROV, _NODE2_TOPO, "1Gi")], False),
    "wrong-storage-class": ([capacity("net", "other", _NODE1_TOPO, "1Gi")], False),
    "insufficient-storage": ([capacity("net", WAIT_PROV, _NODE1_TOPO, "1Mi")], False),
    "insufficient-volume-size": (
        [capacity("net", WAIT_PROV, _NODE1_TOPO, "1Gi", "1Mi")],
        False,
    ),
    "zero-storage": ([capacity("net", WAIT_PROV, _NODE1_TOPO, "0Mi")], False),
    "zero-volume-size": ([capacity("net", WAIT_PROV, _NODE1_TOPO, "1Gi", "0Mi")], False),
    "nil-storage": ([capacity("net", WAIT_PROV, _NODE1_TOPO)], False),
    "no-topology": ([capacity("net", WAIT_PROV, None, "1Gi", no_topology=True)], False),
}


@pytest.mark.parametrize("tracking", [True, False], ids=["tracking", "not-tracking"])
@pytest.mark.parametrize(("capacities", "enough"), CAPACITIES.values(), ids=CAPACITIES.keys())
def test_capacity(capacities: list[CSIStorageCapacity], enough: bool, tracking: bool) -> None:
    named = []
    for i, cap in enumerate(capacities):
        cap = cap.model_copy(deep=True)
        cap.metadata.name = f"cap-{i}"
        named.append(cap)
    env = BinderEnv([csi_driver(PROVISIONER, tracking), *named]).add(pvcs=[PROVISIONED])
    volumes, reasons = find(env, make_test_pod(PROVISIONED))
    if enough or not tracking:
        assert reasons == []
        (provision,) = volumes.dynamic_provisions or []
        if tracking:
            assert provision.node_capacity is not None
            assert provision.node_capacity.metadata.name == "cap-0"
        else:
            assert provision.node_capacity is None
    else:
        assert reasons == [SPACE]
        assert volumes.dynamic_provisions is None


def test_claim_without_class_is_immediate() -> None:
    claim = PROVISIONED.model_copy(deep=True)
    claim.metadata.annotations["volume.beta.kubernetes.io/storage-class"] = ""
    claim.spec.storage_class_name = None
    env = BinderEnv().add(pvcs=[claim])
    claims = env.binder.get_pod_volume_claims(make_test_pod(claim))
    assert claims.immediate == [claim]
