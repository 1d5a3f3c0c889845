"""Node order: zones interleaved round-robin, zone key from region and zone labels.

Cases follow upstream's pkg/scheduler/backend/cache/node_tree_test.go and
pkg/util/node/node_test.go (TestGetZoneKey).
"""

from __future__ import annotations

import pytest
from cache_builders import make_node

from kubesched.cache import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    NodeTree,
    SchedulerCache,
    get_zone_key,
)
from kubesched.framework import Snapshot


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        pytest.param({}, "", id="no labels"),
        pytest.param({"topology.kubernetes.io/zone": "z1"}, ":\x00:z1", id="zone only"),
        pytest.param({"topology.kubernetes.io/region": "r1"}, "r1:\x00:", id="region only"),
        pytest.param(
            {"topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1"},
            "r1:\x00:z1",
            id="both",
        ),
        pytest.param(
            {LABEL_FAILURE_DOMAIN_BETA_ZONE: "z2", LABEL_FAILURE_DOMAIN_BETA_REGION: "r2"},
            "r2:\x00:z2",
            id="beta labels",
        ),
        pytest.param(
            {"topology.kubernetes.io/zone": "z1", LABEL_FAILURE_DOMAIN_BETA_ZONE: "z2"},
            ":\x00:z1",
            id="GA label wins",
        ),
    ],
)
def test_get_zone_key(labels: dict[str, str], expected: str) -> None:
    assert get_zone_key(make_node("n", labels=labels)) == expected


def test_same_zone_name_in_two_regions_is_two_zones() -> None:
    tree = NodeTree([make_node("a", zone="z", region="r1"), make_node("b", zone="z", region="r2")])
    assert len(tree.zones()) == 2


def test_interleaves_zones_round_robin() -> None:
    nodes = [make_node(n, zone="a") for n in ("n1", "n2", "n3", "n4")]
    nodes += [make_node(n, zone="b") for n in ("n5", "n6")]
    tree = NodeTree(nodes)
    assert tree.list() == ["n1", "n5", "n2", "n6", "n3", "n4"]
    assert tree.num_nodes == 6


def test_zones_keep_first_seen_order_and_nodes_their_insertion_order() -> None:
    tree = NodeTree()
    for name, zone in [("x1", "b"), ("y1", "a"), ("x2", "b"), ("z1", "c"), ("y2", "a")]:
        tree.add_node(make_node(name, zone=zone))
    assert tree.list() == ["x1", "y1", "z1", "x2", "y2"]


def test_adding_an_existing_node_changes_nothing() -> None:
    tree = NodeTree([make_node("n1", zone="a")])
    assert not tree.add_node(make_node("n1", zone="a"))
    assert tree.list() == ["n1"]


def test_remove_node_and_empty_zone() -> None:
    tree = NodeTree([make_node("n1", zone="a"), make_node("n2", zone="b")])
    assert tree.remove_node("n1")
    assert not tree.remove_node("n1")
    assert tree.zones() == [":\x00:b"]
    assert tree.list() == ["n2"]


def test_update_node_moves_it_to_its_new_zone() -> None:
    tree = NodeTree([make_node(n, zone="a") for n in ("n1", "n2")] + [make_node("n3", zone="b")])
    assert not tree.update_node(make_node("n1", zone="a"))
    assert tree.update_node(make_node("n1", zone="b"))
    assert tree.list() == ["n2", "n3", "n1"]
    assert "n1" in tree and len(tree) == 3


def test_snapshot_lists_nodes_in_tree_order() -> None:
    cache = SchedulerCache()
    for name, zone in [("n1", "a"), ("n2", "a"), ("n3", "a"), ("n4", "a"), ("n5", "b")]:
        cache.add_node(make_node(name, zone=zone))
    cache.add_node(make_node("n6", zone="b"))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert [n.name for n in snapshot.node_info_list] == ["n1", "n5", "n2", "n6", "n3", "n4"]


def test_snapshot_order_follows_a_zone_change() -> None:
    cache = SchedulerCache()
    for name, zone in [("n1", "a"), ("n2", "a"), ("n3", "b")]:
        cache.add_node(make_node(name, zone=zone))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert [n.name for n in snapshot] == ["n1", "n3", "n2"]
    cache.update_node(make_node("n2", zone="a"), make_node("n2", zone="b"))
    cache.update_snapshot(snapshot)
    assert [n.name for n in snapshot] == ["n1", "n3", "n2"]
    cache.update_node(make_node("n1", zone="a"), make_node("n1", zone="b"))
    cache.update_snapshot(snapshot)
    # zone a is gone, zone b = [n3, n2, n1]
    assert [n.name for n in snapshot] == ["n3", "n2", "n1"]
    assert cache.node_order() == ["n3", "n2", "n1"]
