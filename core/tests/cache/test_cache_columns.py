"""The snapshot's columns and derived node lists, kept across cycles and patched per node.

After any sequence of informer events, assume/forget decisions and snapshot updates, the
columns of the incrementally updated snapshot equal a fresh gather from its NodeInfos, and
`have_pods_with_(required_anti_)affinity` equal a fresh computation, element by element
(the same NodeInfo objects, in node-list order).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from kubesched.api import (
    Node,
    Pod,
)
from kubesched.cache import LABEL_TOPOLOGY_ZONE, SchedulerCache
from kubesched.framework import NodeColumns, NodeInfo, Snapshot
from kubesched.framework._node_columns import TaintKey
from kubesched.testing import make_node, make_pod

NODES = ["n0", "n1", "n2", "n3", "n4"]
ZONES = ["a", "b", None]
UIDS = [f"p{i}" for i in range(8)]
GPU = "example.com/gpu"
RACK = "rack"
TAINTS = [
    (),
    (("gpu", "", "NoSchedule"),),
    (("a", "x", "PreferNoSchedule"), ("b", "", "NoExecute")),
]
IMAGES = [{}, {"nginx:1": 100}, {"nginx:1": 100, "redis:7": 200}]

node_names = st.sampled_from(NODES)
uids = st.sampled_from(UIDS)


@dataclass(frozen=True)
class NodeShape:
    zone: str | None = "a"
    rack: str | None = None
    cpu: str = "8"  # "1000000000000000000" (1e18 cores) overflows int64 in millicores
    gpu: str | None = None
    unschedulable: bool = False
    taints: TaintKey = ()
    images: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class PodShape:
    cpu: str = "1"
    gpu: str | None = None
    port: int = 0
    affinity: str | None = None  # "affinity" or "anti"


node_shapes = st.builds(
    NodeShape,
    zone=st.sampled_from(ZONES),
    rack=st.sampled_from(["r1", "r2", None]),
    cpu=st.sampled_from(["4", "8", "1000000000000000000"]),
    gpu=st.sampled_from([None, "2"]),
    unschedulable=st.booleans(),
    taints=st.sampled_from(TAINTS),
    images=st.sampled_from(IMAGES),
)
pod_shapes = st.builds(
    PodShape,
    cpu=st.sampled_from(["100m", "1", "3"]),
    gpu=st.sampled_from([None, "1"]),
    port=st.sampled_from([0, 8080]),
    affinity=st.sampled_from([None, "affinity", "anti"]),
)


def _node(name: str, shape: NodeShape) -> Node:
    node = make_node(name).label(**{"kubernetes.io/hostname": name})
    if shape.zone is not None:
        node.label(**{LABEL_TOPOLOGY_ZONE: shape.zone})
    if shape.rack is not None:
        node.label(**{RACK: shape.rack})
    node.alloc(cpu=shape.cpu, memory="16Gi", pods="110")
    if shape.gpu is not None:
        node.alloc({GPU: shape.gpu})
    node.unschedulable(shape.unschedulable)
    for key, value, effect in shape.taints:
        node.taint(key, value, effect)
    for image, size in shape.images.items():
        node.image(image, size=size)
    return node.obj()


def _pod(uid: str, node: str, shape: PodShape) -> Pod:
    requests = {"cpu": shape.cpu}
    if shape.gpu is not None:
        requests[GPU] = shape.gpu
    term = {
        "labelSelector": {"matchLabels": {"app": uid}},
        "topologyKey": "kubernetes.io/hostname",
    }
    required = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    pod = make_pod(uid, uid=uid).label(app=uid).node(node)
    if shape.affinity == "affinity":
        pod.spec(affinity={"podAffinity": required})
    elif shape.affinity == "anti":
        pod.spec(affinity={"podAntiAffinity": required})
    ports = [{"containerPort": 80, "hostPort": shape.port}] if shape.port else []
    resources = {"requests": requests}
    return pod.container(name="c", image="nginx:1", ports=ports, resources=resources).obj()


def _ints(values: list[int]) -> list[int]:
    """What an int64 column holds for these amounts (saturated outside int64)."""
    bound = 2**63 - 1
    return [max(-bound, min(bound, v)) for v in values]


def assert_columns_match(snapshot: Snapshot) -> None:
    """The snapshot's columns equal a fresh gather from its NodeInfos."""
    infos = snapshot.node_info_list
    columns = snapshot.columns
    assert columns.names == [n.name for n in infos]
    assert columns.index == {n.name: i for i, n in enumerate(infos)}
    resources: set[str] = {"cpu", "memory", "ephemeral-storage", "pods"}
    for n in infos:
        resources |= set(n.allocatable.scalar) | set(n.requested.scalar)
    assert resources <= set(columns.allocatable)
    for r in columns.allocatable:
        assert columns.allocatable[r].tolist() == _ints([n.allocatable.get(r) for n in infos]), r
        assert columns.requested[r].tolist() == _ints([n.requested.get(r) for n in infos]), r
        assert columns.non_zero_requested[r].tolist() == _ints(
            [n.non_zero_requested.get(r) for n in infos]
        ), r
    big = any(abs(n.allocatable.get(r)) >= 2**63 for n in infos for r in columns.allocatable)
    if big:
        assert not columns.exact
    assert columns.pod_count.tolist() == [len(n.pods) for n in infos]
    assert columns.generation.tolist() == [n.generation for n in infos]
    assert columns.unschedulable.tolist() == [
        n.node is not None and n.node.spec.unschedulable for n in infos
    ]
    assert [columns.taint_sets[i] for i in columns.taint_set] == [
        tuple((t.key, t.value, t.effect) for t in n.node.spec.taints) if n.node else ()
        for n in infos
    ]
    assert [columns.image_sets[i] for i in columns.image_set] == [
        frozenset(n.image_states) for n in infos
    ]
    assert columns.has_host_ports.tolist() == [len(n.used_ports) > 0 for n in infos]
    assert columns.with_affinity.tolist() == [bool(n.pods_with_affinity) for n in infos]
    assert columns.with_required_anti_affinity.tolist() == [
        bool(n.pods_with_required_anti_affinity) for n in infos
    ]
    for key in (LABEL_TOPOLOGY_ZONE, RACK):
        values = columns.domain_values(key)
        ids = columns.domain_ids(key).tolist()
        assert [values[i] if i >= 0 else None for i in ids] == [
            n.node.metadata.labels.get(key) if n.node else None for n in infos
        ]
        # equal values share an id
        assert len(set(values)) == len(values)
    positions = columns.positions(infos)
    assert positions is not None
    assert positions.tolist() == list(range(len(infos)))
    if infos:
        assert columns.positions([infos[0].clone()]) is None


def assert_lists_match(snapshot: Snapshot) -> None:
    """The derived lists hold the snapshot's own NodeInfos, in node-list order."""
    infos = snapshot.node_info_list
    want = [id(n) for n in infos if n.pods_with_affinity]
    assert [id(n) for n in snapshot.have_pods_with_affinity] == want
    want = [id(n) for n in infos if n.pods_with_required_anti_affinity]
    assert [id(n) for n in snapshot.have_pods_with_required_anti_affinity] == want


class ColumnsMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.cache = SchedulerCache()
        self.snapshot = Snapshot()
        self.nodes: dict[str, Node] = {}
        self.pods: dict[str, Pod] = {}
        self.assumed: set[str] = set()

    @rule(name=node_names, shape=node_shapes)
    def add_or_update_node(self, name: str, shape: NodeShape) -> None:
        node = _node(name, shape)
        if name in self.nodes:
            self.cache.update_node(self.nodes[name], node)
        else:
            self.cache.add_node(node)
        self.nodes[name] = node

    @rule(name=node_names)
    def remove_node(self, name: str) -> None:
        if name in self.nodes:
            self.cache.remove_node(self.nodes.pop(name))

    @rule(uid=uids, node=node_names, shape=pod_shapes, assumed=st.booleans())
    def add_pod(self, uid: str, node: str, shape: PodShape, assumed: bool) -> None:
        if uid in self.pods:
            return
        pod = _pod(uid, node, shape)
        if assumed:
            self.cache.assume_pod(pod)
            self.assumed.add(uid)
        else:
            self.cache.add_pod(pod)
        self.pods[uid] = pod

    @precondition(lambda self: bool(self.assumed))
    @rule(data=st.data())
    def forget_pod(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(sorted(self.assumed)))
        self.assumed.discard(uid)
        self.cache.forget_pod(self.pods.pop(uid))

    @precondition(lambda self: bool(self.assumed))
    @rule(data=st.data(), node=node_names)
    def confirm_pod(self, data: st.DataObject, node: str) -> None:
        uid = data.draw(st.sampled_from(sorted(self.assumed)))
        pod = self.pods[uid].model_copy(deep=True)
        pod.spec.node_name = node
        self.cache.add_pod(pod)
        self.pods[uid] = pod
        self.assumed.discard(uid)

    @precondition(lambda self: bool(set(self.pods) - self.assumed))
    @rule(data=st.data(), shape=pod_shapes)
    def update_pod(self, data: st.DataObject, shape: PodShape) -> None:
        uid = data.draw(st.sampled_from(sorted(set(self.pods) - self.assumed)))
        old = self.pods[uid]
        new = _pod(uid, old.spec.node_name, shape)
        self.cache.update_pod(old, new)
        self.pods[uid] = new

    @precondition(lambda self: bool(self.pods))
    @rule(data=st.data())
    def remove_pod(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(sorted(self.pods)))
        self.assumed.discard(uid)
        self.cache.remove_pod(self.pods.pop(uid))

    @rule(use_columns=st.booleans(), use_lists=st.booleans())
    def update_snapshot(self, use_columns: bool, use_lists: bool) -> None:
        """A cycle: the snapshot is brought up to date; what a cycle reads of it (columns,
        lists, or neither, so that later patches start from either state) is checked."""
        self.cache.update_snapshot(self.snapshot)
        if use_columns:
            assert_columns_match(self.snapshot)
        if use_lists:
            assert_lists_match(self.snapshot)

    @rule()
    def fresh_snapshot_agrees(self) -> None:
        self.cache.update_snapshot(self.snapshot)
        fresh = Snapshot()
        self.cache.update_snapshot(fresh)
        assert_columns_match(fresh)
        assert_lists_match(fresh)
        assert_columns_match(self.snapshot)
        assert_lists_match(self.snapshot)


ColumnsMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
test_columns_state_machine = ColumnsMachine.TestCase


def test_lists_and_columns_are_kept_while_no_affected_node_changes() -> None:
    """A cycle that changes only nodes without (anti-)affinity pods keeps the derived lists
    (the same list objects) and patches the columns rather than gathering them anew."""
    cache = SchedulerCache()
    for name in NODES:
        cache.add_node(_node(name, NodeShape()))
    plain = PodShape()
    cache.add_pod(_pod("p0", "n0", PodShape(affinity="anti")))
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    with_affinity = snapshot.have_pods_with_affinity
    with_anti = snapshot.have_pods_with_required_anti_affinity
    columns = snapshot.columns
    assert [n.name for n in with_anti] == ["n0"]

    cache.assume_pod(_pod("p1", "n3", plain))
    cache.update_snapshot(snapshot)
    assert snapshot.have_pods_with_affinity is with_affinity
    assert snapshot.have_pods_with_required_anti_affinity is with_anti
    assert snapshot.columns is columns
    assert columns.requested["cpu"][columns.index["n3"]] == 1000
    assert_lists_match(snapshot)

    cache.assume_pod(_pod("p2", "n2", PodShape(affinity="anti")))
    cache.update_snapshot(snapshot)
    assert snapshot.columns is columns
    assert [n.name for n in snapshot.have_pods_with_required_anti_affinity] == ["n0", "n2"]
    assert_lists_match(snapshot)
    assert_columns_match(snapshot)


def test_columns_of_a_plain_node_list() -> None:
    """`NodeColumns.build` gathers any list of node infos (the kit's contracts use it)."""
    shape = NodeShape(rack="r1", gpu="2", unschedulable=True, taints=TAINTS[1])
    infos = [
        NodeInfo(_node("x", shape)),
        NodeInfo(_node("y", NodeShape(rack="r2", taints=TAINTS[2]))),
        NodeInfo(_node("z", shape)),
    ]
    columns = NodeColumns.build(infos)
    assert columns.allocatable[GPU].tolist() == [2, 0, 2]
    assert columns.taint_set.tolist() == [0, 1, 0]
    assert columns.taint_sets == [TAINTS[1], TAINTS[2]]
    assert columns.unschedulable.tolist() == [True, False, True]
    assert np.array_equal(columns.domain_ids(RACK), [0, 1, 0])
    assert columns.domain_values(RACK) == ["r1", "r2"]
    assert columns.exact
    assert not NodeColumns.build([NodeInfo(_node("w", NodeShape(cpu="1e18")))]).exact
