"""The invariants of test_invariants, with volumes and a fault plan firing at random
(issue 18): binds answering 409 and 500, VolumeBinding failing at Reserve and its PreBind
timing out, NodeResourcesFit failing at Filter, claims and volumes deleted between Reserve
and binding, watch events duplicated and informers relisting mid-cycle, every one seeded
by the example. After every step, besides the invariants of SchedulerInvariants:

- an assumed pod is one waiting at Permit (at most 10 s) or one in PreBind (at most
  VolumeBinding's bind timeout, 600 s; out of the queue, in its binding cycle);
- every Reserve that did not bind was unreserved: the plan's Reserve ledger holds only
  pods still assumed (none, at an idle point of the default profile);
- no volume is allocated twice: no two PersistentVolumes name the same claim, no two
  claims the same volume, and a claim's volume names that claim back.

Dropped and delayed watch events are left out: they make the cache disagree with the
cluster on purpose until a relist (test_faults pins them). Deleting a node between Reserve
and binding is the delete_node rule's case (and test_faults'). Budget as test_invariants.
"""

from __future__ import annotations

from typing import Any, ClassVar

from _driver import Cluster
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule
from test_invariants import EXAMPLES, STEPS, SchedulerInvariants

from kubesched.simulate._faults import FaultPlan, parse_fault_plan
from kubesched.simulate._faults_inject import FaultInjector
from kubesched.testing import make_pod
from kubesched_volumebinding.storage import (
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)

PLAN = parse_fault_plan(
    {
        "apiVersion": "simulation.kubesched.io/v1alpha1",
        "kind": "FaultPlan",
        "metadata": {"name": "invariants"},
        "faults": [
            {"bindError": {"reason": "Conflict"}, "probability": 0.1},
            {"bindError": {"reason": "InternalError"}, "probability": 0.1},
            {
                "pluginError": {"plugin": "VolumeBinding", "extensionPoint": "Reserve"},
                "probability": 0.1,
            },
            {
                "pluginError": {"plugin": "NodeResourcesFit", "extensionPoint": "Filter"},
                "probability": 0.02,
            },
            {"preBindTimeout": {"plugin": "VolumeBinding", "after": "10s"}, "probability": 0.1},
            {"deleteBeforeBind": {"kind": "PersistentVolumeClaim"}, "probability": 0.05},
            {"deleteBeforeBind": {"kind": "PersistentVolume"}, "probability": 0.05},
            {"watch": {"kind": "Pod", "action": "Duplicate"}, "probability": 0.2},
            {"watch": {"kind": "Node", "action": "Duplicate"}, "probability": 0.2},
            {"watch": {"kind": "PersistentVolume", "action": "Duplicate"}, "probability": 0.2},
            {"relist": {"kinds": ["Pod", "Node"], "extensionPoint": "Reserve"}, "probability": 0.1},
            {
                "relist": {
                    "kinds": ["PersistentVolume", "PersistentVolumeClaim"],
                    "extensionPoint": "PreFilter",
                },
                "probability": 0.1,
            },
        ],
    },
    "invariants plan",
)

BIND_TIMEOUT = 600
"""VolumeBinding's bindTimeoutSeconds default: the longest its PreBind waits."""

STORAGE_CLASS = StorageClass.model_validate(
    {
        "metadata": {"name": "local"},
        "provisioner": "kubernetes.io/no-provisioner",
        "volumeBindingMode": "WaitForFirstConsumer",
    }
)


class PlanInvariants(SchedulerInvariants):
    """The default profile with `PLAN` firing at random, seeded by the example: pods in
    PreBind are held as Permit waiters are, and the Reserve ledger invariant (7)."""

    PLAN: ClassVar[FaultPlan]

    def __init__(self) -> None:
        super().__init__()
        self.c.close()
        self.c = Cluster(self.CONFIG, self.PLAN)

    @property
    def injector(self) -> FaultInjector:
        injector = self.c.sim.injector
        assert injector is not None
        return injector

    def teardown(self) -> None:
        for kind, count in sorted(self.injector.by_kind().items()):
            event(f"faults fired: {kind} {min(count, 5)}")
        super().teardown()

    @initialize(seed=st.integers(0, 2**32 - 1))
    def seed_the_plan(self, seed: int) -> None:
        self.injector.rng.seed(seed)

    def _held(self) -> dict[str, object]:
        """Also the pods in PreBind (VolumeBinding waits there for the PV controller, or the
        plan holds it): the same wait while it started at the same time."""
        return {
            **super()._held(),
            **{uid: ("PreBind", since) for uid, since in self.injector.pre_binding.items()},
        }

    def _hold_limit(self, uid: str) -> float:
        return BIND_TIMEOUT if uid in self.injector.pre_binding else super()._hold_limit(uid)

    def _binding(self) -> set[str]:
        return set(self.injector.pre_binding)

    @invariant()
    def every_reserve_unreserved_or_bound(self) -> None:
        self.c.settle(0.0)
        cache = self.c.scheduler.cache
        open_ = self.injector.ledger.reserved
        assumed = {
            pi.pod.metadata.uid
            for info in cache.dump().values()
            for pi in info.pods
            if cache.is_assumed_pod(pi.pod)
        }
        left = {uid: key for uid, (key, _) in open_.items() if uid not in assumed}
        assert not left, f"Reserve without Unreserve nor binding: {sorted(left.values())}"


class FaultyInvariants(PlanInvariants):
    """The default profile, volumes and the plan above."""

    PLAN = PLAN

    def __init__(self) -> None:
        super().__init__()
        self.c.do(self.c.cluster.create(STORAGE_CLASS))

    def teardown(self) -> None:
        claims = self.c.cluster.list("PersistentVolumeClaim")
        event(f"claims bound at the end: {min(sum(1 for c in claims if c.spec.volume_name), 3)}")
        super().teardown()

    def _volumes(self) -> list[Any]:
        return sorted(self.c.cluster.list("PersistentVolume"), key=lambda v: v.metadata.name)

    def _claims(self) -> list[Any]:
        return sorted(self.c.cluster.list("PersistentVolumeClaim"), key=lambda c: c.metadata.name)

    @precondition(lambda self: bool(self.c.cluster.list("Node")))
    @rule(data=st.data(), size=st.sampled_from(["1Gi", "10Gi"]))
    def create_volume(self, data: st.DataObject, size: str) -> None:
        """A local volume on one node (only pods there can use it)."""
        node = data.draw(st.sampled_from(self._nodes()), label="node")
        self._create_volume(node.metadata.name, size)

    def _create_volume(self, node: str, size: str) -> None:
        term = {
            "matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}
            ]
        }
        pv = PersistentVolume.model_validate(
            {
                "metadata": {"name": self._name("pv")},
                "spec": {
                    "capacity": {"storage": size},
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": "local",
                    "local": {"path": "/mnt/disk"},
                    "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
                },
                "status": {"phase": "Available"},
            }
        )
        self.c.do(self.c.cluster.create(pv))

    @rule(
        data=st.data(),
        size=st.sampled_from(["1Gi", "5Gi"]),
        claims=st.integers(1, 2),
        volumes_too=st.booleans(),
    )
    def create_pod_with_claims(
        self, data: st.DataObject, size: str, claims: int, volumes_too: bool
    ) -> None:
        """A pod with `claims` new claims of the local class (bound when it is placed);
        with `volumes_too`, a volume for each on one node first."""
        if volumes_too and self._nodes():
            node = data.draw(st.sampled_from(self._nodes()), label="node")
            for _ in range(claims):
                self._create_volume(node.metadata.name, "10Gi")
        name = self._name("v")
        volumes = []
        for i in range(claims):
            claim = PersistentVolumeClaim.model_validate(
                {
                    "metadata": {"name": f"{name}-c{i}", "namespace": "default"},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "storageClassName": "local",
                        "resources": {"requests": {"storage": size}},
                    },
                }
            )
            self.c.do(self.c.cluster.create(claim))
            volumes.append(
                {"name": f"d{i}", "persistentVolumeClaim": {"claimName": f"{name}-c{i}"}}
            )
        pod = make_pod(name).req(cpu="100m", memory="128Mi").spec(volumes=volumes)
        self.c.do(self.c.cluster.create(pod.obj()))

    @precondition(lambda self: bool(self.c.cluster.list("PersistentVolumeClaim")))
    @rule(data=st.data())
    def delete_claim(self, data: st.DataObject) -> None:
        claim = data.draw(st.sampled_from(self._claims()), label="claim")
        self.c.do(self.c.cluster.delete("PersistentVolumeClaim", claim.metadata.name, "default"))

    @precondition(lambda self: bool(self.c.cluster.list("PersistentVolume")))
    @rule(data=st.data())
    def delete_volume(self, data: st.DataObject) -> None:
        pv = data.draw(st.sampled_from(self._volumes()), label="volume")
        self.c.do(self.c.cluster.delete("PersistentVolume", pv.metadata.name))

    # -- invariants ---------------------------------------------------------------------
    @invariant()
    def no_volume_allocated_twice(self) -> None:
        by_claim: dict[str, str] = {}
        for pv in self._volumes():
            ref = pv.spec.claim_ref
            if ref is None:
                continue
            key = f"{ref.namespace}/{ref.name}"
            assert key not in by_claim, f"claim {key}: {by_claim[key]} and {pv.metadata.name}"
            by_claim[key] = pv.metadata.name
        by_volume: dict[str, str] = {}
        for claim in self._claims():
            volume = claim.spec.volume_name
            if not volume:
                continue
            key = f"default/{claim.metadata.name}"
            assert volume not in by_volume, f"volume {volume}: {by_volume[volume]} and {key}"
            by_volume[volume] = key
            pv = self.c.cluster.get("PersistentVolume", volume)
            if pv is not None:
                ref = pv.spec.claim_ref
                assert ref is not None and ref.uid == claim.metadata.uid, (
                    f"{key} names {volume}, which names {ref}"
                )


FaultyInvariants.TestCase.settings = SchedulerInvariants.TestCase.settings
TestFaultyInvariants = FaultyInvariants.TestCase
assert EXAMPLES and STEPS  # the same budget variables as test_invariants
