"""ImageLocality, from upstream imagelocality/image_locality_test.go (v1.34):
TestImageLocalityPriority (TestNormalizedImageName is in core/tests/api, with the function)."""

from __future__ import annotations

import pytest
from fakes import fake_handle
from hypothesis import given
from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.cache import ImageStates
from kubesched.framework import CycleState, NoArgs, NodeInfo, Snapshot, is_success
from kubesched.testing import make_node, make_pod
from kubesched_builtin.imagelocality import (
    MAX_CONTAINER_THRESHOLD,
    MIN_THRESHOLD,
    ImageLocality,
    calculate_priority,
)

MB = 1024 * 1024


def image_node(name: str, *images: tuple[list[str], int]) -> Node:
    """A node holding images given as (names, size in MB)."""
    node = make_node(name)
    for names, mb in images:
        node.image(*names, size=mb * MB)
    return node.obj()


def pod_spec(*images: str, init: tuple[str, ...] = ()) -> Pod:
    """Pod "p" whose containers (named c0, c1, ...) run these images."""
    pod = make_pod("p", namespace=None, uid="").no_containers()
    for image in images:
        pod.container(image=image)
    if init:
        pod.spec(initContainers=[{"name": f"i{i}", "image": im} for i, im in enumerate(init)])
    return pod.obj()


def snapshot_of(nodes: list[Node]) -> Snapshot:
    """NodeInfos with image states as the scheduler cache computes them."""
    images = ImageStates()
    infos = []
    for node in nodes:
        info = NodeInfo(node)
        info.image_states = images.add_node(node)
        infos.append(info)
    return Snapshot(infos)


NODE_40_300_2000 = (
    (["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40),
    (["gcr.io/300:latest", "gcr.io/300:v1"], 300),
    (["gcr.io/2000:latest"], 2000),
)
NODE_250_10 = ((["gcr.io/250:latest"], 250), (["gcr.io/10:latest", "gcr.io/10:v1"], 10))
NODE_600_40_900 = (
    (["gcr.io/600:latest"], 600),
    (["gcr.io/40:latest"], 40),
    (["gcr.io/900:latest"], 900),
)
NODE_300_600_900 = (
    (["gcr.io/300:latest"], 300),
    (["gcr.io/600:latest"], 600),
    (["gcr.io/900:latest"], 900),
)
NODE_4000_30 = ((["gcr.io/4000:latest"], 4000), (["gcr.io/30:latest"], 30))
NODE_20_30_40 = (
    (["gcr.io/20:latest"], 20),
    (["gcr.io/30:latest"], 30),
    (["gcr.io/40:latest"], 40),
)

CASES = [
    pytest.param(
        pod_spec("gcr.io/40", "gcr.io/250"),
        [image_node("node1", *NODE_40_300_2000), image_node("node2", *NODE_250_10)],
        [0, 5],
        id="two images spread on two nodes, prefer the larger image one",
    ),
    pytest.param(
        pod_spec("gcr.io/40", "gcr.io/300"),
        [image_node("node1", *NODE_40_300_2000), image_node("node2", *NODE_250_10)],
        [7, 0],
        id="two images on one node, prefer this node",
    ),
    pytest.param(
        pod_spec("gcr.io/10", "gcr.io/4000"),
        [image_node("node1", *NODE_4000_30), image_node("node2", *NODE_250_10)],
        [100, 0],
        id="if exceed limit, use limit",
    ),
    pytest.param(
        pod_spec("gcr.io/10", "gcr.io/4000"),
        [
            image_node("node1", *NODE_4000_30),
            image_node("node2", *NODE_250_10),
            image_node("node3"),
        ],
        [66, 0, 0],
        id="if exceed limit, use limit (with node which has no images present)",
    ),
    pytest.param(
        pod_spec("gcr.io/300", "gcr.io/600", "gcr.io/900"),
        [
            image_node("node1", *NODE_600_40_900),
            image_node("node2", *NODE_300_600_900),
            image_node("node3"),
        ],
        [32, 36, 0],
        id="pod with multiple large images, node2 is preferred",
    ),
    pytest.param(
        pod_spec("gcr.io/30", "gcr.io/40"),
        [image_node("node1", *NODE_20_30_40), image_node("node2", *NODE_4000_30)],
        [1, 0],
        id="pod with multiple small images",
    ),
    pytest.param(
        pod_spec("gcr.io/30", init=("gcr.io/300",)),
        [image_node("node1", *NODE_40_300_2000), image_node("node2", *NODE_20_30_40)],
        [6, 0],
        id="include InitContainers: two images spread on two nodes, prefer the larger image one",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "want"), CASES)
def test_image_locality_priority(pod: Pod, nodes: list[Node], want: list[int]) -> None:
    snapshot = snapshot_of(nodes)
    plugin = ImageLocality(NoArgs(), fake_handle(snapshot=snapshot))
    got = []
    for info in snapshot.list():
        score, status = plugin.score(CycleState(), pod, info)
        assert is_success(status)
        got.append(score)
    assert got == want


def test_spread_counts_every_node_of_the_snapshot() -> None:
    # the same 500 MiB image on 1 of 2 nodes gives 23; on both nodes 48 each
    pod = pod_spec("app:1")
    one = snapshot_of([image_node("a", (["app:1"], 500)), image_node("b")])
    both = snapshot_of([image_node("a", (["app:1"], 500)), image_node("b", (["app:1"], 500))])
    for snapshot, want in ((one, [23, 0]), (both, [48, 48])):
        plugin = ImageLocality(NoArgs(), fake_handle(snapshot=snapshot))
        assert [plugin.score(CycleState(), pod, i)[0] for i in snapshot.list()] == want


@given(st.integers(0, 10**13), st.integers(0, 20))
def test_calculate_priority_in_range(total: int, containers: int) -> None:
    score = calculate_priority(total, containers)
    assert 0 <= score <= 100
    if containers and total >= MAX_CONTAINER_THRESHOLD * containers:
        assert score == 100
    if total <= MIN_THRESHOLD:
        assert score == 0
