"""Invariants under random sequences of informer events and assume/forget decisions.

After any sequence, the incrementally updated snapshot equals one built from scratch, and
each node's requested resources equal the sum of its pods' requests recomputed from the pods.
"""

from __future__ import annotations

from cache_builders import make_node, make_pod
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kubesched.api import pod_requests
from kubesched.cache import SchedulerCache
from kubesched.framework import NodeInfo, Resource, Snapshot

NODES = ["n0", "n1", "n2", "n3"]
ZONES = ["a", "b"]
UIDS = [f"p{i}" for i in range(6)]
CPUS = ["100m", "250m", "1", "2"]

node_names = st.sampled_from(NODES)
uids = st.sampled_from(UIDS)
cpus = st.sampled_from(CPUS)


def _recomputed(info: NodeInfo) -> Resource:
    total = Resource()
    for pod_info in info.pods:
        total.add(pod_requests(pod_info.pod))
    return total


def _content(snapshot: Snapshot) -> list[tuple[str, list[str], Resource]]:
    return [(n.name, sorted(p.uid for p in n.pods), n.requested) for n in snapshot.node_info_list]


class CacheMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.cache = SchedulerCache()
        self.snapshot = Snapshot()
        self.nodes: dict[str, str] = {}  # name -> zone
        self.pods: dict[str, tuple[str, str]] = {}  # uid -> (node, cpu)
        self.assumed: set[str] = set()

    @rule(name=node_names, zone=st.sampled_from(ZONES), cpu=st.sampled_from(["4", "8"]))
    def add_or_update_node(self, name: str, zone: str, cpu: str) -> None:
        node = make_node(name, zone=zone, cpu=cpu)
        if name in self.nodes:
            self.cache.update_node(make_node(name, zone=self.nodes[name]), node)
        else:
            self.cache.add_node(node)
        self.nodes[name] = zone

    @rule(name=node_names)
    def remove_node(self, name: str) -> None:
        if name in self.nodes:
            self.cache.remove_node(make_node(name, zone=self.nodes.pop(name)))

    @rule(uid=uids, node=node_names, cpu=cpus)
    def add_pod(self, uid: str, node: str, cpu: str) -> None:
        if uid not in self.pods:
            self.cache.add_pod(make_pod(uid, uid=uid, node=node, cpu=cpu))
            self.pods[uid] = (node, cpu)

    @rule(uid=uids, node=node_names, cpu=cpus)
    def assume_pod(self, uid: str, node: str, cpu: str) -> None:
        if uid not in self.pods:
            self.cache.assume_pod(make_pod(uid, uid=uid, node=node, cpu=cpu))
            self.pods[uid] = (node, cpu)
            self.assumed.add(uid)

    @precondition(lambda self: bool(self.assumed))
    @rule(data=st.data())
    def forget_pod(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(sorted(self.assumed)))
        node, cpu = self.pods.pop(uid)
        self.assumed.discard(uid)
        self.cache.forget_pod(make_pod(uid, uid=uid, node=node, cpu=cpu))

    @precondition(lambda self: bool(self.assumed))
    @rule(data=st.data(), node=node_names)
    def confirm_pod(self, data: st.DataObject, node: str) -> None:
        # the informer sees the pod bound, possibly to another node than assumed
        uid = data.draw(st.sampled_from(sorted(self.assumed)))
        _, cpu = self.pods[uid]
        self.cache.add_pod(make_pod(uid, uid=uid, node=node, cpu=cpu))
        self.pods[uid] = (node, cpu)
        self.assumed.discard(uid)
        assert not self.cache.is_assumed_pod(make_pod(uid, uid=uid))

    @precondition(lambda self: bool(self.pods))
    @rule(data=st.data(), cpu=cpus)
    def update_pod(self, data: st.DataObject, cpu: str) -> None:
        uid = data.draw(st.sampled_from(sorted(set(self.pods) - self.assumed) or [""]))
        if not uid:
            return
        node, old_cpu = self.pods[uid]
        self.cache.update_pod(
            make_pod(uid, uid=uid, node=node, cpu=old_cpu),
            make_pod(uid, uid=uid, node=node, cpu=cpu),
        )
        self.pods[uid] = (node, cpu)

    @precondition(lambda self: bool(self.pods))
    @rule(data=st.data())
    def remove_pod(self, data: st.DataObject) -> None:
        uid = data.draw(st.sampled_from(sorted(self.pods)))
        node, cpu = self.pods.pop(uid)
        self.assumed.discard(uid)
        self.cache.remove_pod(make_pod(uid, uid=uid, node=node, cpu=cpu))

    @rule()
    def update_snapshot(self) -> None:
        self.cache.update_snapshot(self.snapshot)
        fresh = Snapshot()
        self.cache.update_snapshot(fresh)
        assert _content(self.snapshot) == _content(fresh)
        assert [n.name for n in self.snapshot] == self.cache.node_order()
        assert set(self.snapshot.node_info_map) == set(self.nodes)
        for info in self.snapshot.node_info_list:
            assert self.snapshot.node_info_map[info.name] is info
            assert info.requested == _recomputed(info)
            expected = sorted(uid for uid, (node, _) in self.pods.items() if node == info.name)
            assert sorted(p.uid for p in info.pods) == expected

    @invariant()
    def cache_matches_model(self) -> None:
        dump = self.cache.dump()
        occupied = {node for node, _ in self.pods.values()}
        assert set(dump) == set(self.nodes) | occupied
        for name, info in dump.items():
            assert info.requested == _recomputed(info)
            assert (info.node is not None) == (name in self.nodes)
        assert self.cache.pod_count() == len(self.pods)
        for uid in UIDS:
            assert self.cache.is_assumed_pod(make_pod(uid, uid=uid)) == (uid in self.assumed)


CacheMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
test_cache_state_machine = CacheMachine.TestCase
