"""PodInfo.updated: a later version of a pod keeps what the earlier PodInfo computed from
inputs it shares (the assumed copy, the bound pod), and computes anew what changed; the
cache's assume and confirm give the node the same aggregates as a fresh PodInfo would."""

from __future__ import annotations

from kubesched.api import Pod
from kubesched.cache import SchedulerCache
from kubesched.framework import NodeInfo, PodInfo, Snapshot
from kubesched.testing import make_node, make_pod


def _pod() -> Pod:
    return (
        make_pod("p", uid="p")
        .req(cpu="1500m", memory="1Gi")
        .container(ports=[{"containerPort": 80, "hostPort": 8080}])
        .spec(
            affinity={
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {}, "topologyKey": "kubernetes.io/hostname"}
                    ]
                }
            }
        )
        .obj()
    )


def _bound(pod: Pod, node: str) -> Pod:
    # what the memory cluster's binding and the scheduler's assume do: a new spec, the
    # containers and affinity shared
    return pod.model_copy(update={"spec": pod.spec.model_copy(update={"node_name": node})})


def _derived(info: PodInfo) -> tuple[object, ...]:
    return (
        info.requests,
        info.non_zero_requests,
        info.host_ports,
        info.required_affinity_terms,
        info.required_anti_affinity_terms,
        info.has_affinity,
    )


def test_a_new_version_sharing_its_inputs_keeps_the_derived_values() -> None:
    pod = _pod()
    first = PodInfo(pod)
    computed = _derived(first)
    later = first.updated(_bound(pod, "n1"))
    assert later.pod.spec.node_name == "n1"
    assert all(a is b for a, b in zip(_derived(later), computed, strict=True))


def test_what_was_not_computed_yet_is_computed_from_the_new_version() -> None:
    pod = _pod()
    later = PodInfo(pod).updated(_bound(pod, "n1"))
    assert _derived(later) == _derived(PodInfo(later.pod))


def test_changed_inputs_are_computed_again() -> None:
    pod = _pod()
    first = PodInfo(pod)
    _derived(first)
    resized = pod.model_copy(
        update={"spec": make_pod("p", uid="p").req(cpu="3").obj().spec.model_copy()}
    )
    later = first.updated(resized)
    assert later.requests.milli_cpu == 3000
    assert later.host_ports == ()
    assert later.required_anti_affinity_terms == []
    assert _derived(later) == _derived(PodInfo(resized))


def test_assume_then_confirm_accounts_as_a_fresh_pod_info_does() -> None:
    cache = SchedulerCache()
    cache.add_node(make_node("n1").alloc(cpu="4", memory="8Gi", pods="110").obj())
    pod = _pod()
    queued = PodInfo(pod)
    _derived(queued)
    assumed = _bound(pod, "n1")
    cache.assume_pod(assumed, queued.updated(assumed))
    confirmed = _bound(pod, "n1")
    cache.add_pod(confirmed)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    got = snapshot.node_info_map["n1"]
    want = NodeInfo(got.node, [PodInfo(confirmed)])
    assert [p.pod for p in got.pods] == [confirmed]
    assert got.requested == want.requested
    assert got.non_zero_requested == want.non_zero_requested
    assert len(got.used_ports) == len(want.used_ports) == 1
    assert [p.pod for p in got.pods_with_required_anti_affinity] == [confirmed]
    assert not cache.is_assumed_pod(confirmed)
