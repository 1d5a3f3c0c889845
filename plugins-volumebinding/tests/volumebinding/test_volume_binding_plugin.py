"""The VolumeBinding plugin's PreFilter, Filter and Score on a memory cluster, after
upstream's volume_binding_test.go (TestVolumeBinding) plus the PreFilter texts for
lost, deleted and foreign ephemeral claims."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
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
from kubesched.framework import Code, CycleState, Status
from kubesched.testing import array_filter_mismatch, make_pod
from kubesched_volumebinding.features import ENV_VAR
from kubesched_volumebinding.volumebinding import (
    STATE_KEY,
    UtilizationShapePoint,
    VolumeBinding,
    VolumeBindingArgs,
    VolumeBindingState,
)

IMMEDIATE_SC = storage_class("immediate-sc", mode="Immediate")
WAIT_SC = storage_class("wait-sc")
WAIT_HDD_SC = storage_class("wait-hdd-sc")
HOST = "kubernetes.io/hostname"
REGION, ZONE = "topology.kubernetes.io/region", "topology.kubernetes.io/zone"
BIND = "node(s) didn't find available persistent volumes to bind"


def _pv(name: str, cls: str, size: str = "1Gi", **affinity: list[str]) -> Any:
    return make_pv(name).cls(cls).capacity(size).affinity(affinity or None)


def _local(name: str, cls: str, size: str, host: str) -> Any:
    return make_pv(name).cls(cls).capacity(size).affinity({HOST: [host]}).obj()


def _zonal(name: str, size: str, region: str, zone: str) -> Any:
    return make_pv(name).cls("wait-sc").capacity(size).affinity({REGION: [region], ZONE: [zone]})


@dataclass
class Case:
    pod: Pod
    nodes: list[Node]
    objects: list[K8sModel] = field(default_factory=list)
    pre_filter: Status | None = None
    filters: list[Status | None] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    scoring: bool = False
    shape: list[tuple[int, int]] | None = None


def _zone_nodes() -> list[Node]:
    return [
        node(f"zone-{z}-node-{n}", **{REGION: f"region-{z}", ZONE: f"zone-{z}"})
        for z in "abc"
        for n in "ab"
    ]


_ZONAL_PVS = [
    _zonal("pv-a-0", "200Gi", "region-a", "zone-a").obj(),
    _zonal("pv-a-1", "200Gi", "region-a", "zone-a").obj(),
    _zonal("pv-b-0", "100Gi", "region-b", "zone-b").obj(),
    _zonal("pv-b-1", "100Gi", "region-b", "zone-b").obj(),
]
_UNRESOLVABLE_BIND = Status.unresolvable(BIND)

CASES: dict[str, Case] = {
    "pod has not pvcs": Case(
        make_pod("pod-a").obj(), [node("node-a")], pre_filter=Status.skip(), scores=[0]
    ),
    "all bound": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a")],
        [
            make_pvc("pvc-a").cls("wait-sc").bound("pv-a").obj(),
            make_pv("pv-a").cls("wait-sc").obj(),
        ],
        filters=[None],
        scores=[0],
    ),
    "PVC does not exist": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a")],
        pre_filter=Status.unresolvable('persistentvolumeclaim "pvc-a" not found'),
    ),
    "Part of PVCs do not exist": Case(
        pod_with_claims("pod-a", "pvc-a", "pvc-b"),
        [node("node-a")],
        [make_pvc("pvc-a").cls("wait-sc").bound("pv-a").obj()],
        pre_filter=Status.unresolvable('persistentvolumeclaim "pvc-b" not found'),
    ),
    "immediate claims not bound": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a")],
        [make_pvc("pvc-a").cls("immediate-sc").obj()],
        pre_filter=Status.unresolvable("pod has unbound immediate PersistentVolumeClaims"),
    ),
    "prebound claim of a WaitForFirstConsumer class counts as immediate": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a")],
        [make_pvc("pvc-a").cls("wait-sc").prebound("pv-a").obj()],
        pre_filter=Status.unresolvable("pod has unbound immediate PersistentVolumeClaims"),
    ),
    "unbound claims no matches": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a")],
        [make_pvc("pvc-a").cls("wait-sc").obj()],
        filters=[_UNRESOLVABLE_BIND],
        scores=[0],
    ),
    "bound and unbound unsatisfied": Case(
        pod_with_claims("pod-a", "pvc-a", "pvc-b"),
        [node("node-a", foo="barbar")],
        [
            make_pvc("pvc-a").cls("wait-sc").bound("pv-a").obj(),
            make_pvc("pvc-b").cls("wait-sc").obj(),
            make_pv("pv-a").cls("wait-sc").affinity(foo=["bar"]).obj(),
        ],
        filters=[
            Status.unresolvable(
                "node(s) didn't match PersistentVolume's node affinity",
                "node(s) didn't find available persistent volumes to bind",
            )
        ],
        scores=[0],
    ),
    "pv not found": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a")],
        [make_pvc("pvc-a").cls("wait-sc").bound("pv-a").obj()],
        filters=[
            Status.unresolvable(
                "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
            )
        ],
        scores=[0],
    ),
    "pv not found claim lost": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a")],
        [make_pvc("pvc-a").cls("wait-sc").bound("pv-a").phase("Lost").obj()],
        pre_filter=Status.unresolvable(
            'persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'
        ),
    ),
    "claim being deleted": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a")],
        [make_pvc("pvc-a").cls("wait-sc").deleting().obj()],
        pre_filter=Status.unresolvable('persistentvolumeclaim "pvc-a" is being deleted'),
    ),
    "ephemeral claim not created yet": Case(
        pod_with_claims("pod-a", ephemeral=["scratch"]),
        [node("node-a")],
        pre_filter=Status.unresolvable(
            "waiting for ephemeral volume controller to create the persistentvolumeclaim "
            '"pod-a-scratch"'
        ),
    ),
    "ephemeral claim of another pod": Case(
        pod_with_claims("pod-a", ephemeral=["scratch"]),
        [node("node-a")],
        [make_pvc("pod-a-scratch").cls("wait-sc").obj()],
        pre_filter=Status.unresolvable(
            "PVC default/pod-a-scratch was not created for pod default/pod-a (pod is not owner)"
        ),
    ),
    "local volumes with close capacity are preferred": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a"), node("node-b"), node("node-c")],
        [
            make_pvc("pvc-a").cls("wait-sc").request("50Gi").obj(),
            _local("pv-a-0", "wait-sc", "200Gi", "node-a"),
            _local("pv-a-1", "wait-sc", "200Gi", "node-a"),
            _local("pv-b-0", "wait-sc", "100Gi", "node-b"),
            _local("pv-b-1", "wait-sc", "100Gi", "node-b"),
        ],
        filters=[None, None, _UNRESOLVABLE_BIND],
        scores=[25, 50, 0],
        scoring=True,
        shape=[(0, 0), (100, 10)],
    ),
    "local volumes with close capacity are preferred (multiple pvcs)": Case(
        pod_with_claims("pod-a", "pvc-0", "pvc-1"),
        [node("node-a"), node("node-b"), node("node-c")],
        [
            make_pvc("pvc-0").cls("wait-sc").request("50Gi").obj(),
            make_pvc("pvc-1").cls("wait-hdd-sc").request("100Gi").obj(),
            _local("pv-a-0", "wait-sc", "200Gi", "node-a"),
            _local("pv-a-1", "wait-sc", "200Gi", "node-a"),
            _local("pv-a-2", "wait-hdd-sc", "200Gi", "node-a"),
            _local("pv-a-3", "wait-hdd-sc", "200Gi", "node-a"),
            _local("pv-b-0", "wait-sc", "100Gi", "node-b"),
            _local("pv-b-1", "wait-sc", "100Gi", "node-b"),
            _local("pv-b-2", "wait-hdd-sc", "100Gi", "node-b"),
            _local("pv-b-3", "wait-hdd-sc", "100Gi", "node-b"),
        ],
        filters=[None, None, _UNRESOLVABLE_BIND],
        scores=[38, 75, 0],
        scoring=True,
        shape=[(0, 0), (100, 10)],
    ),
    "zonal volumes with close capacity are preferred": Case(
        pod_with_claims("pod-a", "pvc-a"),
        _zone_nodes(),
        [make_pvc("pvc-a").cls("wait-sc").request("50Gi").obj(), *_ZONAL_PVS],
        filters=[None, None, None, None, _UNRESOLVABLE_BIND, _UNRESOLVABLE_BIND],
        scores=[25, 25, 50, 50, 0, 0],
        scoring=True,
        shape=[(0, 0), (100, 10)],
    ),
    "zonal volumes with close capacity are preferred (custom shape)": Case(
        pod_with_claims("pod-a", "pvc-a"),
        _zone_nodes(),
        [make_pvc("pvc-a").cls("wait-sc").request("50Gi").obj(), *_ZONAL_PVS],
        filters=[None, None, None, None, _UNRESOLVABLE_BIND, _UNRESOLVABLE_BIND],
        scores=[15, 15, 30, 30, 0, 0],
        scoring=True,
        shape=[(0, 0), (50, 3), (100, 5)],
    ),
    "default shape prefers the most free space (static)": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a"), node("node-b")],
        [
            make_pvc("pvc-a").cls("wait-sc").request("50Gi").obj(),
            _local("pv-a-0", "wait-sc", "200Gi", "node-a"),
            _local("pv-b-0", "wait-sc", "100Gi", "node-b"),
        ],
        filters=[None, None],
        scores=[75, 50],
        scoring=True,
    ),
    "dynamic provisioning is scored by the capacity it would use": Case(
        pod_with_claims("pod-a", "pvc-a"),
        [node("node-a", zone="a"), node("node-b", zone="b")],
        [
            storage_class("csi-sc", provisioner="csi.example.com"),
            csi_driver("csi.example.com", True),
            make_pvc("pvc-a").cls("csi-sc").request("50Gi").obj(),
            capacity("cap-a", "csi-sc", {"zone": "a"}, "200Gi"),
            capacity("cap-b", "csi-sc", {"zone": "b"}, "100Gi"),
        ],
        filters=[None, None],
        scores=[75, 50],
        scoring=True,
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_volume_binding(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    if case.scoring:
        monkeypatch.setenv(ENV_VAR, "StorageCapacityScoring=true")
    args = VolumeBindingArgs(
        bind_timeout_seconds=300,
        shape=[UtilizationShapePoint(utilization=u, score=s) for u, s in case.shape]
        if case.shape
        else None,
    )
    env = VolumeEnv([IMMEDIATE_SC, WAIT_SC, WAIT_HDD_SC, *case.objects], case.nodes)
    plugin = env.plugin(VolumeBinding, args)
    state = CycleState()
    _, status = plugin.pre_filter(state, case.pod, env.snapshot.list())
    assert status == case.pre_filter
    if status is not None and status.code is not Code.Skip:
        return
    data = state.read(STATE_KEY)
    assert isinstance(data, VolumeBindingState)
    if status is None:
        got = [plugin.filter(state, case.pod, env.node_info(n.metadata.name)) for n in case.nodes]
        assert got == case.filters
        masked = CycleState()  # the array Filter passes only what Filter passes
        plugin.pre_filter(masked, case.pod, env.snapshot.list())
        assert (
            array_filter_mismatch(plugin, masked, case.pod, env.snapshot, env.snapshot.list())
            is None
        )
        assert plugin.pre_score(state, case.pod, env.snapshot.list()) == (
            None if case.scoring else Status.skip()
        )
    scores = [plugin.score(state, case.pod, env.node_info(n.metadata.name)) for n in case.nodes]
    assert scores == [(s, None) for s in case.scores]


def test_pre_filter_state_lists_pvs_once_by_class() -> None:
    claim = make_pvc("pvc-a").cls("wait-sc").obj()
    other = make_pvc("pvc-b").cls("wait-hdd-sc").obj()
    pvs = [_local("pv-1", "wait-sc", "1Gi", "n"), _local("pv-2", "wait-hdd-sc", "1Gi", "n")]
    env = VolumeEnv([WAIT_SC, WAIT_HDD_SC, claim, other, *pvs], [node("n")])
    plugin = env.plugin(VolumeBinding)
    state = CycleState()
    plugin.pre_filter(state, pod_with_claims("p", "pvc-a", "pvc-b"), env.snapshot.list())
    data = state.read(STATE_KEY)
    assert data.claims is not None
    assert {k: [p.metadata.name for p in v] for k, v in data.claims.volumes_by_class.items()} == {
        "wait-sc": ["pv-1"],
        "wait-hdd-sc": ["pv-2"],
    }


def test_beta_storage_class_annotation_wins() -> None:
    claim = make_pvc("pvc-a").cls("immediate-sc").beta_cls("wait-sc").obj()
    env = VolumeEnv([IMMEDIATE_SC, WAIT_SC, claim], [node("n")])
    plugin = env.plugin(VolumeBinding)
    _, status = plugin.pre_filter(CycleState(), pod_with_claims("p", "pvc-a"), [])
    assert status is None  # delayed (wait-sc), not immediate


def test_class_without_binding_mode_is_an_error() -> None:
    claim = make_pvc("pvc-a").cls("broken").obj()
    env = VolumeEnv([storage_class("broken", mode=None), claim], [node("n")])
    plugin = env.plugin(VolumeBinding)
    _, status = plugin.pre_filter(CycleState(), pod_with_claims("p", "pvc-a"), [])
    assert status is not None and status.code is Code.Error
    assert status.message() == 'VolumeBindingMode not set for StorageClass "broken"'


def test_wrong_args_type_is_rejected() -> None:
    from kubesched.framework import NoArgs

    env = VolumeEnv()
    with pytest.raises(TypeError, match="wants args of type VolumeBindingArgs, got NoArgs"):
        VolumeBinding(NoArgs(), env.handle)


def test_reserve_without_claims_is_all_bound_and_prebind_does_nothing() -> None:
    import asyncio

    env = VolumeEnv([], [node("n")])
    plugin = env.plugin(VolumeBinding)
    state = CycleState()
    pod = make_pod("p").obj()
    plugin.pre_filter(state, pod, [])
    assert plugin.reserve(state, pod, "n") is None
    assert asyncio.run(plugin.pre_bind(state, pod, "n")) is None
    plugin.unreserve(state, pod, "n")
    plugin.unreserve(CycleState(), pod, "n")  # no state at all: still fine


def test_prebind_without_filter_result_for_node_is_an_error() -> None:
    import asyncio

    claim = make_pvc("pvc-a").cls("wait-sc").obj()
    env = VolumeEnv([WAIT_SC, claim], [node("n")])
    plugin = env.plugin(VolumeBinding)
    state = CycleState()
    pod = pod_with_claims("p", "pvc-a")
    plugin.pre_filter(state, pod, [])
    state.read(STATE_KEY).all_bound = False
    status = asyncio.run(plugin.pre_bind(state, pod, "n"))
    assert status is not None and status.message() == 'no pod volumes found for node "n"'


def test_reserve_keeps_only_the_chosen_nodes_volumes() -> None:
    # pods waiting in PreBind must not hold one PodVolumes per feasible node
    claim = make_pvc("pvc-a").cls("wait-sc").obj()
    pvs = [_local("pv-a", "wait-sc", "1Gi", "node-a"), _local("pv-b", "wait-sc", "1Gi", "node-b")]
    env = VolumeEnv([WAIT_SC, claim, *pvs], [node("node-a"), node("node-b")])
    plugin = env.plugin(VolumeBinding)
    state = CycleState()
    pod = pod_with_claims("p", "pvc-a")
    plugin.pre_filter(state, pod, env.snapshot.list())
    for name in ("node-a", "node-b"):
        assert plugin.filter(state, pod, env.node_info(name)) is None
    data = state.read(STATE_KEY)
    assert sorted(data.pod_volumes_by_node) == ["node-a", "node-b"]
    assert plugin.reserve(state, pod, "node-b") is None
    assert list(data.pod_volumes_by_node) == ["node-b"]
    bindings = data.pod_volumes_by_node["node-b"].static_bindings
    assert [b.pv.metadata.name for b in bindings or []] == ["pv-b"]
    assert not data.all_bound
    plugin.unreserve(state, pod, "node-b")
    assert plugin.binder.pv_cache.get("pv-b").spec.claim_ref is None  # the assumption undone
    assert plugin.reserve(state, pod, "node-c") is None  # no Filter result there
    assert data.pod_volumes_by_node == {} and data.all_bound


PROV_SC = storage_class("prov-sc", provisioner="csi.example.com")
LOCAL_SC = storage_class("local-sc", provisioner="kubernetes.io/no-provisioner")


def _mask(plugin: VolumeBinding, state: CycleState, pod: Pod, env: VolumeEnv) -> list[bool]:
    rows = np.arange(len(env.snapshot.list()), dtype=np.intp)
    return plugin.filter_mask(state, pod, env.snapshot.columns, rows).tolist()


def test_the_array_filter_passes_the_nodes_that_share_an_answer() -> None:
    """A claim provisioned alike everywhere passes every row at once (n3 aside, below),
    and Reserve on a row passed so assumes the provisioning there as after Filter; the
    rows of the hosts a PV of the claim's class is pinned to get Filter's own answer
    (Reserve binds the PV there); a local claim that no PV fits elsewhere rejects the
    other rows for sure (the mask is exact: Filter says why, when asked)."""
    objects = [
        PROV_SC,
        LOCAL_SC,
        make_pvc("pvc-prov").cls("prov-sc").request("1Gi").obj(),
        make_pvc("pvc-local").cls("local-sc").request("1Gi").obj(),
        _local("pv-n2", "local-sc", "1Gi", "n2"),
        make_pvc("pvc-either").cls("prov-sc").request("1Gi").obj(),
        _local("pv-n3", "prov-sc", "1Gi", "n3"),
    ]
    env = VolumeEnv(objects, [node(f"n{i}") for i in range(1, 5)])
    plugin = env.plugin(VolumeBinding)

    provisioned = pod_with_claims("p", "pvc-prov")
    state = CycleState()
    plugin.pre_filter(state, provisioned, env.snapshot.list())
    assert _mask(plugin, state, provisioned, env) == [True, True, True, True]
    assert plugin.reserve(state, provisioned, "n4") is None
    assumed = plugin.pvc_cache.get("default/pvc-prov")
    assert assumed.metadata.annotations.get("volume.kubernetes.io/selected-node") == "n4"
    plugin.unreserve(state, provisioned, "n4")

    # a class that provisions, with a PV pinned to n3: n3 gets Filter's answer, and
    # Reserve there binds that PV rather than provisioning
    either = pod_with_claims("e", "pvc-either")
    state = CycleState()
    plugin.pre_filter(state, either, env.snapshot.list())
    assert _mask(plugin, state, either, env) == [True, True, True, True]
    assert plugin.filter(state, either, env.node_info("n3")) is None
    assert plugin.reserve(state, either, "n3") is None
    bound = plugin.pv_cache.get("pv-n3")
    assert bound.spec.claim_ref is not None and bound.spec.claim_ref.name == "pvc-either"
    assert "volume.kubernetes.io/selected-node" not in (
        plugin.pvc_cache.get("default/pvc-either").metadata.annotations
    )
    plugin.unreserve(state, either, "n3")

    local = pod_with_claims("q", "pvc-local")
    state = CycleState()
    plugin.pre_filter(state, local, env.snapshot.list())
    assert _mask(plugin, state, local, env) == [False, True, False, False]
    assert [plugin.filter(state, local, info) for info in env.snapshot.list()] == [
        _UNRESOLVABLE_BIND,
        None,
        _UNRESOLVABLE_BIND,
        _UNRESOLVABLE_BIND,
    ]
