"""A bound in-tree PV is checked in its CSI form where its plugin migrated, after upstream's
binder_test.go (TestFindPodVolumesWithCSIMigration for Filter, TestCheckBindingsWith
CSIMigration for PreBind's checkBindings), with the same objects: a GCE PD PV with no node
affinity and beta zone labels (zone `us-east-1`), nodes labelled with the GCE PD driver's
`topology.gke.io/zone`, and CSINodes listing `kubernetes.io/gce-pd` as migrated or not.
Then the plugin's view: Filter's status and the explanation of a translated affinity."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from binder_fixtures import NS, UNBOUND, WAIT, WAIT_PROV, BinderEnv, make_test_pod, pvc
from volumebinding_helpers import VolumeEnv, csi_node, make_pv, make_pvc, node, pod_with_claims

from kubesched.api import K8sModel, Node
from kubesched.framework import CycleState, Status
from kubesched.testing import make_node
from kubesched_volumebinding.storage import (
    CSINode,
    PersistentVolume,
    PersistentVolumeClaim,
)
from kubesched_volumebinding.volumebinding import (
    ERR_REASON_NODE_CONFLICT,
    BindingInfo,
    DynamicProvision,
    VolumeBinding,
    VolumeBindingError,
    VolumeBindingWaiter,
)

GKE_ZONE = "topology.gke.io/zone"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
GCE_PD = "kubernetes.io/gce-pd"
ZONE1_LABELS = {BETA_ZONE: "us-east-1", BETA_REGION: "us-east-1a"}  # as upstream has them


def migration_pv(claim: PersistentVolumeClaim, *, migrated_plugin: bool = True) -> PersistentVolume:
    """upstream makeTestPVForCSIMigration: GCE PD (a migrated plugin) or RBD (never
    translated by the binder), no node affinity, zone labels only."""
    source: dict[str, Any] = (
        {"gcePersistentDisk": {"pdName": "test-disk", "fsType": "ext4", "partition": 0}}
        if migrated_plugin
        else {"rbd": {"monitors": ["m"], "image": "i"}}
    )
    b = make_pv("pv-migration-bound").capacity("1G").cls(WAIT).labels(ZONE1_LABELS)
    return b.spec(**source).claim(claim).phase("Bound").obj()


BOUND_MIGRATION_PVC = pvc("pvc-migration-bound", "1G", WAIT, bound="pv-migration-bound")
PROV_MIGRATION_PVC_BOUND = (
    make_pvc("pvc-migration-provisioned", NS)
    .request("1Gi")
    .cls(WAIT_PROV)
    .bound("pv-migration-bound")
    .selected_node("node1")
    .obj()
)
MIGRATION_PV_BOUND = migration_pv(BOUND_MIGRATION_PVC)
MIGRATION_PV_BOUND_TO_UNBOUND = migration_pv(UNBOUND)
NONMIGRATION_PV_BOUND_TO_UNBOUND = migration_pv(UNBOUND, migrated_plugin=False)

NODE1_ZONE1 = make_node("node1").label(**{GKE_ZONE: "us-east-1"}).obj()
NODE1_ZONE2 = make_node("node1").label(**{GKE_ZONE: "us-east-2"}).obj()
CSI_NODE1_MIGRATED = csi_node("node1", migrated=GCE_PD)
CSI_NODE1_NOT_MIGRATED = csi_node("node1", migrated="")


# -- Filter: TestFindPodVolumesWithCSIMigration ---------------------------------------------


@dataclass
class FindCase:
    node: Node
    csi_nodes: list[CSINode]
    pvs: list[PersistentVolume] = field(default_factory=lambda: [MIGRATION_PV_BOUND])
    reasons: list[str] = field(default_factory=list)


FIND: dict[str, FindCase] = {
    "pvc-bound": FindCase(NODE1_ZONE1, [CSI_NODE1_MIGRATED]),
    "pvc-bound,csinode-not-migrated": FindCase(NODE1_ZONE1, [CSI_NODE1_NOT_MIGRATED]),
    "pvc-bound,missing-csinode": FindCase(NODE1_ZONE1, []),
    "pvc-bound,node-different-zone": FindCase(
        NODE1_ZONE2, [CSI_NODE1_MIGRATED], reasons=[ERR_REASON_NODE_CONFLICT]
    ),
    # not upstream's: the in-tree PV itself has no affinity, so only its CSI form can fail
    "pvc-bound,node-different-zone,csinode-not-migrated": FindCase(
        NODE1_ZONE2, [CSI_NODE1_NOT_MIGRATED]
    ),
    "pvc-bound,node-different-zone,rbd-never-translated": FindCase(
        NODE1_ZONE2,
        [csi_node("node1", migrated="kubernetes.io/rbd")],
        pvs=[migration_pv(BOUND_MIGRATION_PVC, migrated_plugin=False)],
    ),
}


@pytest.mark.parametrize("case", FIND.values(), ids=FIND.keys())
def test_find_pod_volumes_with_csi_migration(case: FindCase) -> None:
    env = BinderEnv(case.csi_nodes, nodes=[case.node])
    env.add(case.pvs, [BOUND_MIGRATION_PVC])
    pod = make_test_pod(BOUND_MIGRATION_PVC)
    claims = env.binder.get_pod_volume_claims(pod)
    assert claims.bound == [BOUND_MIGRATION_PVC]
    _, reasons = env.binder.find_pod_volumes(pod, claims, case.node)
    assert reasons == case.reasons


def test_in_tree_affinity_is_not_checked_where_migrated() -> None:
    """An in-tree zone requirement is checked on the driver's key where the plugin
    migrated: a node labelled only by the driver passes there, fails elsewhere."""
    pv = make_pv("pv-migration-bound").capacity("1G").cls(WAIT).claim(BOUND_MIGRATION_PVC)
    pv.spec(gcePersistentDisk={"pdName": "d"}).affinity(
        {"topology.kubernetes.io/zone": ["us-east-1"]}
    )
    for csi, want in (
        (CSI_NODE1_MIGRATED, []),
        (CSI_NODE1_NOT_MIGRATED, [ERR_REASON_NODE_CONFLICT]),
    ):
        env = BinderEnv([csi], nodes=[NODE1_ZONE1]).add([pv.obj()], [BOUND_MIGRATION_PVC])
        pod = make_test_pod(BOUND_MIGRATION_PVC)
        claims = env.binder.get_pod_volume_claims(pod)
        assert env.binder.find_pod_volumes(pod, claims, NODE1_ZONE1)[1] == want


def test_untranslatable_migrated_pv_is_an_error() -> None:
    bad = migration_pv(BOUND_MIGRATION_PVC).model_copy(deep=True)
    bad.metadata.labels = {BETA_ZONE: "us-east-1__europe-west1-b"}  # two regions
    env = BinderEnv([CSI_NODE1_MIGRATED], nodes=[NODE1_ZONE1]).add([bad], [BOUND_MIGRATION_PVC])
    pod = make_test_pod(BOUND_MIGRATION_PVC)
    claims = env.binder.get_pod_volume_claims(pod)
    with pytest.raises(VolumeBindingError) as info:
        env.binder.find_pod_volumes(pod, claims, NODE1_ZONE1)
    assert str(info.value).startswith("could not translate pv: failed to get region from zones")


# -- PreBind: TestCheckBindingsWithCSIMigration ---------------------------------------------


@dataclass
class CheckCase:
    pvs: list[PersistentVolume]
    pvcs: list[PersistentVolumeClaim]
    node: Node
    csi_nodes: list[CSINode]
    bindings: list[BindingInfo] = field(default_factory=list)
    provisions: list[DynamicProvision] = field(default_factory=list)
    want: bool | str = False
    """True/False: bound or still waiting; a string: the error."""


def _static(pv: PersistentVolume) -> list[BindingInfo]:
    return [BindingInfo(UNBOUND, pv)]


CHECKS: dict[str, CheckCase] = {
    "provisioning-pvc-bound": CheckCase(
        [MIGRATION_PV_BOUND],
        [PROV_MIGRATION_PVC_BOUND],
        NODE1_ZONE1,
        [CSI_NODE1_MIGRATED],
        provisions=[DynamicProvision(PROV_MIGRATION_PVC_BOUND)],
        want=True,
    ),
    "binding-node-pv-same-zone": CheckCase(
        [MIGRATION_PV_BOUND_TO_UNBOUND],
        [UNBOUND],
        NODE1_ZONE1,
        [CSI_NODE1_MIGRATED],
        _static(MIGRATION_PV_BOUND_TO_UNBOUND),
    ),
    "binding-without-csinode": CheckCase(
        [MIGRATION_PV_BOUND_TO_UNBOUND],
        [UNBOUND],
        NODE1_ZONE1,
        [],
        _static(MIGRATION_PV_BOUND_TO_UNBOUND),
    ),
    "binding-non-migrated-plugin": CheckCase(
        [MIGRATION_PV_BOUND_TO_UNBOUND],
        [UNBOUND],
        NODE1_ZONE1,
        [CSI_NODE1_NOT_MIGRATED],
        _static(MIGRATION_PV_BOUND_TO_UNBOUND),
    ),
    "binding-node-pv-in-different-zones": CheckCase(
        [MIGRATION_PV_BOUND_TO_UNBOUND],
        [UNBOUND],
        NODE1_ZONE2,
        [CSI_NODE1_MIGRATED],
        _static(MIGRATION_PV_BOUND_TO_UNBOUND),
        want='pv "pv-migration-bound" node affinity doesn\'t match node "node1": '
        "no matching NodeSelectorTerms",
    ),
    "binding-node-pv-different-zones-migration-off": CheckCase(
        [NONMIGRATION_PV_BOUND_TO_UNBOUND],
        [UNBOUND],
        NODE1_ZONE2,
        [CSI_NODE1_MIGRATED],
        _static(NONMIGRATION_PV_BOUND_TO_UNBOUND),
    ),
    # not upstream's: the provisioned PV's translated affinity, and translation errors
    "provisioning-pvc-bound-pv-in-different-zone": CheckCase(
        [MIGRATION_PV_BOUND],
        [PROV_MIGRATION_PVC_BOUND],
        NODE1_ZONE2,
        [CSI_NODE1_MIGRATED],
        provisions=[DynamicProvision(PROV_MIGRATION_PVC_BOUND)],
        want='pv "pv-migration-bound" node affinity doesn\'t match node "node1": '
        "no matching NodeSelectorTerms",
    ),
}


@pytest.mark.parametrize("case", CHECKS.values(), ids=CHECKS.keys())
def test_check_bindings_with_csi_migration(case: CheckCase) -> None:
    env = BinderEnv(case.csi_nodes, nodes=[case.node]).add(case.pvs, case.pvcs)
    pod = make_test_pod(*case.pvcs)
    env.cluster.create_many([pod])
    waiter = VolumeBindingWaiter(env.binder, env.cluster, bind_timeout=10)
    if isinstance(case.want, str):
        with pytest.raises(VolumeBindingError) as info:
            waiter.check_bindings(pod, "node1", case.bindings, case.provisions)
        assert str(info.value) == case.want
    else:
        assert waiter.check_bindings(pod, "node1", case.bindings, case.provisions) is case.want


def _untranslatable(pv: PersistentVolume) -> PersistentVolume:
    bad = pv.model_copy(deep=True)
    bad.spec.gce_persistent_disk = None
    bad.spec.azure_disk = {"diskURI": "/d", "kind": "Shared"}
    return bad


@pytest.mark.parametrize(
    ("static", "prefix"),
    [(True, "failed to translate pv to csi: "), (False, "")],
    ids=["binding", "provisioning"],
)
def test_check_bindings_translation_error(static: bool, prefix: str) -> None:
    """checkBindings wraps the error for a static binding, not for a provisioned PV."""
    pv = _untranslatable(MIGRATION_PV_BOUND_TO_UNBOUND if static else MIGRATION_PV_BOUND)
    claim = UNBOUND if static else PROV_MIGRATION_PVC_BOUND
    csi = csi_node("node1", migrated="kubernetes.io/azure-disk")
    env = BinderEnv([csi], nodes=[NODE1_ZONE1]).add([pv], [claim])
    pod = make_test_pod(claim)
    env.cluster.create_many([pod])
    waiter = VolumeBindingWaiter(env.binder, env.cluster, bind_timeout=10)
    bindings = [BindingInfo(UNBOUND, pv)] if static else []
    provisions = [] if static else [DynamicProvision(claim)]
    with pytest.raises(VolumeBindingError) as info:
        waiter.check_bindings(pod, "node1", bindings, provisions)
    assert str(info.value) == (
        f"{prefix}could not translate pv: kind(Shared) is not supported in csi migration"
    )


# -- The plugin: Filter's status and the explanation ------------------------------------------


def _plugin_env(pv: PersistentVolume, *csi: CSINode) -> tuple[VolumeEnv, VolumeBinding]:
    claim = make_pvc("pvc-a").cls("wait").bound("pv-a").obj()
    nodes = [node("node-a", **{GKE_ZONE: "us-east-1"}), node("node-b", **{GKE_ZONE: "us-east-2"})]
    objects: list[K8sModel] = [claim, pv, *csi]
    env = VolumeEnv(objects, nodes)
    return env, env.plugin(VolumeBinding)


def _filter(env: VolumeEnv, plugin: VolumeBinding, node_name: str) -> tuple[Any, list[str]]:
    pod = pod_with_claims("p", "pvc-a")
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, [])
    assert status is None
    info = env.node_info(node_name)
    return plugin.filter(state, pod, info), plugin.explain_filter(state, pod, info)


_GCE_PV = (
    make_pv("pv-a")
    .cls("wait")
    .capacity("1Gi")
    .labels(ZONE1_LABELS)
    .spec(gcePersistentDisk={"pdName": "d"})
    .claim(name="pvc-a", uid="uid-pvc-a")
    .obj()
)


def test_filter_checks_the_translated_affinity_and_says_so() -> None:
    env, plugin = _plugin_env(
        _GCE_PV, csi_node("node-a", migrated=GCE_PD), csi_node("node-b", migrated=GCE_PD)
    )
    assert _filter(env, plugin, "node-a") == (None, [])
    status, lines = _filter(env, plugin, "node-b")
    assert status == Status.unresolvable(ERR_REASON_NODE_CONFLICT)
    assert lines == [
        'claim default/pvc-a: bound PV "pv-a" (gcePersistentDisk, migrated to CSI driver '
        "pd.csi.storage.gke.io on this node) has node affinity, as translated for the driver, "
        f"that excludes node node-b: term 1: {GKE_ZONE} In [us-east-1] "
        f"(node has {GKE_ZONE}=us-east-2)"
    ]


def test_filter_without_migration_checks_the_in_tree_pv() -> None:
    env, plugin = _plugin_env(_GCE_PV, csi_node("node-b", migrated=""))
    assert _filter(env, plugin, "node-b") == (None, [])


def test_filter_error_when_the_migrated_pv_cannot_be_translated() -> None:
    bad = _GCE_PV.model_copy(deep=True)
    bad.metadata.labels = {BETA_ZONE: "us-east-1__x"}
    env, plugin = _plugin_env(bad, csi_node("node-b", migrated=GCE_PD))
    status, lines = _filter(env, plugin, "node-b")
    error = (
        "could not translate pv: failed to get region from zones: zone in unexpected format, "
        "expected: {locale}-{region}-{zone}, got: x"
    )
    assert status == Status.as_error(error)
    assert lines == [
        f'claim default/pvc-a: bound PV "pv-a" is migrated to CSI on node node-b but cannot '
        f"be translated: {error}"
    ]
