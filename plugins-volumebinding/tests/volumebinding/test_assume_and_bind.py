"""Reserve, Unreserve and PreBind's half of the binder, after upstream's binder_test.go
(TestAssumePodVolumes, TestRevertAssumedPodVolumes, TestBindAPIUpdate, TestCheckBindings,
TestBindPodVolumes). Objects live in a memory cluster whose watch feeds the caches, so
resourceVersions are the cluster's; PreBind's wait runs on virtual time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from binder_fixtures import (
    BOUND,
    CLASSES,
    NODE1,
    NODE2,
    NS,
    PROVISIONED,
    PROVISIONED2,
    PV_BOUND,
    PV_NODE1A,
    PV_NODE1B,
    UNBOUND,
    UNBOUND2,
    make_test_pod,
    pv,
)
from volumebinding_helpers import make_pv, make_pvc, volume_kinds

from kubesched import ConflictError
from kubesched.api import K8sModel, Node, Pod
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster.memory import MemoryCluster
from kubesched.testing import make_node
from kubesched_volumebinding.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    PersistentVolume,
    PersistentVolumeClaim,
)
from kubesched_volumebinding.volumebinding import (
    AssumeCacheError,
    BindingInfo,
    DynamicProvision,
    Listers,
    PodVolumes,
    PVAssumeCache,
    PVCAssumeCache,
    VolumeBinder,
    VolumeBindingError,
    VolumeBindingWaiter,
)


class ClusterEnv:
    """Objects in a memory cluster (created in order), caches fed by its watch."""

    def __init__(self, objects: list[K8sModel], nodes: list[Node] | None = None) -> None:
        self.clock = VirtualClock()
        self.loop = VirtualTimeLoop(self.clock)
        self.cluster = MemoryCluster(volume_kinds(), self.clock)
        self.cluster.create_many([*CLASSES, *(nodes if nodes is not None else [NODE1, NODE2])])
        self.created = self.cluster.create_many(objects)
        self.pv_cache, self.pvc_cache = PVAssumeCache(), PVCAssumeCache()
        self.cluster.watch("PersistentVolume", self.pv_cache.on_watch_event)
        self.cluster.watch("PersistentVolumeClaim", self.pvc_cache.on_watch_event)
        self.cluster.flush()
        self.binder = VolumeBinder(Listers(self.cluster), self.pv_cache, self.pvc_cache)
        self.waiter = VolumeBindingWaiter(self.binder, self.cluster, bind_timeout=10)

    def pv(self, name: str) -> PersistentVolume:
        obj = self.cluster.get("PersistentVolume", name)
        assert isinstance(obj, PersistentVolume)
        return obj

    def pvc(self, name: str) -> PersistentVolumeClaim:
        obj = self.cluster.get("PersistentVolumeClaim", name, NS)
        assert isinstance(obj, PersistentVolumeClaim)
        return obj

    def run(self, main: Awaitable[Any], *actors: Callable[[], Awaitable[None]]) -> Any:
        async def go() -> Any:
            tasks = [asyncio_task(a()) for a in actors]
            try:
                return await main
            finally:
                for t in tasks:
                    t.cancel()

        try:
            return self.loop.run_until_complete(go())
        finally:
            self.loop.close()

    async def update(self, obj: K8sModel) -> None:
        await self.cluster.update(obj)


def asyncio_task(coro: Awaitable[None]) -> Any:
    import asyncio

    return asyncio.ensure_future(coro)


# -- Reserve: AssumePodVolumes -----------------------------------------------------------


def test_assume_all_bound() -> None:
    env = ClusterEnv([BOUND, PV_BOUND])
    volumes = PodVolumes()
    assert env.binder.assume_pod_volumes(make_test_pod(BOUND), "node1", volumes) is True
    assert env.pv_cache.assumed_keys() == []


def test_assume_one_binding() -> None:
    env = ClusterEnv([UNBOUND, PV_NODE1A])
    claim, vol = env.pvc("unbound-pvc"), env.pv("pv-node1a")
    volumes = PodVolumes([BindingInfo(claim, vol)], [])
    assert env.binder.assume_pod_volumes(make_test_pod(claim), "node1", volumes) is False
    assumed = env.pv_cache.get("pv-node1a")
    assert assumed.spec.claim_ref is not None
    assert (assumed.spec.claim_ref.name, assumed.spec.claim_ref.uid) == (
        "unbound-pvc",
        claim.metadata.uid,
    )
    assert assumed.metadata.annotations[ANN_BOUND_BY_CONTROLLER] == "yes"
    assert volumes.static_bindings is not None and volumes.static_bindings[0].pv is assumed
    assert volumes.dynamic_provisions == []
    assert env.pv("pv-node1a").spec.claim_ref is None  # nothing written to the API


def test_assume_two_bindings() -> None:
    env = ClusterEnv([UNBOUND, UNBOUND2, PV_NODE1A, PV_NODE1B])
    claims = [env.pvc("unbound-pvc"), env.pvc("unbound-pvc2")]
    volumes = PodVolumes(
        [BindingInfo(claims[0], env.pv("pv-node1a")), BindingInfo(claims[1], env.pv("pv-node1b"))],
        [],
    )
    env.binder.assume_pod_volumes(make_test_pod(*claims), "node1", volumes)
    assert env.pv_cache.assumed_keys() == ["pv-node1a", "pv-node1b"]


def test_assume_pv_already_bound_is_not_assumed_again() -> None:
    env = ClusterEnv([UNBOUND])
    claim = env.pvc("unbound-pvc")
    env.cluster.create_many(
        [make_pv("pv-node1a").capacity("5G").cls("waitClass").claim(claim).obj()]
    )
    env.cluster.flush()
    volumes = PodVolumes([BindingInfo(claim, env.pv("pv-node1a"))], [])
    env.binder.assume_pod_volumes(make_test_pod(claim), "node1", volumes)
    assert env.pv_cache.assumed_keys() == []
    assert volumes.static_bindings is not None and len(volumes.static_bindings) == 1


def test_assume_failure_reverts_what_was_assumed() -> None:
    env = ClusterEnv([UNBOUND, UNBOUND2, PV_NODE1A])  # pv-node1b is not in the cache
    claims = [env.pvc("unbound-pvc"), env.pvc("unbound-pvc2")]
    volumes = PodVolumes(
        [BindingInfo(claims[0], env.pv("pv-node1a")), BindingInfo(claims[1], PV_NODE1B)], []
    )
    with pytest.raises(AssumeCacheError):
        env.binder.assume_pod_volumes(make_test_pod(*claims), "node1", volumes)
    assert env.pv_cache.assumed_keys() == []


def test_assume_one_binding_one_provision() -> None:
    env = ClusterEnv([UNBOUND, PROVISIONED, PV_NODE1A])
    claim, prov = env.pvc("unbound-pvc"), env.pvc("provisioned-pvc")
    volumes = PodVolumes([BindingInfo(claim, env.pv("pv-node1a"))], [DynamicProvision(prov)])
    env.binder.assume_pod_volumes(make_test_pod(claim, prov), "node1", volumes)
    assumed = env.pvc_cache.get(f"{NS}/provisioned-pvc")
    assert assumed.metadata.annotations[ANN_SELECTED_NODE] == "node1"
    assert ANN_SELECTED_NODE not in prov.metadata.annotations  # the informer's copy is kept
    assert volumes.dynamic_provisions is not None
    assert volumes.dynamic_provisions[0].pvc is assumed


def test_assume_provision_of_stale_claim_reverts_everything() -> None:
    env = ClusterEnv([UNBOUND, PROVISIONED2, PV_NODE1A])
    claim, stale = env.pvc("unbound-pvc"), env.pvc("provisioned-pvc2")
    newer = stale.model_copy(deep=True)
    newer.metadata.labels["changed"] = "yes"
    env.loop.run_until_complete(env.cluster.update(newer))
    env.cluster.flush()  # the cache now holds a newer claim than the one decided on
    volumes = PodVolumes([BindingInfo(claim, env.pv("pv-node1a"))], [DynamicProvision(stale)])
    with pytest.raises(AssumeCacheError, match="out of sync"):
        env.binder.assume_pod_volumes(make_test_pod(claim, stale), "node1", volumes)
    assert env.pv_cache.assumed_keys() == [] and env.pvc_cache.assumed_keys() == []


def test_revert_assumed_pod_volumes() -> None:
    env = ClusterEnv([UNBOUND, PROVISIONED, PV_NODE1A])
    claim, prov = env.pvc("unbound-pvc"), env.pvc("provisioned-pvc")
    volumes = PodVolumes([BindingInfo(claim, env.pv("pv-node1a"))], [DynamicProvision(prov)])
    env.binder.assume_pod_volumes(make_test_pod(claim, prov), "node1", volumes)
    env.binder.revert_assumed_pod_volumes(volumes)
    assert env.pv_cache.get("pv-node1a") is env.pv("pv-node1a")
    assert ANN_SELECTED_NODE not in env.pvc_cache.get(f"{NS}/provisioned-pvc").metadata.annotations
    env.binder.revert_assumed_pod_volumes(volumes)  # idempotent


# -- PreBind: the API writes (bindAPIUpdate) ---------------------------------------------


def _assumed(env: ClusterEnv, pairs: list[tuple[str, str]], provisions: list[str]) -> PodVolumes:
    volumes = PodVolumes(
        [BindingInfo(env.pvc(c), env.pv(v)) for c, v in pairs],
        [DynamicProvision(env.pvc(c)) for c in provisions],
    )
    pod = make_test_pod(*[env.pvc(c) for c, _ in pairs], *[env.pvc(c) for c in provisions])
    env.binder.assume_pod_volumes(pod, "node1", volumes)
    return volumes


def test_bind_api_update_nothing_to_bind() -> None:
    env = ClusterEnv([])
    env.loop.run_until_complete(env.waiter._bind_api_update(make_test_pod(), [], []))


@pytest.mark.parametrize(
    ("bindings", "provisions", "message"),
    [
        (None, [], 'failed to get cached bindings for pod "testns/test-pod"'),
        ([], None, 'failed to get cached claims to provision for pod "testns/test-pod"'),
    ],
)
def test_bind_api_update_without_cached_lists(
    bindings: list[BindingInfo] | None, provisions: list[DynamicProvision] | None, message: str
) -> None:
    env = ClusterEnv([])
    with pytest.raises(VolumeBindingError, match=message):
        env.loop.run_until_complete(
            env.waiter._bind_api_update(make_test_pod(), bindings, provisions)
        )


def test_bind_api_update_writes_pv_then_claim() -> None:
    env = ClusterEnv([UNBOUND, PROVISIONED, PV_NODE1A])
    volumes = _assumed(env, [("unbound-pvc", "pv-node1a")], ["provisioned-pvc"])
    before = env.cluster.resource_version
    env.loop.run_until_complete(
        env.waiter._bind_api_update(
            make_test_pod(), volumes.static_bindings, volumes.dynamic_provisions
        )
    )
    api_pv = env.pv("pv-node1a")
    assert api_pv.spec.claim_ref is not None and api_pv.spec.claim_ref.name == "unbound-pvc"
    assert int(api_pv.metadata.resource_version or 0) == before + 1
    assert env.pvc("provisioned-pvc").metadata.annotations[ANN_SELECTED_NODE] == "node1"
    assert volumes.static_bindings is not None and volumes.static_bindings[0].pv is api_pv


def test_bind_api_update_conflict_restores_what_was_not_written() -> None:
    env = ClusterEnv([UNBOUND, UNBOUND2, PV_NODE1A, PV_NODE1B])
    volumes = _assumed(env, [("unbound-pvc", "pv-node1a"), ("unbound-pvc2", "pv-node1b")], [])
    # someone changes pv-node1b in the API after Reserve (the informer has not seen it yet)
    changed = env.pv("pv-node1b").model_copy(deep=True)
    changed.metadata.labels["touched"] = "yes"
    env.loop.run_until_complete(env.cluster.update(changed))
    with pytest.raises(ConflictError):
        env.loop.run_until_complete(
            env.waiter._bind_api_update(
                make_test_pod(), volumes.static_bindings, volumes.dynamic_provisions
            )
        )
    assert env.pv("pv-node1a").spec.claim_ref is not None  # the first write stays
    assert env.pv_cache.get("pv-node1a").spec.claim_ref is not None  # (its echo arrived)
    assert not env.pv_cache.is_assumed("pv-node1b")  # the failed one is restored
    assert env.pv_cache.get("pv-node1b").spec.claim_ref is None


def test_bind_api_update_provision_conflict() -> None:
    env = ClusterEnv([UNBOUND, PROVISIONED, PV_NODE1A])
    volumes = _assumed(env, [("unbound-pvc", "pv-node1a")], ["provisioned-pvc"])
    changed = env.pvc("provisioned-pvc").model_copy(deep=True)
    changed.metadata.labels["touched"] = "yes"
    env.loop.run_until_complete(env.cluster.update(changed))
    with pytest.raises(ConflictError):
        env.loop.run_until_complete(
            env.waiter._bind_api_update(
                make_test_pod(), volumes.static_bindings, volumes.dynamic_provisions
            )
        )
    assert env.pv("pv-node1a").spec.claim_ref is not None
    assert not env.pvc_cache.is_assumed(f"{NS}/provisioned-pvc")


# -- PreBind: checkBindings ---------------------------------------------------------------


class CheckEnv:
    """Caches filled directly, nodes and the pod in a cluster (what checkBindings reads)."""

    def __init__(
        self,
        pvs: list[PersistentVolume],
        pvcs: list[PersistentVolumeClaim],
        *,
        node: Node = NODE1,
        pod_exists: bool = True,
    ) -> None:
        self.cluster = MemoryCluster(volume_kinds(), VirtualClock())
        self.pod = make_test_pod(*pvcs)
        self.cluster.create_many([node, *([self.pod] if pod_exists else [])])
        self.pv_cache, self.pvc_cache = PVAssumeCache(), PVCAssumeCache()
        for v in pvs:
            self.pv_cache.add(v)
        for c in pvcs:
            self.pvc_cache.add(c)
        binder = VolumeBinder(Listers(self.cluster), self.pv_cache, self.pvc_cache)
        self.waiter = VolumeBindingWaiter(binder, self.cluster, bind_timeout=10)

    def check(self, bindings: list[BindingInfo], provisions: list[DynamicProvision]) -> bool:
        return self.waiter.check_bindings(self.pod, "node1", bindings, provisions)


def _pvc(name: str, **kw: Any) -> PersistentVolumeClaim:
    b = make_pvc(name, NS).request("1G").cls("waitClassWithProvisioner")
    if kw.get("bound"):
        b.bound(kw["bound"])
    if kw.get("selected"):
        b.selected_node(kw["selected"])
    if kw.get("annotations") is not None:
        b.annotate(**kw["annotations"])
    return b.obj()


_CLAIM = make_pvc("unbound-pvc", NS).request("1G").cls("waitClass").obj()
_CLAIM_BOUND = make_pvc("unbound-pvc", NS).request("1G").cls("waitClass").bound("pv-node1a").obj()
_PV_PREBOUND = pv("pv-node1a", "node1", "5G", "waitClass", claim=_CLAIM)


def _pv_without_uid() -> PersistentVolume:
    v = _PV_PREBOUND.model_copy(deep=True)
    assert v.spec.claim_ref is not None
    v.spec.claim_ref.uid = ""
    return v


def _pv_without_claim() -> PersistentVolume:
    v = _PV_PREBOUND.model_copy(deep=True)
    v.spec.claim_ref = None
    return v


_DYNAMIC_PV = pv("dynamic-pv", "node1", "1Gi", "waitClassWithProvisioner")
_DYNAMIC_PV_NODE2 = pv("dynamic-pv", "node2", "1Gi", "waitClassWithProvisioner")

CHECKS: dict[str, tuple[Any, ...]] = {
    # name: (cached pvs, cached pvcs, bindings, provisions, expected: True/False/error text)
    "nothing-to-bind": ([], [], [], [], True),
    "binding-bound": (
        [_PV_PREBOUND],
        [_CLAIM_BOUND],
        [BindingInfo(_CLAIM, _PV_PREBOUND)],
        [],
        True,
    ),
    "binding-prebound": (
        [_PV_PREBOUND],
        [_CLAIM],
        [BindingInfo(_CLAIM, _PV_PREBOUND)],
        [],
        False,
    ),
    "binding-pv-not-exists": (
        [],
        [_CLAIM],
        [BindingInfo(_CLAIM, _PV_PREBOUND)],
        [],
        'failed to check binding: could not find v1.PersistentVolume "pv-node1a"',
    ),
    "binding-pvc-not-exists": (
        [_PV_PREBOUND],
        [],
        [BindingInfo(_CLAIM, _PV_PREBOUND)],
        [],
        'failed to check binding: could not find v1.PersistentVolumeClaim "testns/unbound-pvc"',
    ),
    "binding-claimref-nil": (
        [_pv_without_claim()],
        [_CLAIM],
        [BindingInfo(_CLAIM, _PV_PREBOUND)],
        [],
        'ClaimRef got reset for pv "pv-node1a"',
    ),
    "binding-claimref-uid-empty": (
        [_pv_without_uid()],
        [_CLAIM],
        [BindingInfo(_CLAIM, _PV_PREBOUND)],
        [],
        'ClaimRef got reset for pv "pv-node1a"',
    ),
    "binding-api-older-than-our-write": (
        [_PV_PREBOUND],
        [_CLAIM_BOUND],
        [BindingInfo(_CLAIM, make_pv("pv-node1a").version("2").obj())],
        [],
        False,
    ),
    "provisioning-pvc-bound": (
        [_DYNAMIC_PV],
        [_pvc("provisioned-pvc", bound="dynamic-pv", selected="node1")],
        [],
        [DynamicProvision(_pvc("provisioned-pvc", selected="node1"))],
        True,
    ),
    "provisioning-pvc-unbound": (
        [],
        [_pvc("provisioned-pvc", selected="node1")],
        [],
        [DynamicProvision(_pvc("provisioned-pvc", selected="node1"))],
        False,
    ),
    "provisioning-pvc-not-exists": (
        [],
        [],
        [],
        [DynamicProvision(_pvc("provisioned-pvc", selected="node1"))],
        "failed to check provisioning pvc: could not find v1.PersistentVolumeClaim "
        '"testns/provisioned-pvc"',
    ),
    "provisioning-pvc-annotations-nil": (
        [],
        [_pvc("provisioned-pvc")],
        [],
        [DynamicProvision(_pvc("provisioned-pvc", selected="node1"))],
        'selectedNode annotation reset for PVC "provisioned-pvc"',
    ),
    "provisioning-pvc-selected-node-dropped": (
        [],
        [_pvc("provisioned-pvc", annotations={"other": "x"})],
        [],
        [DynamicProvision(_pvc("provisioned-pvc", selected="node1"))],
        'provisioning failed for PVC "provisioned-pvc"',
    ),
    "provisioning-pvc-selected-node-wrong-node": (
        [],
        [_pvc("provisioned-pvc", selected="node2")],
        [],
        [DynamicProvision(_pvc("provisioned-pvc", selected="node1"))],
        'provisioning failed for PVC "provisioned-pvc"',
    ),
    "tolerate-provisioning-pvc-bound-pv-not-found": (
        [],
        [_pvc("provisioned-pvc", bound="dynamic-pv", selected="node1")],
        [],
        [DynamicProvision(_pvc("provisioned-pvc", selected="node1"))],
        False,
    ),
    "provisioned-pv-affinity-excludes-node": (
        [_DYNAMIC_PV_NODE2],
        [_pvc("provisioned-pvc", bound="dynamic-pv", selected="node1")],
        [],
        [DynamicProvision(_pvc("provisioned-pvc", selected="node1"))],
        'pv "dynamic-pv" node affinity doesn\'t match node "node1": no matching NodeSelectorTerms',
    ),
    "binding-bound-provisioning-unbound": (
        [_PV_PREBOUND],
        [_CLAIM_BOUND, _pvc("provisioned-pvc", selected="node1")],
        [BindingInfo(_CLAIM, _PV_PREBOUND)],
        [DynamicProvision(_pvc("provisioned-pvc", selected="node1"))],
        False,
    ),
}


@pytest.mark.parametrize(
    ("pvs", "pvcs", "bindings", "provisions", "want"), CHECKS.values(), ids=CHECKS.keys()
)
def test_check_bindings(
    pvs: list[PersistentVolume],
    pvcs: list[PersistentVolumeClaim],
    bindings: list[BindingInfo],
    provisions: list[DynamicProvision],
    want: bool | str,
) -> None:
    env = CheckEnv(pvs, pvcs)
    if isinstance(want, str):
        with pytest.raises(VolumeBindingError) as info:
            env.check(bindings, provisions)
        assert str(info.value) == want
    else:
        assert env.check(bindings, provisions) is want


def test_check_bindings_node_affinity_fails() -> None:
    env = CheckEnv([_PV_PREBOUND], [_CLAIM_BOUND], node=make_node("node1").obj())
    with pytest.raises(VolumeBindingError, match="node affinity doesn't match node"):
        env.check([BindingInfo(_CLAIM, _PV_PREBOUND)], [])


def test_check_bindings_pod_deleted() -> None:
    env = CheckEnv([_PV_PREBOUND], [_CLAIM], pod_exists=False)
    with pytest.raises(VolumeBindingError, match='pod does not exist any more: pod "test-pod"'):
        env.check([BindingInfo(_CLAIM, _PV_PREBOUND)], [])


def test_check_bindings_node_missing() -> None:
    env = CheckEnv([], [], node=make_node("other").obj())
    with pytest.raises(VolumeBindingError, match='failed to get node "node1"'):
        env.check([], [])


# -- PreBind: BindPodVolumes on virtual time ----------------------------------------------


async def _complete_static(env: ClusterEnv, after: float) -> None:
    import asyncio

    await asyncio.sleep(after)
    claim = env.pvc("unbound-pvc").model_copy(deep=True)
    claim.spec.volume_name = "pv-node1a"
    claim.metadata.annotations[ANN_BIND_COMPLETED] = "yes"
    await env.cluster.update(claim)


def _bind(env: ClusterEnv, volumes: PodVolumes, pod: Pod | None = None) -> Awaitable[None]:
    target = pod or env.cluster.get("Pod", "test-pod", NS)
    assert isinstance(target, Pod)
    return env.waiter.bind_pod_volumes(target, "node1", volumes)


def _static_env() -> tuple[ClusterEnv, PodVolumes]:
    env = ClusterEnv([UNBOUND, PV_NODE1A, make_test_pod(UNBOUND)])
    return env, _assumed(env, [("unbound-pvc", "pv-node1a")], [])


def test_bind_pod_volumes_static_succeeds_after_time() -> None:
    env, volumes = _static_env()
    env.run(_bind(env, volumes), lambda: _complete_static(env, 5))
    assert env.clock.now() == pytest.approx(5.0, abs=1.0)


def test_bind_pod_volumes_times_out_naming_the_claims() -> None:
    env, volumes = _static_env()
    with pytest.raises(VolumeBindingError) as info:
        env.run(_bind(env, volumes))
    assert str(info.value) == (
        "binding volumes: timed out waiting for the condition "
        "(claims still unbound after 10s: testns/unbound-pvc)"
    )
    assert env.clock.now() == pytest.approx(10.0)


def test_bind_pod_volumes_check_fails_when_claim_is_deleted() -> None:
    env, volumes = _static_env()

    async def delete_claim() -> None:
        import asyncio

        await asyncio.sleep(5)
        await env.cluster.delete("PersistentVolumeClaim", "unbound-pvc", NS)

    with pytest.raises(VolumeBindingError, match="binding volumes: failed to check binding"):
        env.run(_bind(env, volumes), delete_claim)


def test_bind_pod_volumes_pod_deleted_after_time() -> None:
    env, volumes = _static_env()

    async def delete_pod() -> None:
        import asyncio

        await asyncio.sleep(5)
        # the test pod has a nodeName: a forced delete, so that it is gone at once
        await env.cluster.delete("Pod", "test-pod", NS, grace_period_seconds=0)

    with pytest.raises(VolumeBindingError, match="pod does not exist any more"):
        env.run(_bind(env, volumes), delete_pod)


def test_bind_pod_volumes_dynamic_succeeds_after_time() -> None:
    env = ClusterEnv([PROVISIONED, make_test_pod(PROVISIONED)])
    volumes = _assumed(env, [], ["provisioned-pvc"])

    async def provision() -> None:
        import asyncio

        await asyncio.sleep(5)
        env.cluster.create_many([pv("dynamic-pv", "node1", "1Gi", "waitClassWithProvisioner")])
        claim = env.pvc("provisioned-pvc").model_copy(deep=True)
        claim.spec.volume_name = "dynamic-pv"
        claim.metadata.annotations[ANN_BIND_COMPLETED] = "yes"
        await env.cluster.update(claim)

    env.run(_bind(env, volumes), provision)


def test_bind_pod_volumes_dynamic_pv_on_another_node_fails() -> None:
    env = ClusterEnv([PROVISIONED, make_test_pod(PROVISIONED)])
    volumes = _assumed(env, [], ["provisioned-pvc"])

    async def provision_elsewhere() -> None:
        import asyncio

        await asyncio.sleep(5)
        env.cluster.create_many([pv("dynamic-pv", "node2", "1Gi", "waitClassWithProvisioner")])
        claim = env.pvc("provisioned-pvc").model_copy(deep=True)
        claim.spec.volume_name = "dynamic-pv"
        claim.metadata.annotations[ANN_BIND_COMPLETED] = "yes"
        await env.cluster.update(claim)

    with pytest.raises(VolumeBindingError, match="node affinity doesn't match node"):
        env.run(_bind(env, volumes), provision_elsewhere)


def test_bind_pod_volumes_bound_by_pv_controller_before_bind() -> None:
    env, volumes = _static_env()
    other = env.pv("pv-node1a").model_copy(deep=True)
    other.status.phase = "Bound"
    env.loop.run_until_complete(env.cluster.update(other))  # the API moved on meanwhile
    with pytest.raises(ConflictError):
        env.run(_bind(env, volumes))


def test_zero_timeout_fails_right_after_the_writes() -> None:
    env, volumes = _static_env()
    env.waiter.bind_timeout = 0
    with pytest.raises(VolumeBindingError, match="timed out"):
        env.run(_bind(env, volumes))
    assert env.pv("pv-node1a").spec.claim_ref is not None
    assert env.clock.now() == 0
