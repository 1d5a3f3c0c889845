"""Pod life cycle in the cache: assume, finish binding, forget, confirm, update, remove.

Cases follow upstream's pkg/scheduler/backend/cache/cache_test.go (TestAssumePodScheduled,
TestAddPodWillConfirm, TestAddPodAfterExpiration's v1.34 form without expiry,
TestUpdatePod, TestRemovePod, TestNodeOperators) and the texts of section 1.13.
"""

from __future__ import annotations

import pytest
from cache_builders import make_node, make_pod

from kubesched._errors import KubeschedError
from kubesched.cache import CacheError, SchedulerCache
from kubesched.framework import Resource, Snapshot


def _cache(*names: str) -> SchedulerCache:
    cache = SchedulerCache()
    for name in names:
        cache.add_node(make_node(name))
    return cache


def _requested(cache: SchedulerCache, node: str) -> Resource:
    return cache.dump()[node].requested


def test_cache_error_is_a_kubesched_error() -> None:
    assert issubclass(CacheError, KubeschedError)


def test_assume_accounts_the_pod_on_its_node() -> None:
    cache = _cache("n1")
    pod = make_pod("p", node="n1", cpu="500m", memory="1Gi")
    cache.assume_pod(pod)
    assert cache.is_assumed_pod(pod)
    assert cache.get_pod(pod) is pod
    assert _requested(cache, "n1") == Resource(milli_cpu=500, memory=2**30)
    assert cache.pod_count() == 1


def test_assume_twice_is_an_error_with_upstream_text() -> None:
    cache = _cache("n1")
    pod = make_pod("p", node="n1")
    cache.assume_pod(pod)
    with pytest.raises(CacheError) as info:
        cache.assume_pod(pod)
    assert str(info.value) == "pod uid-p(default/p) is in the cache, so can't be assumed"


def test_assume_of_an_added_pod_is_an_error() -> None:
    cache = _cache("n1")
    pod = make_pod("p", node="n1")
    cache.add_pod(pod)
    with pytest.raises(CacheError, match="is in the cache, so can't be assumed"):
        cache.assume_pod(pod)


def test_assume_needs_a_node_name_and_a_uid() -> None:
    cache = _cache("n1")
    with pytest.raises(CacheError, match=r"has no spec\.nodeName"):
        cache.assume_pod(make_pod("p"))
    no_uid = make_pod("q", node="n1")
    no_uid.metadata.uid = ""
    with pytest.raises(CacheError, match="empty UID"):
        cache.assume_pod(no_uid)
    assert cache.pod_count() == 0


def test_assumed_pod_never_expires_after_finish_binding() -> None:
    # TTL is 0 in v1.34: finishing the binding does not start any expiry.
    cache = _cache("n1")
    pod = make_pod("p", node="n1")
    cache.assume_pod(pod)
    assert not cache.is_binding_finished(pod)
    cache.finish_binding(pod)
    assert cache.is_binding_finished(pod)
    assert cache.is_assumed_pod(pod)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert [p.pod.metadata.name for p in snapshot.node_info_map["n1"].pods] == ["p"]


def test_finish_binding_of_unknown_or_added_pod_does_nothing() -> None:
    cache = _cache("n1")
    unknown = make_pod("u", node="n1")
    cache.finish_binding(unknown)
    assert not cache.is_binding_finished(unknown)
    added = make_pod("a", node="n1")
    cache.add_pod(added)
    cache.finish_binding(added)
    assert not cache.is_binding_finished(added)


def test_forget_undoes_assume() -> None:
    cache = _cache("n1")
    pod = make_pod("p", node="n1", cpu="1")
    cache.assume_pod(pod)
    cache.finish_binding(pod)
    cache.forget_pod(pod)
    assert not cache.is_assumed_pod(pod)
    assert not cache.is_binding_finished(pod)
    assert cache.get_pod(pod) is None
    assert _requested(cache, "n1") == Resource()
    assert cache.pod_count() == 0


def test_forget_of_unknown_pod_is_a_no_op() -> None:
    cache = _cache("n1")
    cache.forget_pod(make_pod("p", node="n1"))
    assert cache.pod_count() == 0


@pytest.mark.parametrize(
    ("assume", "forget_on", "expected"),
    [
        pytest.param(
            True,
            "n2",
            "pod uid-p(default/p) was assumed on n2 but assigned to n1",
            id="node differs",
        ),
        pytest.param(
            False,
            "n1",
            "pod uid-p(default/p) is not assumed, so it cannot be removed or forgotten",
            id="not assumed",
        ),
    ],
)
def test_forget_errors(assume: bool, forget_on: str, expected: str) -> None:
    cache = _cache("n1", "n2")
    pod = make_pod("p", node="n1")
    if assume:
        cache.assume_pod(pod)
    else:
        cache.add_pod(pod)
    with pytest.raises(CacheError) as info:
        cache.forget_pod(make_pod("p", node=forget_on))
    assert str(info.value) == expected
    assert cache.get_pod(pod) is pod  # nothing was removed


def test_add_pod_confirms_an_assumed_pod() -> None:
    cache = _cache("n1")
    assumed = make_pod("p", node="n1", cpu="1")
    cache.assume_pod(assumed)
    bound = make_pod("p", node="n1", cpu="1")
    cache.add_pod(bound)
    assert not cache.is_assumed_pod(bound)
    assert cache.get_pod(bound) is bound
    assert cache.pod_count() == 1
    assert _requested(cache, "n1") == Resource(milli_cpu=1000)
    # confirmed pods can no longer be forgotten
    with pytest.raises(CacheError, match="is not assumed"):
        cache.forget_pod(bound)


def test_add_pod_moves_an_assumed_pod_bound_elsewhere() -> None:
    cache = _cache("n1", "n2")
    cache.assume_pod(make_pod("p", node="n1", cpu="2"))
    bound = make_pod("p", node="n2", cpu="2")
    cache.add_pod(bound)
    dump = cache.dump()
    assert dump["n1"].pods == [] and dump["n1"].requested == Resource()
    assert [p.pod for p in dump["n2"].pods] == [bound]
    assert dump["n2"].requested == Resource(milli_cpu=2000)
    assert not cache.is_assumed_pod(bound)


def test_add_pod_twice_is_an_error() -> None:
    cache = _cache("n1")
    pod = make_pod("p", node="n1")
    cache.add_pod(pod)
    with pytest.raises(CacheError) as info:
        cache.add_pod(pod)
    assert str(info.value) == "pod uid-p(default/p) was already in added state"


def test_add_pod_before_its_node_then_node_arrives() -> None:
    cache = SchedulerCache()
    cache.add_pod(make_pod("p", node="n1", cpu="1"))
    assert cache.node_count() == 1  # a node-less NodeInfo holds the pod
    cache.add_node(make_node("n1"))
    assert _requested(cache, "n1") == Resource(milli_cpu=1000)
    assert cache.dump()["n1"].node is not None


def test_update_pod_replaces_requests() -> None:
    cache = _cache("n1")
    old = make_pod("p", node="n1", cpu="1")
    cache.add_pod(old)
    new = make_pod("p", node="n1", cpu="3")
    cache.update_pod(old, new)
    assert cache.get_pod(new) is new
    assert _requested(cache, "n1") == Resource(milli_cpu=3000)
    assert cache.pod_count() == 1


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        pytest.param(
            "none",
            "pod uid-p(default/p) is not added to scheduler cache, so cannot be updated",
            id="unknown",
        ),
        pytest.param("assume", "assumed pod uid-p(default/p) should not be updated", id="assumed"),
    ],
)
def test_update_pod_errors(setup: str, expected: str) -> None:
    cache = _cache("n1")
    pod = make_pod("p", node="n1")
    if setup == "assume":
        cache.assume_pod(pod)
    with pytest.raises(CacheError) as info:
        cache.update_pod(pod, make_pod("p", node="n1", cpu="2"))
    assert str(info.value) == expected


def test_update_pod_to_another_node_is_corruption() -> None:
    cache = _cache("n1", "n2")
    pod = make_pod("p", node="n1")
    cache.add_pod(pod)
    with pytest.raises(CacheError, match="different node"):
        cache.update_pod(pod, make_pod("p", node="n2"))


def test_remove_pod() -> None:
    cache = _cache("n1")
    pod = make_pod("p", node="n1", cpu="1")
    cache.add_pod(pod)
    cache.remove_pod(pod)
    assert cache.get_pod(pod) is None
    assert cache.pod_count() == 0
    assert _requested(cache, "n1") == Resource()


def test_remove_pod_with_empty_node_name_uses_the_cached_node() -> None:
    # A missed delete replayed from the informer's last known state has no nodeName.
    cache = _cache("n1")
    cache.add_pod(make_pod("p", node="n1", cpu="1"))
    cache.remove_pod(make_pod("p"))
    assert _requested(cache, "n1") == Resource()


def test_remove_pod_errors() -> None:
    cache = _cache("n1", "n2")
    with pytest.raises(CacheError) as info:
        cache.remove_pod(make_pod("p", node="n1"))
    assert str(info.value) == (
        "pod uid-p(default/p) is not found in scheduler cache, so cannot be removed from it"
    )
    cache.add_pod(make_pod("p", node="n1"))
    with pytest.raises(CacheError, match="corrupted"):
        cache.remove_pod(make_pod("p", node="n2"))


def test_remove_of_an_assumed_pod_deleted_from_the_cluster() -> None:
    cache = _cache("n1")
    pod = make_pod("p", node="n1")
    cache.assume_pod(pod)
    cache.remove_pod(pod)
    assert not cache.is_assumed_pod(pod)
    assert cache.pod_count() == 0


def test_node_removed_while_pods_remain_keeps_a_ghost() -> None:
    cache = _cache("n1", "n2")
    pod = make_pod("p", node="n1", cpu="1")
    cache.add_pod(pod)
    cache.remove_node(make_node("n1"))
    assert cache.node_count() == 2
    assert cache.dump()["n1"].node is None
    assert cache.get_pod(pod) is pod
    assert cache.pod_count() == 1
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert [n.name for n in snapshot] == ["n2"]
    assert snapshot.get("n1") is None
    # the pod's delete event arrives later: the ghost goes away
    cache.remove_pod(pod)
    assert cache.node_count() == 1
    assert "n1" not in cache.dump()


def test_ghost_node_comes_back_with_its_pods() -> None:
    cache = _cache("n1")
    cache.add_pod(make_pod("p", node="n1", cpu="1"))
    cache.remove_node(make_node("n1"))
    cache.add_node(make_node("n1"))
    assert _requested(cache, "n1") == Resource(milli_cpu=1000)
    assert cache.node_order() == ["n1"]


def test_remove_node_without_pods_drops_it() -> None:
    cache = _cache("n1", "n2")
    cache.remove_node(make_node("n1"))
    assert cache.node_count() == 1
    assert cache.node_order() == ["n2"]
    with pytest.raises(CacheError) as info:
        cache.remove_node(make_node("n1"))
    assert str(info.value) == "node n1 is not found"


def test_update_node_replaces_allocatable() -> None:
    cache = _cache("n1")
    cache.add_pod(make_pod("p", node="n1", cpu="1"))
    cache.update_node(make_node("n1"), make_node("n1", cpu="32"))
    info = cache.dump()["n1"]
    assert info.allocatable.milli_cpu == 32000
    assert info.requested == Resource(milli_cpu=1000)
    assert len(info.pods) == 1
