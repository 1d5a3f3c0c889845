"""An assumption undone without an API write requeues the pods it kept out.

Upstream's volume assume caches are not wired to the queue (only DRA's ResourceClaim cache
is, pkg/scheduler/eventhandlers.go): a pod rejected because a PV looked taken waits for an
unrelated PV/PVC/Node event or the 5-minute flush of the unschedulable pool. Here the
caches tell their restore handlers, and VolumeBinding reports a PV (or PVC) update through
`Handle.report_cluster_event` (`BinderOptions.requeue_on_revert`)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any, ClassVar

from volume_sim_helpers import VolumeSim
from volumebinding_helpers import VolumeEnv, make_pv, make_pvc, node, pod_with_claims, storage_class

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    CycleState,
    EventResource,
    PostBindPlugin,
    PreBindPlugin,
    Status,
)
from kubesched.testing import make_pod
from kubesched_volumebinding.storage import ANN_SELECTED_NODE, NOT_SUPPORTED_PROVISIONER
from kubesched_volumebinding.volumebinding import PVAssumeCache, VolumeBinding

LOCAL = storage_class("local", provisioner=NOT_SUPPORTED_PROVISIONER)
PV_UPDATE = ClusterEvent(EventResource.PersistentVolume, ActionType.UpdateOther)
PVC_UPDATE = ClusterEvent(EventResource.PersistentVolumeClaim, ActionType.UpdateOther)


class _NoRequeue(VolumeBinding):
    options = replace(VolumeBinding.options, requeue_on_revert=False)


# -- the caches' restore handlers ------------------------------------------------------
def test_restore_tells_handlers_only_when_an_assumption_is_undone() -> None:
    cache = PVAssumeCache()
    seen: list[tuple[Any, Any]] = []
    cache.add_restore_handler(lambda assumed, api: seen.append((assumed, api)))
    pv = make_pv("pv-1").obj()
    cache.add(pv)
    cache.restore("pv-1")  # nothing assumed
    cache.restore("nope")  # unknown key
    assert seen == []
    assumed = make_pv("pv-1").claim(name="c", uid="u").obj()
    cache.assume(assumed)
    cache.restore("pv-1")
    cache.restore("pv-1")  # already restored
    assert seen == [(assumed, pv)]
    assert cache.get("pv-1") is pv


# -- the plugin reports what Unreserve undoes --------------------------------------------
def _reserved(cls: type[VolumeBinding], objects: list[Any], pod: Pod) -> tuple[Any, Any, Any]:
    env = VolumeEnv(objects, [node("n1")])
    plugin = env.plugin(cls)
    state = CycleState()
    assert plugin.pre_filter(state, pod, [])[1] is None
    assert plugin.filter(state, pod, env.node_info("n1")) is None
    assert plugin.reserve(state, pod, "n1") is None
    return env, plugin, state


def test_unreserve_reports_the_pv_it_frees_once() -> None:
    objects = [LOCAL, make_pvc("c").cls("local").obj(), make_pv("pv-1").cls("local").obj()]
    pod = pod_with_claims("p", "c")
    env, plugin, state = _reserved(VolumeBinding, objects, pod)
    assert env.reported == []  # assuming is not reported (it frees nothing)
    plugin.unreserve(state, pod, "n1")
    plugin.unreserve(state, pod, "n1")  # idempotent: nothing more to report
    assert [event for event, _, _ in env.reported] == [PV_UPDATE]
    _, assumed, restored = env.reported[0]
    assert assumed.spec.claim_ref.name == "c" and restored.spec.claim_ref is None


def test_unreserve_reports_the_claim_whose_selected_node_it_drops() -> None:
    sc = storage_class("dyn", provisioner="p.csi")
    pod = pod_with_claims("p", "c")
    env, plugin, state = _reserved(VolumeBinding, [sc, make_pvc("c").cls("dyn").obj()], pod)
    plugin.unreserve(state, pod, "n1")
    assert [event for event, _, _ in env.reported] == [PVC_UPDATE]
    _, assumed, restored = env.reported[0]
    assert assumed.metadata.annotations[ANN_SELECTED_NODE] == "n1"
    assert ANN_SELECTED_NODE not in restored.metadata.annotations


def test_switched_off_nothing_is_reported() -> None:
    objects = [LOCAL, make_pvc("c").cls("local").obj(), make_pv("pv-1").cls("local").obj()]
    pod = pod_with_claims("p", "c")
    env, plugin, state = _reserved(_NoRequeue, objects, pod)
    plugin.unreserve(state, pod, "n1")
    assert env.reported == [] and not plugin.pv_cache.assumed_keys()


# -- two pods race for one PV -------------------------------------------------------------
class FailFirstPreBind(PreBindPlugin):
    """Runs before VolumeBinding's PreBind: pod `a`'s first one fails after 10 virtual
    seconds, before anything was written, so only Unreserve undoes a's assumption."""

    name = "FailFirstPreBind"
    failed: ClassVar[set[str]] = set()

    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if pod.metadata.name != "a" or pod.key in self.failed:
            return None
        self.failed.add(pod.key)
        await asyncio.sleep(10)
        return Status.as_error("admission webhook timed out")


class BindTimes(PostBindPlugin):
    name = "BindTimes"
    at: ClassVar[dict[str, float]] = {}

    async def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.at[pod.metadata.name] = self.handle.clock.now()


def _race(cls: type[VolumeBinding]) -> tuple[Any, VolumeSim]:
    FailFirstPreBind.failed.clear()
    BindTimes.at.clear()
    volumes = [
        [{"name": "data", "persistentVolumeClaim": {"claimName": f"claim-{p}"}}] for p in "ab"
    ]
    objects: list[Any] = [
        node("n1"),
        LOCAL,
        make_pv("pv-1").cls("local").capacity("1Gi").obj(),
        make_pvc("claim-a").cls("local").request("1Gi").obj(),
        make_pvc("claim-b").cls("local").request("1Gi").obj(),
        make_pod("a").req(cpu="100m").priority(10).spec(volumes=volumes[0]).obj(),
        make_pod("b").req(cpu="100m").spec(volumes=volumes[1]).obj(),
    ]
    sim = VolumeSim(
        objects, volume_binding=cls, extra_plugins=[FailFirstPreBind, BindTimes], until=60
    )
    return sim.run(), sim


def test_the_loser_binds_as_soon_as_the_winner_unreserves() -> None:
    result, sim = _race(VolumeBinding)
    # b was rejected at t=0 (pv-1 assumed for a); a's PreBind failed at t=10 and
    # Unreserve freed pv-1 in the cache only: b was retried then, not at t=300
    assert result.pod("b").status == "Bound"
    assert 10 <= BindTimes.at["b"] < 20
    assert result.pod("a").status == "Unschedulable"
    assert sim.cluster.get("PersistentVolumeClaim", "claim-b", "default").spec.volume_name == "pv-1"


def test_without_the_report_the_loser_stays_in_the_pool() -> None:
    result, sim = _race(_NoRequeue)
    # upstream's behaviour: nothing moved b; a, retried after its error backoff, took pv-1
    assert result.pod("b").status == "Unschedulable"
    assert result.pod("a").status == "Bound" and "b" not in BindTimes.at
    assert sim.cluster.get("PersistentVolumeClaim", "claim-a", "default").spec.volume_name == "pv-1"
