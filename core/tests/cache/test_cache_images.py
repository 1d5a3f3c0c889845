"""Image states: per image, its size and how many nodes hold it (for ImageLocality).

Follows upstream's TestNodeOperators / TestSchedulerCache_UpdateSnapshot image cases
(pkg/scheduler/backend/cache/cache_test.go); image names are normalised as
kubesched.api.normalized_image_name says (core/tests/api/test_names_and_durations.py).
"""

from __future__ import annotations

from cache_builders import make_node

from kubesched.cache import SchedulerCache
from kubesched.framework import Snapshot


def test_counts_follow_node_add_update_remove() -> None:
    cache = SchedulerCache()
    cache.add_node(make_node("n1", images={"nginx,nginx:1.25": 100, "redis:7": 50}))
    cache.add_node(make_node("n2", images={"nginx:latest": 999}))
    state = cache.image_state("nginx")
    assert state is not None and (state.size, state.num_nodes) == (100, 2)  # first size kept
    assert cache.image_state("nginx:1.25") is not None
    assert cache.image_state("nginx:1.25").num_nodes == 1  # type: ignore[union-attr]

    cache.update_node(make_node("n1"), make_node("n1", images={"redis:7": 50}))
    assert cache.image_state("nginx:latest").num_nodes == 1  # type: ignore[union-attr]
    assert cache.image_state("nginx:1.25") is None

    cache.remove_node(make_node("n2"))
    assert cache.image_state("nginx") is None
    assert cache.image_state("redis:7").num_nodes == 1  # type: ignore[union-attr]


def test_snapshot_image_states_are_frozen_copies() -> None:
    cache = SchedulerCache()
    cache.add_node(make_node("n1", images={"nginx": 100}))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    summary = snapshot.node_info_map["n1"].image_states["nginx:latest"]
    assert (summary.size, summary.num_nodes) == (100, 1)
    cache.add_node(make_node("n2", images={"nginx": 100}))
    assert summary.num_nodes == 1  # the cycle's view does not move
    cache.update_snapshot(snapshot)
    assert snapshot.node_info_map["n2"].image_states["nginx:latest"].num_nodes == 2
    assert cache.dump()["n1"].image_states["nginx:latest"].num_nodes == 2
