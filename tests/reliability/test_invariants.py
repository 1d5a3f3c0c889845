"""Invariants of the scheduler on the embedded cluster, checked after every step of a
hypothesis state machine (issue 18).

Rules create nodes, create pods (priorities, requests), delete pods (bound ones terminate
for their terminationGracePeriodSeconds), delete and cordon nodes, and advance virtual time
(until the scheduler is quiescent, or for at most N virtual seconds). After every step:

- the scheduler cache and the cluster agree on each node's pods (cache = bound + assumed),
  and no existing node holds more than its allocatable cpu, memory and pods;
- a pod is bound only to a node that exists, or to one deleted while the pod was already
  bound or assumed there (the API server does not unbind pods of a deleted node; the pod GC
  controller that would delete them is not modelled);
- every pending pod is in exactly one place of the queue (active, backoff, unschedulable
  pool, which also holds gated pods, or in flight), and the queue holds nothing else;
- an assumed pod is bound or forgotten at the next idle point (no Permit waits here);
- no pod is bound twice (its node never changes, one Scheduled event per pod).

Budget: `KUBESCHED_STATEFUL_EXAMPLES` (default 20) examples of up to
`KUBESCHED_STATEFUL_STEPS` (default 30) steps. See docs/reliability.md (## Invariants).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from _driver import Cluster
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from kubesched.api import Node, ObjectMeta, Pod
from kubesched.framework import NodeInfo
from kubesched.testing import make_node, make_pod
from kubesched_coscheduling import POD_GROUP_LABEL, PodGroup, PodGroupSpec

EXAMPLES = int(os.environ.get("KUBESCHED_STATEFUL_EXAMPLES", "20"))
STEPS = int(os.environ.get("KUBESCHED_STATEFUL_STEPS", "30"))
PERMIT_TIMEOUT = 10
"""Every PodGroup's scheduleTimeoutSeconds: the longest a pod may wait at Permit."""
OTHER_SCHEDULER = "other-scheduler"
"""A scheduler that is not running: its pods stay pending and out of the queue."""


class SchedulerInvariants(RuleBasedStateMachine):
    """The default profile (kubesched-builtin's plugins)."""

    CONFIG: ClassVar[dict[str, Any] | None] = None

    def __init__(self) -> None:
        super().__init__()
        self.c = Cluster(self.CONFIG)
        self.waiting_since: dict[str, tuple[object, float]] = {}
        """uid -> (its WaitingPod, when it was first seen waiting at Permit)."""
        self.seen_waiting = 0
        self.counter = 0
        self.deleted_nodes: dict[str, set[str]] = {}
        """Deleted node -> uids bound or assumed there when it was deleted."""
        self.created_nodes: set[str] = set()
        self.bound_to: dict[str, str] = {}
        """uid -> the node it was first seen bound to."""

    def teardown(self) -> None:
        bound = sum(1 for p in self._pods() if p.spec.node_name)
        pending = sum(1 for p in self._pods() if not p.spec.node_name)
        # coverage figures for --hypothesis-show-statistics (capped to keep them few)
        event(f"pods ever bound: {min(len(self.bound_to), 5)}")
        event(f"bound pods at the end: {min(bound, 5)}")
        event(f"pending pods at the end: {min(pending, 3)}")
        event(f"preemptions: {min(self._preempted(), 3)}")
        event(f"pods seen waiting at Permit: {min(self.seen_waiting, 3)}")
        self.c.close()

    def _preempted(self) -> int:
        return sum(1 for e in self.c.cluster.events() if e.reason == "Preempted")

    # -- helpers ------------------------------------------------------------------------
    def _name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def _nodes(self) -> list[Node]:
        return sorted(self.c.cluster.list("Node"), key=lambda n: n.metadata.name)

    def _pods(self) -> list[Pod]:
        return sorted(self.c.cluster.list("Pod"), key=lambda p: p.metadata.name)

    def _gated(self) -> list[Pod]:
        return [p for p in self._pods() if p.spec.scheduling_gates]

    # -- rules --------------------------------------------------------------------------
    @initialize(nodes=st.integers(1, 3))
    def start_with_nodes(self, nodes: int) -> None:
        """Most examples then have somewhere to bind from their first pod on."""
        for _ in range(nodes):
            self.create_node("4", "4Gi", 110)

    @rule(
        cpu=st.sampled_from(["1", "2", "4"]),
        memory=st.sampled_from(["1Gi", "4Gi"]),
        pods=st.sampled_from([2, 4, 110]),
    )
    def create_node(self, cpu: str, memory: str, pods: int) -> None:
        name = self._name("n")
        self.created_nodes.add(name)
        # the label every kubelet sets (local volumes' node affinity names it)
        node = make_node(name).label(**{"kubernetes.io/hostname": name})
        node = node.alloc(cpu=cpu, memory=memory, pods=pods).obj()
        self.c.do(self.c.cluster.create(node))

    @rule(
        cpu=st.sampled_from(["100m", "500m", "1", "2"]),
        memory=st.sampled_from(["128Mi", "1Gi", "3Gi"]),
        priority=st.sampled_from([0, 100, 1000]),
        grace=st.sampled_from([0, 5, 30]),
        gated=st.booleans(),
    )
    def create_pod(self, cpu: str, memory: str, priority: int, grace: int, gated: bool) -> None:
        pod = (
            make_pod(self._name("p"))
            .req(cpu=cpu, memory=memory)
            .priority(priority)
            .spec(terminationGracePeriodSeconds=grace)
        )
        if gated:
            pod.gates("example.com/hold")
        self.c.do(self.c.cluster.create(pod.obj()))

    @precondition(lambda self: bool(self._gated()))
    @rule(data=st.data())
    def ungate_pod(self, data: st.DataObject) -> None:
        pod = data.draw(st.sampled_from(self._gated()), label="pod")
        spec = pod.spec.model_copy(update={"scheduling_gates": []})
        self.c.do(self.c.cluster.update(pod.model_copy(update={"spec": spec})))

    @precondition(lambda self: bool(self.c.cluster.list("Pod")))
    @rule(data=st.data())
    def delete_pod(self, data: st.DataObject) -> None:
        pod = data.draw(st.sampled_from(self._pods()), label="pod")
        self.c.do(self.c.cluster.delete("Pod", pod.metadata.name, "default"))

    @precondition(lambda self: bool(self.c.cluster.list("Node")))
    @rule(data=st.data())
    def delete_node(self, data: st.DataObject) -> None:
        node = data.draw(st.sampled_from(self._nodes()), label="node")
        name = node.metadata.name
        there = {p.metadata.uid for p in self._pods() if p.spec.node_name == name}
        cached = self.c.scheduler.cache.dump().get(name)
        if cached is not None:
            there |= {p.pod.metadata.uid for p in cached.pods}
        self.deleted_nodes[name] = there
        self.c.do(self.c.cluster.delete("Node", name))

    @precondition(lambda self: bool(self.c.cluster.list("Node")))
    @rule(data=st.data(), unschedulable=st.booleans())
    def cordon_node(self, data: st.DataObject, unschedulable: bool) -> None:
        node = data.draw(st.sampled_from(self._nodes()), label="node")
        spec = node.spec.model_copy(update={"unschedulable": unschedulable})
        self.c.do(self.c.cluster.update(node.model_copy(update={"spec": spec})))

    @rule(seconds=st.sampled_from([0.0, 1.0, 10.0, 60.0, 400.0]))
    def advance(self, seconds: float) -> None:
        self.c.settle(seconds)

    # -- invariants ---------------------------------------------------------------------
    @invariant()
    def cache_agrees_with_cluster_and_fits(self) -> None:
        self.c.settle(0.0)  # deliver the step's events: an idle point of the loop
        dump = self.c.scheduler.cache.dump()
        assumed = self._check_assumed(dump)
        bound: dict[str, list[Pod]] = {}
        for pod in self._pods():
            if pod.spec.node_name:
                bound.setdefault(pod.spec.node_name, []).append(pod)
        for node_name, pods in assumed.items():
            bound.setdefault(node_name, []).extend(pods)
        names = set(bound) | {n for n, info in dump.items() if info.pods or info.node}
        for name in names:
            want = {p.metadata.uid for p in bound.get(name, [])}
            info = dump.get(name)
            got = set() if info is None else {p.pod.metadata.uid for p in info.pods}
            assert got == want, f"node {name}: cache {sorted(got)} != cluster {sorted(want)}"
        for node in self._nodes():
            info = NodeInfo(node)
            for pod in bound.get(node.metadata.name, []):
                info.add_pod(pod)
            cached = dump[node.metadata.name]
            assert cached.requested.milli_cpu == info.requested.milli_cpu
            assert cached.requested.memory == info.requested.memory
            a, r = info.allocatable, info.requested
            assert r.milli_cpu <= a.milli_cpu, f"{node.metadata.name}: cpu over allocatable"
            assert r.memory <= a.memory, f"{node.metadata.name}: memory over allocatable"
            assert len(info.pods) <= a.allowed_pod_number, f"{node.metadata.name}: pods"

    def _check_assumed(self, dump: dict[str, NodeInfo]) -> dict[str, list[Pod]]:
        """Assumed pods by node. At an idle point every binding cycle has run, so an
        assumed pod is one waiting at Permit, and no longer than its timeout."""
        cache, now = self.c.scheduler.cache, self.c.sim.clock.now()
        waiting = self._held()
        assumed: dict[str, list[Pod]] = {}
        for name, info in dump.items():
            for pi in info.pods:
                if cache.is_assumed_pod(pi.pod):
                    assumed.setdefault(name, []).append(pi.pod)
        uids = {p.metadata.uid for pods in assumed.values() for p in pods}
        assert uids == set(waiting), f"assumed {sorted(uids)} != waiting {sorted(waiting)}"
        self.waiting_since = {
            uid: (wp, self.waiting_since[uid][1])
            if uid in self.waiting_since and self.waiting_since[uid][0] is wp
            else (wp, now)
            for uid, wp in waiting.items()
        }
        self.seen_waiting += sum(1 for _, since in self.waiting_since.values() if since == now)
        for uid, (_, since) in self.waiting_since.items():
            limit = self._hold_limit(uid)
            assert now - since <= limit, f"{uid} assumed since {since}, now {now}"
        return assumed

    def _held(self) -> dict[str, object]:
        """The pods that may be assumed at an idle point (uid → what holds them, the same
        object while the same wait lasts): those waiting at Permit."""
        return {
            wp.pod.metadata.uid: wp
            for f in self.c.scheduler.profiles.values()
            for wp in f.waiting_pods
        }

    def _hold_limit(self, uid: str) -> float:
        """The longest a held pod may stay assumed: the Permit timeout."""
        return PERMIT_TIMEOUT

    def _binding(self) -> set[str]:
        """Pods past Permit whose binding cycle is still running at an idle point (out of
        the queue, as upstream's): none here, every binding cycle has run."""
        return set()

    @invariant()
    def bound_only_to_existing_nodes_and_once(self) -> None:
        existing = {n.metadata.name for n in self._nodes()}
        for pod in self._pods():
            uid, node = pod.metadata.uid, pod.spec.node_name
            if not node:
                continue
            assert self.bound_to.setdefault(uid, node) == node, f"{uid} bound twice"
            assert node in self.created_nodes, f"{uid} bound to unknown node {node}"
            if node not in existing:
                assert uid in self.deleted_nodes[node], f"{uid} bound to deleted node {node}"
        scheduled: dict[str, int] = {}
        for ev in self.c.cluster.events():
            if ev.reason == "Scheduled":
                scheduled[ev.involved_name] = scheduled.get(ev.involved_name, 0) + 1
        assert all(n == 1 for n in scheduled.values()), scheduled

    @invariant()
    def every_pending_pod_is_in_one_queue_place(self) -> None:
        queue = self.c.scheduler.queue
        places: dict[str, list[str]] = {}
        for place, infos in queue.pending_pods().items():
            for qpi in infos:
                places.setdefault(qpi.uid, []).append(place)
        for qpi in queue.in_flight_pods():
            places.setdefault(qpi.uid, []).append("in flight")
        pending = {
            p.metadata.uid
            for p in self._pods()
            if not p.spec.node_name and p.spec.scheduler_name != OTHER_SCHEDULER
        } - self._binding()
        for uid in pending:
            assert len(places.get(uid, [])) == 1, f"pending {uid} in {places.get(uid, [])}"
        stale = set(places) - pending
        assert not stale, f"queue holds pods that are not pending: {sorted(stale)}"


class GangInvariants(SchedulerInvariants):
    """scheduler-plugins' reference profile (Coscheduling the queueSort, with the default
    plugins) and gangs: besides the invariants above, no gang is bound below minMember."""

    CONFIG: ClassVar[dict[str, Any] | None] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                    "queueSort": {
                        "enabled": [{"name": "Coscheduling"}],
                        "disabled": [{"name": "*"}],
                    },
                },
            }
        ],
    }

    def __init__(self) -> None:
        super().__init__()
        self.groups: dict[str, int] = {}
        """PodGroup name -> minMember."""
        self.ever_bound: dict[str, set[str]] = {}
        """PodGroup name -> uids of its members seen bound."""

    @rule(
        members=st.integers(1, 4),
        min_member=st.integers(1, 3),
        cpu=st.sampled_from(["500m", "1", "2"]),
        priority=st.sampled_from([0, 1000]),
        foreign=st.booleans(),
    )
    def create_gang(
        self, members: int, min_member: int, cpu: str, priority: int, foreign: bool
    ) -> None:
        """A gang of `members` pods; with `foreign`, the last one is another scheduler's,
        so a quorum that needs it never comes and its siblings wait at Permit until the
        timeout."""
        group = self._name("g")
        self.groups[group] = min_member
        spec = PodGroupSpec(min_member=min_member, schedule_timeout_seconds=PERMIT_TIMEOUT)
        pod_group = PodGroup(metadata=ObjectMeta(name=group, namespace="default"), spec=spec)
        self.c.do(self.c.cluster.create(pod_group))
        for i in range(members):
            member = (
                make_pod(f"{group}-{i}")
                .label(**{POD_GROUP_LABEL: group})
                .req(cpu=cpu, memory="128Mi")
                .priority(priority)
            )
            if foreign and i == members - 1:
                member.scheduler(OTHER_SCHEDULER)
            self.c.do(self.c.cluster.create(member.obj()))

    @invariant()
    def no_gang_bound_below_min_member(self) -> None:
        for pod in self._pods():
            group = pod.metadata.labels.get(POD_GROUP_LABEL)
            if group and pod.spec.node_name:
                self.ever_bound.setdefault(group, set()).add(pod.metadata.uid)
        for group, uids in self.ever_bound.items():
            assert len(uids) >= self.groups[group], f"gang {group}: {len(uids)} bound"


for _machine in (SchedulerInvariants, GangInvariants):
    _machine.TestCase.settings = settings(
        max_examples=EXAMPLES,
        stateful_step_count=STEPS,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
TestSchedulerInvariants = SchedulerInvariants.TestCase
TestGangInvariants = GangInvariants.TestCase
