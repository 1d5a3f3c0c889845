"""VolumeBinding's explanations (FilterExplainer): one line per claim that keeps the pod off
a node, naming the claim and the cause, while Filter's Status keeps upstream's reasons
byte for byte (the cases of volume_binding_test.go and binder_test.go that each cause
comes from: bound PV affinity, no matching PV, no provisioner, allowedTopologies,
CSIStorageCapacity, selected-node elsewhere, unbound immediate claims)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from volumebinding_helpers import (
    VolumeEnv,
    capacity,
    csi_driver,
    make_pv,
    make_pvc,
    node,
    pod_with_claims,
    storage_class,
)

from kubesched.api import K8sModel, Node, Pod
from kubesched.framework import CycleState, FilterExplainer, Status
from kubesched_volumebinding.storage import NOT_SUPPORTED_PROVISIONER
from kubesched_volumebinding.volumebinding import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
    STATE_KEY,
    UNBOUND_IMMEDIATE,
    VolumeBinding,
    VolumeBindingState,
)
from kubesched_volumebinding.volumebinding.explain import format_size

HOST, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"
LOCAL = storage_class("local", provisioner=NOT_SUPPORTED_PROVISIONER)
TOPO = storage_class("topo", provisioner="p.csi", allowed={ZONE: ["z1"]})
CAP = storage_class("cap", provisioner="p.csi")
CAP_DRIVER = csi_driver("p.csi", True)


def _nodes() -> list[Node]:
    return [node("node-a", **{ZONE: "z1"}), node("node-b", **{ZONE: "z2"})]


@dataclass
class Case:
    pod: Pod
    objects: list[K8sModel]
    node: str
    status: Status | None
    lines: list[str] = field(default_factory=list)


def _two_term_pv() -> Any:
    terms = [
        {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["z1"]}]},
        {"matchExpressions": [{"key": HOST, "operator": "In", "values": ["node-x"]}]},
    ]
    return make_pv("pv-a").cls("local").capacity("1Gi").node_affinity({"nodeSelectorTerms": terms})


_CLAIM_5G_RWX = make_pvc("pvc-a").cls("local").request("5Gi").modes("ReadWriteMany")
_CANDIDATES = [
    make_pv("far").cls("local").capacity("10Gi").modes("ReadWriteMany").affinity({HOST: ["x"]}),
    make_pv("pending").cls("local").capacity("10Gi").modes("ReadWriteMany").phase("Pending"),
    make_pv("rwo").cls("local").capacity("10Gi").modes("ReadWriteOnce"),
    make_pv("small").cls("local").capacity("1Gi").modes("ReadWriteMany"),
    make_pv("taken").cls("local").capacity("10Gi").claim(name="other", uid="u"),
]

CASES: dict[str, Case] = {
    "bound PV's node affinity excludes the node, term by term": Case(
        pod_with_claims("p", "pvc-a"),
        [LOCAL, make_pvc("pvc-a").cls("local").bound("pv-a").obj(), _two_term_pv().obj()],
        "node-b",
        Status.unresolvable(ERR_REASON_NODE_CONFLICT),
        [
            'claim default/pvc-a: bound PV "pv-a" has node affinity that excludes node node-b: '
            f"term 1: {ZONE} In [z1] (node has {ZONE}=z2); "
            f"term 2: {HOST} In [node-x] (node has {HOST}=node-b)"
        ],
    ),
    "bound to a PV that does not exist": Case(
        pod_with_claims("p", "pvc-a"),
        [LOCAL, make_pvc("pvc-a").cls("local").bound("pv-gone").obj()],
        "node-a",
        Status.unresolvable(ERR_REASON_PV_NOT_EXIST),
        ['claim default/pvc-a: bound to PV "pv-gone", which does not exist'],
    ),
    "no PV fits, each PV's reason, and the class cannot provision": Case(
        pod_with_claims("p", "pvc-a"),
        [LOCAL, _CLAIM_5G_RWX.obj(), *(b.obj() for b in _CANDIDATES)],
        "node-a",
        Status.unresolvable(ERR_REASON_BIND_CONFLICT),
        [
            'claim default/pvc-a: no PV of class "local" with 5Gi or more, ReadWriteMany, '
            "reachable from the node (far node affinity excludes the node: term 1: "
            f"{HOST} In [x] (node has {HOST}=node-a); pending phase Pending; rwo access modes "
            "lack ReadWriteMany; small too small (1Gi < 5Gi); and 1 more); "
            f'class "local" cannot provision (provisioner "{NOT_SUPPORTED_PROVISIONER}")'
        ],
    ),
    "no PV of the class at all, and no provisioner": Case(
        pod_with_claims("p", "pvc-a"),
        [storage_class("wait"), make_pvc("pvc-a").cls("wait").request("1Gi").obj()],
        "node-a",
        Status.unresolvable(ERR_REASON_BIND_CONFLICT),
        [
            'claim default/pvc-a: no PV of class "wait"; class "wait" cannot provision '
            "(no provisioner)"
        ],
    ),
    "allowedTopologies exclude the node": Case(
        pod_with_claims("p", "pvc-a"),
        [TOPO, make_pvc("pvc-a").cls("topo").request("1Gi").obj()],
        "node-b",
        Status.unresolvable(ERR_REASON_BIND_CONFLICT),
        [
            'claim default/pvc-a: no PV of class "topo"; class "topo" allowedTopologies '
            f"exclude node node-b ({ZONE} in [z1])"
        ],
    ),
    "CSIStorageCapacity too small on the node": Case(
        pod_with_claims("p", "pvc-a"),
        [
            CAP,
            CAP_DRIVER,
            capacity("small", "cap", {ZONE: "z1"}, "1Gi"),
            capacity("big", "cap", {ZONE: "z2"}, "100Gi"),
            make_pvc("pvc-a").cls("cap").request("10Gi").obj(),
        ],
        "node-a",
        Status.unresolvable(ERR_REASON_NOT_ENOUGH_SPACE),
        [
            'claim default/pvc-a: no PV of class "cap"; CSIStorageCapacity too small: claim '
            'requests 10Gi, the largest for class "cap" on node node-a is 1Gi (kube-system/small)'
        ],
    ),
    "maximumVolumeSize is the limit": Case(
        pod_with_claims("p", "pvc-a"),
        [
            CAP,
            CAP_DRIVER,
            capacity("max", "cap", {ZONE: "z1"}, "100Gi", "1Mi"),
            make_pvc("pvc-a").cls("cap").request("10Gi").obj(),
        ],
        "node-a",
        Status.unresolvable(ERR_REASON_NOT_ENOUGH_SPACE),
        [
            'claim default/pvc-a: no PV of class "cap"; CSIStorageCapacity too small: claim '
            'requests 10Gi, the largest for class "cap" on node node-a is 1Mi (kube-system/max)'
        ],
    ),
    "CSIStorageCapacity only for another topology": Case(
        pod_with_claims("p", "pvc-a"),
        [
            CAP,
            CAP_DRIVER,
            capacity("big", "cap", {ZONE: "z2"}, "100Gi"),
            make_pvc("pvc-a").cls("cap").request("10Gi").obj(),
        ],
        "node-a",
        Status.unresolvable(ERR_REASON_NOT_ENOUGH_SPACE),
        [
            'claim default/pvc-a: no PV of class "cap"; no CSIStorageCapacity of class "cap" '
            "covers node node-a (1 for other topologies)"
        ],
    ),
    "no CSIStorageCapacity for the class": Case(
        pod_with_claims("p", "pvc-a"),
        [CAP, CAP_DRIVER, make_pvc("pvc-a").cls("cap").request("10Gi").obj()],
        "node-a",
        Status.unresolvable(ERR_REASON_NOT_ENOUGH_SPACE),
        [
            'claim default/pvc-a: no PV of class "cap"; no CSIStorageCapacity for class "cap" '
            "(driver p.csi tracks capacity)"
        ],
    ),
    "claim being provisioned for another node": Case(
        pod_with_claims("p", "pvc-a"),
        [CAP, make_pvc("pvc-a").cls("cap").request("1Gi").selected_node("node-b").obj()],
        "node-a",
        Status.unresolvable(ERR_REASON_BIND_CONFLICT),
        [
            "claim default/pvc-a: being provisioned for node node-b "
            "(volume.kubernetes.io/selected-node), not this node"
        ],
    ),
    "two claims, one PV: the smaller claim takes it": Case(
        pod_with_claims("p", "big", "small"),
        [
            LOCAL,
            make_pvc("big").cls("local").request("2Gi").obj(),
            make_pvc("small").cls("local").request("1Gi").obj(),
            make_pv("pv-5").cls("local").capacity("5Gi").obj(),
        ],
        "node-a",
        Status.unresolvable(ERR_REASON_BIND_CONFLICT),
        [
            'claim default/small: would bind to PV "pv-5"',
            'claim default/big: no PV of class "local" with 2Gi or more, any access mode, '
            "reachable from the node (pv-5 given to claim default/small of this pod); "
            f'class "local" cannot provision (provisioner "{NOT_SUPPORTED_PROVISIONER}")',
        ],
    ),
    "PV pre-bound to the claim elsewhere": Case(
        pod_with_claims("p", "pvc-a"),
        [
            LOCAL,
            pvc := make_pvc("pvc-a").cls("local").request("1Gi").obj(),
            make_pv("mine")
            .cls("local")
            .capacity("1Gi")
            .claim(pvc)
            .affinity({HOST: ["node-b"]})
            .obj(),
        ],
        "node-a",
        Status.unresolvable(ERR_REASON_BIND_CONFLICT),
        [
            'claim default/pvc-a: no PV of class "local" with 1Gi or more, any access mode, '
            "reachable from the node (mine pre-bound to this claim, but node affinity excludes "
            f"the node: term 1: {HOST} In [node-b] (node has {HOST}=node-a)); "
            f'class "local" cannot provision (provisioner "{NOT_SUPPORTED_PROVISIONER}")'
        ],
    ),
    "unbound immediate claim (PreFilter)": Case(
        pod_with_claims("p", "pvc-a"),
        [storage_class("imm", mode="Immediate"), make_pvc("pvc-a").cls("imm").obj()],
        "node-a",
        Status.unresolvable(UNBOUND_IMMEDIATE),
        [
            'claim default/pvc-a: class "imm" binds Immediately: waiting for the PV '
            "controller to bind it"
        ],
    ),
    "a claim being bound reads as immediate (upstream #79888)": Case(
        pod_with_claims("p", "pvc-a"),
        [storage_class("wait"), make_pvc("pvc-a").cls("wait").prebound("pv-a").obj()],
        "node-a",
        Status.unresolvable(UNBOUND_IMMEDIATE),
        [
            'claim default/pvc-a: names PV "pv-a" but is not bound yet '
            "(no pv.kubernetes.io/bind-completed): waiting for the PV controller"
        ],
    ),
    "missing claim (PreFilter)": Case(
        pod_with_claims("p", "pvc-a"),
        [],
        "node-a",
        Status.unresolvable('persistentvolumeclaim "pvc-a" not found'),
        ['persistentvolumeclaim "pvc-a" not found'],
    ),
}


def _run(case: Case) -> tuple[Status | None, list[str], CycleState]:
    env = VolumeEnv(case.objects, _nodes())
    plugin = env.plugin(VolumeBinding)
    state = CycleState()
    _, status = plugin.pre_filter(state, case.pod, [])
    info = env.node_info(case.node)
    if status is None:
        status = plugin.filter(state, case.pod, info)
    return status, plugin.explain_filter(state, case.pod, info), state


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_explanations_name_the_claim_and_the_cause(case: Case) -> None:
    status, lines, _ = _run(case)
    assert status == case.status  # upstream's reasons, unchanged
    assert lines == case.lines


def test_explaining_changes_no_state() -> None:
    case = CASES["two claims, one PV: the smaller claim takes it"]
    env = VolumeEnv(case.objects, _nodes())
    plugin = env.plugin(VolumeBinding)
    state = CycleState()
    plugin.pre_filter(state, case.pod, [])
    plugin.filter(state, case.pod, env.node_info("node-a"))
    data = state.get(STATE_KEY)
    assert isinstance(data, VolumeBindingState)
    before = (dict(data.pod_volumes_by_node), data.has_static_bindings)
    plugin.explain_filter(state, case.pod, env.node_info("node-b"))
    assert (dict(data.pod_volumes_by_node), data.has_static_bindings) == before
    assert not plugin.pv_cache.assumed_keys() and not plugin.pvc_cache.assumed_keys()


def test_volume_plugins_are_filter_explainers() -> None:
    from kubesched_volumebinding import NodeVolumeLimits, VolumeRestrictions, VolumeZone

    env = VolumeEnv()
    for cls in (VolumeBinding, VolumeZone, VolumeRestrictions, NodeVolumeLimits):
        assert isinstance(env.plugin(cls), FilterExplainer), cls.name


@pytest.mark.parametrize(
    ("size", "text"),
    [(5 * 2**30, "5Gi"), (500 * 2**20, "500Mi"), (2 * 10**9, "2G"), (1000, "1000"), (0, "0")],
)
def test_sizes_read_as_written(size: int, text: str) -> None:
    assert format_size(size) == text
