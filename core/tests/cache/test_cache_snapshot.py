"""UpdateSnapshot: incremental by generation, clones only, cheap when little changed.

Follows upstream's TestSchedulerCache_UpdateSnapshot (pkg/scheduler/backend/cache/cache_test.go).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from cache_builders import make_node, make_pod

from kubesched.cache import SchedulerCache
from kubesched.framework import NodeInfo, Resource, Snapshot


def _cache_with(n: int, zones: int = 3) -> SchedulerCache:
    cache = SchedulerCache()
    for i in range(n):
        cache.add_node(make_node(f"n{i}", zone=f"z{i % zones}"))
    return cache


def _count_clones(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    original: Callable[[NodeInfo], NodeInfo] = NodeInfo.clone

    def counting(self: NodeInfo) -> NodeInfo:
        calls[0] += 1
        return original(self)

    monkeypatch.setattr(NodeInfo, "clone", counting)
    return calls


def test_first_update_fills_an_empty_snapshot() -> None:
    cache = _cache_with(4)
    cache.add_pod(make_pod("p", node="n1", cpu="1"))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert len(snapshot) == 4
    assert set(snapshot.node_info_map) == {"n0", "n1", "n2", "n3"}
    assert snapshot.node_info_map["n1"].requested == Resource(milli_cpu=1000)
    assert all(n.node is not None for n in snapshot)


def test_unchanged_node_keeps_its_object_changed_node_gets_a_new_clone() -> None:
    cache = _cache_with(3)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    before = dict(snapshot.node_info_map)
    cache.assume_pod(make_pod("p", node="n1", cpu="2"))
    cache.update_snapshot(snapshot)
    assert snapshot.node_info_map["n0"] is before["n0"]
    assert snapshot.node_info_map["n2"] is before["n2"]
    assert snapshot.node_info_map["n1"] is not before["n1"]
    assert snapshot.node_info_map["n1"].requested == Resource(milli_cpu=2000)
    assert before["n1"].requested == Resource()  # the old clone is untouched
    # list and map agree
    assert [id(n) for n in snapshot.node_info_list] == [
        id(snapshot.node_info_map[n.name]) for n in snapshot.node_info_list
    ]


def test_snapshot_does_not_see_later_cache_changes() -> None:
    cache = _cache_with(2)
    pod = make_pod("p", node="n0", cpu="1")
    cache.add_pod(pod)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    info = snapshot.node_info_map["n0"]
    cache.assume_pod(make_pod("q", node="n0", cpu="3"))
    cache.remove_pod(pod)
    cache.update_node(make_node("n0"), make_node("n0", cpu="1"))
    cache.remove_node(make_node("n1"))
    assert info.requested == Resource(milli_cpu=1000)
    assert [p.pod.metadata.name for p in info.pods] == ["p"]
    assert info.allocatable.milli_cpu == 8000
    assert [n.name for n in snapshot] == ["n0", "n1"]
    cache.update_snapshot(snapshot)
    assert [n.name for n in snapshot] == ["n0"]
    assert snapshot.node_info_map["n0"].requested == Resource(milli_cpu=3000)


def test_nothing_changed_means_nothing_cloned(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = _cache_with(10)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    list_before = snapshot.node_info_list
    calls = _count_clones(monkeypatch)
    cache.update_snapshot(snapshot)
    assert calls[0] == 0
    assert snapshot.node_info_list is list_before


def test_one_assumed_pod_at_5000_nodes_clones_one_node(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = _cache_with(5000)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    order = [n.name for n in snapshot]
    calls = _count_clones(monkeypatch)
    cache.assume_pod(make_pod("p", node="n4321", cpu="1"))
    cache.update_snapshot(snapshot)
    assert calls[0] == 1
    assert [n.name for n in snapshot] == order
    assert snapshot.node_info_map["n4321"].requested == Resource(milli_cpu=1000)
    assert snapshot.node_info_list[order.index("n4321")] is snapshot.node_info_map["n4321"]


def test_adding_a_node_rebuilds_the_list_but_reuses_clones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = _cache_with(6)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    before = dict(snapshot.node_info_map)
    calls = _count_clones(monkeypatch)
    cache.add_node(make_node("new", zone="z0"))
    cache.update_snapshot(snapshot)
    assert calls[0] == 1
    assert cache.node_order() == [n.name for n in snapshot]
    assert "new" in snapshot.node_info_map
    assert all(snapshot.node_info_map[name] is info for name, info in before.items())


def test_affinity_lists_follow_changes() -> None:
    cache = _cache_with(3)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert snapshot.have_pods_with_required_anti_affinity == []
    pod = make_pod("p", node="n2", anti_affinity=True)
    cache.add_pod(pod)
    cache.update_snapshot(snapshot)
    assert snapshot.have_pods_with_affinity == [snapshot.node_info_map["n2"]]
    assert snapshot.have_pods_with_required_anti_affinity == [snapshot.node_info_map["n2"]]
    cache.add_pod(make_pod("q", node="n2"))
    cache.update_snapshot(snapshot)
    # the list holds the new clone, not the stale one
    assert snapshot.have_pods_with_affinity[0] is snapshot.node_info_map["n2"]
    assert len(snapshot.have_pods_with_affinity[0].pods) == 2
    cache.remove_pod(pod)
    cache.update_snapshot(snapshot)
    assert snapshot.have_pods_with_affinity == []


def test_columns_are_rebuilt_after_an_update() -> None:
    cache = _cache_with(2)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert snapshot.columns.requested["cpu"].tolist() == [0, 0]
    cache.assume_pod(make_pod("p", node="n1", cpu="250m"))
    cache.update_snapshot(snapshot)
    assert snapshot.columns.requested["cpu"].tolist() == [0, 250]


def test_a_snapshot_set_by_hand_is_repaired() -> None:
    cache = _cache_with(3)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    snapshot.set_nodes([NodeInfo(make_node("stranger"))])
    cache.assume_pod(make_pod("p", node="n0"))
    cache.update_snapshot(snapshot)
    assert sorted(snapshot.node_info_map) == ["n0", "n1", "n2"]
    assert len(snapshot.node_info_map["n0"].pods) == 1


def test_two_snapshots_from_one_cache_are_independent() -> None:
    cache = _cache_with(2)
    first, second = Snapshot(), Snapshot()
    cache.update_snapshot(first)
    cache.assume_pod(make_pod("p", node="n0", cpu="1"))
    cache.update_snapshot(second)
    cache.update_snapshot(first)
    assert first.node_info_map["n0"].requested == Resource(milli_cpu=1000)
    assert first.node_info_map["n0"] is not second.node_info_map["n0"]


def test_dump_returns_clones() -> None:
    cache = _cache_with(1)
    dump = cache.dump()
    dump["n0"].add_pod(make_pod("p", node="n0", cpu="1"))
    assert cache.dump()["n0"].requested == Resource()
    assert cache.pod_count() == 0
