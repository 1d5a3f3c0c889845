"""The invariants of test_invariants with DRA's claims and a fault plan firing at random
(issue 18): kubesched-dra installed (DynamicResources in the default profile, the
resourceclaim controller in the cluster), two DeviceClasses, ResourceSlices per node,
pods with ResourceClaimTemplates or shared ResourceClaims (1 or 2 devices, a selector on
an attribute, `allocationMode: All`, admin access), and rules that delete pods, claims,
slices and nodes and publish slices again. The plan: binds answering 409 and 500,
DynamicResources failing at Filter, Reserve and PreBind, claims deleted between Reserve and
binding, Pod, ResourceClaim and ResourceSlice events duplicated and informers relisting
mid-cycle. After every step, besides the invariants of SchedulerInvariants and the Reserve
ledger of PlanInvariants:

- no device is allocated to two claims (a device allocated with admin access is not in
  use, upstream allocateddevices.go), and every allocated device was published in a
  slice of a node the allocation's nodeSelector selects; a claim newly seen allocated
  names devices published now (or removed in this very step: upstream's scheduler writes
  what it chose at Filter, and nothing deallocates a claim whose slice goes away later,
  so an allocation outlives its slice);
- a bound pod's claims exist, are allocated on its node and list it in
  `status.reservedFor` (unless the machine deleted one of them while it was bound or
  assumed: the memory cluster deletes at once where the API server's finalizer would
  hold the claim back);
- the resourceclaim controller has released every reservation of a pod that is gone,
  deleted every generated claim whose pod is gone, and deallocated a claim whose last
  consumer went away (upstream controller.go deallocates on that transition only: a claim
  allocated with no reservation, as a failed binding leaves it, stays allocated);
- the plugin holds nothing for pods that are neither assumed nor bound: no allocation in
  flight (at an idle point no pod is between Reserve and the end of PreBind here), the
  claim assume cache equals the cluster's claims (every assumption overtaken by its watch
  event) and its allocated-device tracker equals the devices of the cluster's claims.

Budget as test_invariants (`KUBESCHED_STATEFUL_EXAMPLES`, `KUBESCHED_STATEFUL_STEPS`).
"""

from __future__ import annotations

from typing import Any, ClassVar

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule
from test_invariants import EXAMPLES, STEPS, SchedulerInvariants
from test_invariants_faults import PlanInvariants

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched.simulate._faults import FaultPlan, parse_fault_plan
from kubesched.testing import make_pod
from kubesched_dra.api import DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from kubesched_dra.dynamicresources import DynamicResources
from kubesched_dra.dynamicresources.manager import claim_devices
from kubesched_dra.resourceclaim import ClaimNotCreatedError, claim_name, owning_pod
from kubesched_dra.structured import DeviceID

GPU = "gpu.example.com"
NIC = "nic.example.com"
MODELS = ("A100", "H100")

_DRA_PLAN = parse_fault_plan(
    {
        "apiVersion": "simulation.kubesched.io/v1alpha1",
        "kind": "FaultPlan",
        "metadata": {"name": "dra invariants"},
        "faults": [
            {"bindError": {"reason": "Conflict"}, "probability": 0.1},
            {"bindError": {"reason": "InternalError"}, "probability": 0.1},
            {
                "pluginError": {"plugin": "DynamicResources", "extensionPoint": "Filter"},
                "probability": 0.02,
            },
            {
                "pluginError": {"plugin": "DynamicResources", "extensionPoint": "Reserve"},
                "probability": 0.1,
            },
            {
                "pluginError": {"plugin": "DynamicResources", "extensionPoint": "PreBind"},
                "probability": 0.1,
            },
            {"deleteBeforeBind": {"kind": "ResourceClaim"}, "probability": 0.05},
            {"watch": {"kind": "Pod", "action": "Duplicate"}, "probability": 0.2},
            {"watch": {"kind": "ResourceClaim", "action": "Duplicate"}, "probability": 0.2},
            {"watch": {"kind": "ResourceSlice", "action": "Duplicate"}, "probability": 0.2},
            {
                "relist": {
                    "kinds": ["Pod", "ResourceClaim", "ResourceSlice"],
                    "extensionPoint": "Reserve",
                },
                "probability": 0.1,
            },
            {
                "relist": {
                    "kinds": ["ResourceClaim", "ResourceSlice"],
                    "extensionPoint": "PreFilter",
                },
                "probability": 0.1,
            },
        ],
    },
    "dra invariants plan",
)


def _request(
    name: str, device_class: str, *, count: int = 1, model: str | None = None, **extra: Any
) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": device_class, **extra}
    if extra.get("allocationMode") != "All":
        exactly["count"] = count
    if model is not None:
        expression = f'device.attributes["{GPU}"].model == "{model}"'
        exactly["selectors"] = [{"cel": {"expression": expression}}]
    return {"name": name, "exactly": exactly}


SPECS: dict[str, list[dict[str, Any]]] = {
    "one-gpu": [_request("gpu", "gpu")],
    "two-gpus": [_request("gpu", "gpu", count=2)],
    "a100": [_request("gpu", "gpu", model="A100")],
    "all-gpus": [_request("gpu", "gpu", allocationMode="All")],
    "gpu-and-nic": [_request("gpu", "gpu"), _request("nic", "nic")],
    "admin-gpu": [_request("gpu", "gpu", adminAccess=True)],
}
"""Claim specs by name (the templates' and the shared claims' requests)."""


def _device_class(name: str, driver: str) -> DeviceClass:
    return DeviceClass.model_validate(
        {
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{driver}'"}}]},
        }
    )


def _claim_spec(spec: str) -> dict[str, Any]:
    return {"devices": {"requests": SPECS[spec]}}


class DRAInvariants(PlanInvariants):
    """The default profile with kubesched-dra, its claims and the plan above."""

    PLAN: ClassVar[FaultPlan] = _DRA_PLAN

    def __init__(self) -> None:
        self.generations: dict[str, int] = {}
        """Slice name -> the pool generation it was last published with."""
        self.published: dict[DeviceID, set[str]] = {}
        """Every device ever published -> the nodes whose slices listed it."""
        self.unpublished: set[DeviceID] = set()
        """Devices whose slice was removed or changed since the last check."""
        self.allocations: dict[str, frozenset[DeviceID]] = {}
        """Claim uid -> its allocated devices at the last check."""
        self.consumers: dict[str, set[str]] = {}
        """Claim uid -> the pods it was reserved for at the last check, when all were bound."""
        self.lost: set[str] = set()
        """Pods bound or assumed when one of their claims was deleted (the memory cluster
        deletes at once, where the API server's finalizer holds a claim in use back)."""
        self.node_labels: dict[str, dict[str, str]] = {}
        self.ever_allocated = 0
        self.outlived = 0
        """Checks that saw a device allocated whose slice no longer lists it."""
        self.admin = 0
        """Checks that saw a device allocated with admin access."""
        super().__init__()
        self.c.cluster.watch("ResourceClaim", self._claim_deleted)
        for name, driver in (("gpu", GPU), ("nic", NIC)):
            self.c.do(self.c.cluster.create(_device_class(name, driver)))
        for name in SPECS:
            template = ResourceClaimTemplate.model_validate(
                {
                    "metadata": {"name": name, "namespace": "default"},
                    "spec": {"spec": _claim_spec(name)},
                }
            )
            self.c.do(self.c.cluster.create(template))

    def teardown(self) -> None:
        claims = self._claims()
        event(
            f"claims allocated at the end: {min(sum(1 for c in claims if c.status.allocation), 3)}"
        )
        event(f"claims ever allocated: {min(self.ever_allocated, 5)}")
        event(f"allocations seen outliving their slice: {min(self.outlived, 1)}")
        event(f"admin-access allocations seen: {min(self.admin, 1)}")
        super().teardown()

    # -- helpers ------------------------------------------------------------------------
    def _claims(self) -> list[ResourceClaim]:
        return sorted(self.c.cluster.list("ResourceClaim"), key=lambda c: c.metadata.name)

    def _shared(self) -> list[ResourceClaim]:
        return [c for c in self._claims() if owning_pod(c) is None]

    def _slices(self) -> list[ResourceSlice]:
        return sorted(self.c.cluster.list("ResourceSlice"), key=lambda s: s.metadata.name)

    def _plugin(self) -> DynamicResources:
        plugin: DynamicResources = self.c.scheduler.profiles["default-scheduler"].plugins[
            "DynamicResources"
        ]
        return plugin

    def _claim_of(self, pod: Pod, index: int) -> ResourceClaim | str | None:
        """The claim of the pod's `index`-th entry; a string says why there is none."""
        try:
            name, _ = claim_name(pod, pod.spec.resource_claims[index])
        except ClaimNotCreatedError as exc:
            return str(exc)
        if name is None:
            return "no claim needed"
        claim: ResourceClaim | None = self.c.cluster.get("ResourceClaim", name, "default")
        return claim

    def _names_claim(self, pod: Pod, claim: ResourceClaim) -> bool:
        for index in range(len(pod.spec.resource_claims)):
            found = self._claim_of(pod, index)
            if isinstance(found, ResourceClaim) and found.metadata.uid == claim.metadata.uid:
                return True
        return False

    def _assumed(self) -> set[str]:
        cache = self.c.scheduler.cache
        return {
            pi.pod.metadata.uid
            for info in cache.dump().values()
            for pi in info.pods
            if cache.is_assumed_pod(pi.pod)
        }

    # -- rules --------------------------------------------------------------------------
    @rule(
        cpu=st.sampled_from(["1", "2", "4"]),
        memory=st.sampled_from(["1Gi", "4Gi"]),
        pods=st.sampled_from([2, 4, 110]),
        gpus=st.integers(0, 3),
        model=st.sampled_from(MODELS),
        nics=st.integers(0, 2),
    )
    def create_node(
        self,
        cpu: str,
        memory: str,
        pods: int,
        gpus: int = 2,
        model: str = "A100",
        nics: int = 1,
    ) -> None:
        """A node and its drivers' slices (`gpus` GPUs of `model`, `nics` NICs)."""
        super().create_node(cpu, memory, pods)
        name = f"n{self.counter}"
        self.node_labels[name] = {"kubernetes.io/hostname": name}
        if gpus:
            self._publish(name, GPU, gpus, model)
        if nics:
            self._publish(name, NIC, nics, model)

    def _publish(self, node: str, driver: str, devices: int, model: str) -> None:
        """Create or replace the node's slice of `driver` (a new pool generation)."""
        name = f"{node}-{driver.split('.')[0]}"
        generation = self.generations.get(name, 0) + 1
        self.generations[name] = generation
        listed = [
            {
                "name": f"{driver.split('.')[0]}-{i}",
                "attributes": {"model": {"string": model}} if driver == GPU else {},
            }
            for i in range(devices)
        ]
        for device in listed:
            self.published.setdefault(DeviceID(driver, node, device["name"]), set()).add(node)
        obj = ResourceSlice.model_validate(
            {
                "metadata": {"name": name},
                "spec": {
                    "driver": driver,
                    "nodeName": node,
                    "pool": {"name": node, "generation": generation, "resourceSliceCount": 1},
                    "devices": listed,
                },
            }
        )
        old = self.c.cluster.get("ResourceSlice", name)
        if old is None:
            self.c.do(self.c.cluster.create(obj))
            return
        self._forget(old)
        self.c.do(self.c.cluster.update(obj.model_copy(update={"metadata": old.metadata})))

    def _forget(self, old: ResourceSlice) -> None:
        spec = old.spec
        for device in spec.devices:
            self.unpublished.add(DeviceID(spec.driver, spec.pool.name, device.name))

    @precondition(lambda self: bool(self.c.cluster.list("Node")))
    @rule(
        data=st.data(),
        driver=st.sampled_from([GPU, NIC]),
        devices=st.integers(1, 3),
        model=st.sampled_from(MODELS),
    )
    def publish_slice(self, data: st.DataObject, driver: str, devices: int, model: str) -> None:
        """Publish (or publish again, changed) a node's slice of one driver."""
        node = data.draw(st.sampled_from(self._nodes()), label="node")
        self._publish(node.metadata.name, driver, devices, model)

    @precondition(lambda self: bool(self.c.cluster.list("ResourceSlice")))
    @rule(data=st.data())
    def delete_slice(self, data: st.DataObject) -> None:
        """The driver withdraws a slice (or its node's garbage collection deletes it)."""
        found = data.draw(st.sampled_from(self._slices()), label="slice")
        self._forget(found)
        self.c.do(self.c.cluster.delete("ResourceSlice", found.metadata.name))

    @rule(spec=st.sampled_from(sorted(SPECS)))
    def create_claim(self, spec: str) -> None:
        """A claim pods share by name."""
        claim = ResourceClaim.model_validate(
            {
                "metadata": {"name": self._name("rc"), "namespace": "default"},
                "spec": _claim_spec(spec),
            }
        )
        self.c.do(self.c.cluster.create(claim))

    @initialize(data=st.data(), pods=st.integers(1, 2))
    def start_with_claims(self, data: st.DataObject, pods: int) -> None:
        """Most examples then allocate devices from their first steps on."""
        for _ in range(pods):
            entries = data.draw(st.integers(1, 2), label="entries")
            self.create_pod_with_claims(data, entries, "100m", 0)

    @rule(
        data=st.data(),
        entries=st.integers(1, 2),
        cpu=st.sampled_from(["100m", "1"]),
        priority=st.sampled_from([0, 1000]),
    )
    def create_pod_with_claims(
        self, data: st.DataObject, entries: int, cpu: str, priority: int
    ) -> None:
        """A pod with `entries` claims, each from a template or a shared claim."""
        claims = []
        shared = [c.metadata.name for c in self._shared()]
        for i in range(entries):
            if shared and data.draw(st.booleans(), label=f"shared {i}"):
                name = data.draw(st.sampled_from(shared), label=f"claim {i}")
                claims.append({"name": f"r{i}", "resourceClaimName": name})
            else:
                template = data.draw(st.sampled_from(sorted(SPECS)), label=f"template {i}")
                claims.append({"name": f"r{i}", "resourceClaimTemplateName": template})
        pod = (
            make_pod(self._name("d"))
            .req(cpu=cpu, memory="128Mi")
            .priority(priority)
            .spec(resourceClaims=claims)
        )
        self.c.do(self.c.cluster.create(pod.obj()))

    @precondition(lambda self: bool(self.c.cluster.list("ResourceClaim")))
    @rule(data=st.data())
    def delete_claim(self, data: st.DataObject) -> None:
        claim = data.draw(st.sampled_from(self._claims()), label="claim")
        self.c.do(self.c.cluster.delete("ResourceClaim", claim.metadata.name, "default"))

    def _claim_deleted(self, event: WatchEvent) -> None:
        """A claim deleted (by a rule, the plan or the controller): the pods naming it that
        are bound or assumed now keep a claim that is gone (kept in `lost` if they bind)."""
        if event.type != "DELETED":
            return
        name = event.obj.metadata.name
        assumed = self._assumed()
        for pod in self._pods():
            if not (pod.spec.node_name or pod.metadata.uid in assumed):
                continue
            for entry in pod.spec.resource_claims:
                try:
                    named, _ = claim_name(pod, entry)
                except ClaimNotCreatedError:
                    continue
                if named == name:
                    self.lost.add(pod.metadata.uid)

    # -- invariants ---------------------------------------------------------------------
    @invariant()
    def no_device_allocated_twice_and_each_published(self) -> None:
        self.c.settle(0.0)
        now = {
            DeviceID(s.spec.driver, s.spec.pool.name, d.name)
            for s in self._slices()
            for d in s.spec.devices
        }
        owners: dict[DeviceID, str] = {}
        allocations: dict[str, frozenset[DeviceID]] = {}
        for claim in self._claims():
            allocation = claim.status.allocation
            if allocation is None:
                continue
            results = allocation.devices.results
            devices = frozenset(DeviceID(r.driver, r.pool, r.device) for r in results)
            uid = claim.metadata.uid
            allocations[uid] = devices
            new = self.allocations.get(uid) != devices
            self.ever_allocated += new
            for device in sorted(devices):
                nodes = self.published.get(device, set())
                assert nodes, f"{claim.key}: {device} was never published"
                selector = allocation.node_selector
                assert selector is None or any(
                    selector.matches(n, self.node_labels.get(n, {})) for n in nodes
                ), f"{claim.key}: {device} is not on a node its allocation selects"
                if new:
                    assert device in now or device in self.unpublished, (
                        f"{claim.key}: newly allocated {device}, withdrawn before this step"
                    )
            self.outlived += not devices <= now
            self.admin += any(r.admin_access for r in results)
            for device in claim_devices(claim):  # those without admin access
                assert device not in owners, (
                    f"{device} allocated to {owners[device]} and {claim.key}"
                )
                owners[device] = claim.key
        self.allocations = allocations
        self.unpublished = set()

    @invariant()
    def bound_pods_hold_their_claims(self) -> None:
        self.c.settle(0.0)
        pods = self._pods()
        # a pod whose claim went away before it bound failed PreBind: it is checked again
        assumed = self._assumed()
        self.lost &= {p.metadata.uid for p in pods if p.spec.node_name} | assumed
        for pod in pods:
            node = pod.spec.node_name
            if not node or pod.metadata.uid in self.lost:
                continue
            for index, entry in enumerate(pod.spec.resource_claims):
                claim = self._claim_of(pod, index)
                assert isinstance(claim, ResourceClaim), (
                    f"bound {pod.key}, claim {entry.name}: {claim or 'not found'}"
                )
                allocation = claim.status.allocation
                assert allocation is not None, f"bound {pod.key}: {claim.key} not allocated"
                assert claim.is_reserved_for(pod.metadata.uid), (
                    f"bound {pod.key}: {claim.key} reserved for "
                    f"{[r.name for r in claim.status.reserved_for]}"
                )
                selector = allocation.node_selector
                assert selector is None or selector.matches(node, self.node_labels.get(node, {})), (
                    f"bound {pod.key} on {node}: {claim.key} allocated elsewhere"
                )

    @invariant()
    def claims_released_when_their_pods_are_gone(self) -> None:
        self.c.settle(0.0)
        if self.c.cluster.busy():
            return  # the controller is still at work (a retry after a conflict)
        pods = {p.metadata.uid: p for p in self._pods()}
        consumers: dict[str, set[str]] = {}
        for claim in self._claims():
            uids = {r.uid for r in claim.status.reserved_for if r.resource == "pods"}
            gone = sorted(r.name for r in claim.status.reserved_for if r.uid not in pods)
            assert not gone, f"{claim.key} still reserved for pods that are gone: {gone}"
            owner = owning_pod(claim)
            if owner is not None:
                assert owner[1] in pods, f"{claim.key}: its pod {owner[0]} is gone"
            if uids and all(pods[u].spec.node_name for u in uids):
                consumers[claim.metadata.uid] = uids
            last = self.consumers.get(claim.metadata.uid)
            if claim.status.allocation is None or uids or not last or last & set(pods):
                continue
            waiting = [p.key for p in pods.values() if self._names_claim(p, claim)]
            assert waiting, f"{claim.key}: its consumers are gone and it is still allocated"
        self.consumers = consumers

    @invariant()
    def plugin_holds_nothing_for_pods_gone(self) -> None:
        self.c.settle(0.0)
        manager = self._plugin().manager
        in_flight = sorted(c.key for c in manager.in_flight())
        assert not in_flight, f"allocations in flight at an idle point: {in_flight}"
        cached = {c.key: c.metadata.resource_version for c in manager.claims.list()}
        cluster = {c.key: c.metadata.resource_version for c in self._claims()}
        assert cached == cluster, f"claim assume cache {cached} != cluster {cluster}"
        in_use = {d for c in self._claims() for d in claim_devices(c)}
        tracked = set(manager.list_all_allocated_devices())
        assert tracked == in_use, f"devices tracked {sorted(tracked)} != in use {sorted(in_use)}"


DRAInvariants.TestCase.settings = SchedulerInvariants.TestCase.settings
TestDRAInvariants = DRAInvariants.TestCase
assert EXAMPLES and STEPS  # the same budget variables as test_invariants
