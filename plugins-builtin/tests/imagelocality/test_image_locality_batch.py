"""ImageLocality's batch Score (`score_nodes`) equals its Score node by node: on the inputs of
upstream's TestImageLocalityPriority (and gives its results), on generated images, nodes
and pods (init and app containers, repeated images, scored subsets of the snapshot), and
in failing the same way (an empty snapshot)."""

from __future__ import annotations

import pytest
from fakes import fake_handle
from hypothesis import given, settings
from hypothesis import strategies as st
from test_image_locality import CASES, image_node, pod_spec, snapshot_of

from kubesched.api import Node, Pod
from kubesched.framework import CycleState, NoArgs, Snapshot
from kubesched.testing import batch_score_mismatch
from kubesched_builtin.imagelocality import ImageLocality


@pytest.mark.parametrize(("pod", "nodes", "want"), CASES)
def test_batch_score_on_upstream_table(pod: Pod, nodes: list[Node], want: list[int]) -> None:
    snapshot = snapshot_of(nodes)
    plugin = ImageLocality(NoArgs(), fake_handle(snapshot=snapshot))
    infos = snapshot.list()
    assert plugin.score_nodes(CycleState(), pod, infos) == (want, None)
    assert batch_score_mismatch(plugin, CycleState(), pod, infos[::-1]) is None


def test_an_empty_snapshot_fails_as_score_does() -> None:
    nodes = snapshot_of([image_node("a", (["app:1"], 500))]).list()
    plugin = ImageLocality(NoArgs(), fake_handle(snapshot=Snapshot()))
    for infos in (nodes, []):
        assert batch_score_mismatch(plugin, CycleState(), pod_spec("app:1"), infos) is None
    _, status = plugin.score_nodes(CycleState(), pod_spec("app:1"), nodes)
    assert status is not None and status.message() == "no nodes in the snapshot"


IMAGES = ["app:1", "app", "db:2", "gcr.io/big:latest", "gcr.io/big"]
_SIZES_MB = st.sampled_from([1, 23, 24, 250, 999, 1000, 1001, 4000])


@st.composite
def clusters(draw: st.DrawFn) -> tuple[Pod, list[Node], int]:
    nodes = []
    for i in range(draw(st.integers(1, 6))):
        held = draw(st.lists(st.sampled_from(IMAGES), unique=True, max_size=3))
        nodes.append(image_node(f"n{i}", *(([name], draw(_SIZES_MB)) for name in held)))
    app = draw(st.lists(st.sampled_from(IMAGES), min_size=1, max_size=3))
    init = draw(st.lists(st.sampled_from(IMAGES), max_size=2))
    scored = draw(st.integers(1, len(nodes)))
    return pod_spec(*app, init=tuple(init)), nodes, scored


@settings(max_examples=200, deadline=None)
@given(drawn=clusters())
def test_batch_score_equals_per_node_score(drawn: tuple[Pod, list[Node], int]) -> None:
    pod, nodes, scored = drawn
    snapshot = snapshot_of(nodes)
    plugin = ImageLocality(NoArgs(), fake_handle(snapshot=snapshot))
    # Score sees the feasible nodes; the spread counts every node of the snapshot
    assert batch_score_mismatch(plugin, CycleState(), pod, snapshot.list()[:scored]) is None
