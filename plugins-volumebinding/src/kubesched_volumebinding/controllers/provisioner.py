"""A dynamic provisioner for the embedded cluster, after the external-provisioner.

For a claim of a class with a provisioner (not `kubernetes.io/no-provisioner`) it creates
a PV of the requested size pre-bound to the claim, after a virtual delay; the PV controller
then binds them. A WaitForFirstConsumer claim is provisioned once the scheduler set
`volume.kubernetes.io/selected-node`, and the PV's node affinity follows that node's
topology (keys, in order of preference: the class annotation below, the CSINode's topology
keys for the driver, the keys of the class's allowedTopologies, the configured default).

Provisioning fails, as the external-provisioner signals it, by removing `selected-node`
from the claim: when the node is gone, when the node is one it is told to fail on, or,
with capacity tracking, when no CSIStorageCapacity reachable from the node has room left.
With tracking on, a success takes the size from that capacity object (and a deleted PV
gives it back).

Per-class settings, as StorageClass annotations (for simulation manifests):
`provisioner.kubesched.io/delay-seconds`, `.../topology-keys` (comma-separated),
`.../fail-nodes` (comma-separated), `.../track-capacity` ("true"/"false").
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from kubesched import NotFoundError
from kubesched.api import Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, ObjectMeta
from kubesched.cluster import WatchEvent, WorkQueue
from kubesched_volumebinding.storage import (
    ANN_DYNAMICALLY_PROVISIONED,
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    STORAGE,
    CSIStorageCapacity,
    Listers,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    PersistentVolumeSpec,
    StorageClass,
    VolumeNodeAffinity,
    claim_class,
    request_bytes,
    requested_storage,
    volume_limit,
)
from kubesched_volumebinding.volumebinding.matching import node_has_access

__all__ = [
    "ANN_CAPACITY_SOURCE",
    "ANN_DELAY",
    "ANN_FAIL_NODES",
    "ANN_TOPOLOGY_KEYS",
    "ANN_TRACK_CAPACITY",
    "ProvisionRecord",
    "Provisioner",
]

_PREFIX: Final = "provisioner.kubesched.io/"
ANN_DELAY: Final = _PREFIX + "delay-seconds"
ANN_TOPOLOGY_KEYS: Final = _PREFIX + "topology-keys"
ANN_FAIL_NODES: Final = _PREFIX + "fail-nodes"
ANN_TRACK_CAPACITY: Final = _PREFIX + "track-capacity"
ANN_CAPACITY_SOURCE: Final = _PREFIX + "capacity-source"
"""On a provisioned PV: the CSIStorageCapacity (`namespace/name`) its size came from."""

DEFAULT_TOPOLOGY_KEYS: Final = ("topology.kubernetes.io/zone",)


@dataclass(frozen=True)
class ProvisionRecord:
    """One provisioning attempt: the claim, the node (or ""), and the outcome."""

    claim: str
    node: str
    volume: str
    error: str = ""


@dataclass
class _Settings:
    delay: float
    topology_keys: tuple[str, ...] | None
    fail_nodes: frozenset[str]
    track_capacity: bool


@dataclass(eq=False)
class Provisioner:
    """Provisions claims in the memory cluster (a `kubesched.cluster.Controller`)."""

    enabled: bool = True
    delay: float = 0.0
    """Virtual seconds between noticing a claim and its PV appearing."""
    provisioners: frozenset[str] | None = None
    """The provisioner names served; None serves every one."""
    fail_nodes: frozenset[str] = frozenset()
    track_capacity: bool = False
    default_topology_keys: tuple[str, ...] = DEFAULT_TOPOLOGY_KEYS
    history: list[ProvisionRecord] = field(default_factory=list)

    name = "volume-provisioner"

    def __post_init__(self) -> None:
        self._cluster: Any = None
        self._listers: Listers | None = None
        self._queue = WorkQueue(self.name, self._provision)
        self._timers: dict[str, asyncio.TimerHandle] = {}

    # -- Controller -----------------------------------------------------------------------
    def start(self, cluster: Any) -> None:
        self._cluster = cluster
        self._listers = Listers(cluster)
        cluster.watch("PersistentVolumeClaim", self._on_claim)
        cluster.watch("PersistentVolume", self._on_volume)

    def busy(self) -> bool:
        return self.enabled and (bool(self._timers) or self._queue.busy())

    def pause(self) -> None:
        """Stop provisioning; claims seen meanwhile wait for `resume()`."""
        self.enabled = False
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def resume(self) -> None:
        """Provision again, looking at every claim; call inside the event loop."""
        self.enabled = True
        if self._cluster is None:
            return
        for pvc in self._cluster.list("PersistentVolumeClaim"):
            self._consider(pvc)

    @property
    def listers(self) -> Listers:
        assert self._listers is not None, "Provisioner.start() was not called"
        return self._listers

    # -- events ---------------------------------------------------------------------------
    def _on_claim(self, event: WatchEvent) -> None:
        if event.type != "DELETED" and self.enabled:
            self._consider(event.obj)

    def _on_volume(self, event: WatchEvent) -> None:
        if event.type == "DELETED":
            self._return_capacity(event.obj)

    def _consider(self, pvc: PersistentVolumeClaim) -> None:
        """Schedule provisioning of a claim that needs it, after the class's delay."""
        sc = self._class_to_serve(pvc)
        if sc is None:
            return
        node = self._target_node(pvc, sc)
        if node is None:
            return
        key = pvc.key
        if key in self._timers:
            return
        settings = self._settings(sc)
        loop = asyncio.get_running_loop()
        self._timers[key] = loop.call_later(settings.delay, self._fire, key)

    def _fire(self, key: str) -> None:
        self._timers.pop(key, None)
        if self.enabled:
            self._queue.add(key)

    def _class_to_serve(self, pvc: PersistentVolumeClaim) -> StorageClass | None:
        if pvc.spec.volume_name:
            return None
        sc = self.listers.storage_class(claim_class(pvc))
        if sc is None or not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
            return None
        if self.provisioners is not None and sc.provisioner not in self.provisioners:
            return None
        return sc

    def _target_node(self, pvc: PersistentVolumeClaim, sc: StorageClass) -> str | None:
        """The selected node ("" for an Immediate class), or None when not ready."""
        selected = pvc.metadata.annotations.get(ANN_SELECTED_NODE)
        if sc.volume_binding_mode == "WaitForFirstConsumer":
            return selected or None
        return selected or ""

    def _settings(self, sc: StorageClass) -> _Settings:
        ann = sc.metadata.annotations
        delay = float(ann[ANN_DELAY]) if ANN_DELAY in ann else self.delay
        keys = (
            tuple(k.strip() for k in ann[ANN_TOPOLOGY_KEYS].split(",") if k.strip())
            if ANN_TOPOLOGY_KEYS in ann
            else None
        )
        fail = self.fail_nodes | frozenset(
            n.strip() for n in ann.get(ANN_FAIL_NODES, "").split(",") if n.strip()
        )
        track = ann.get(ANN_TRACK_CAPACITY, str(self.track_capacity)).lower() == "true"
        return _Settings(delay, keys, fail, track)

    # -- provisioning ---------------------------------------------------------------------
    async def _provision(self, key: str) -> None:
        namespace, _, name = key.partition("/")
        pvc = self.listers.claim(namespace, name)
        if pvc is None or not self.enabled:
            return
        sc = self._class_to_serve(pvc)
        if sc is None:
            return
        node_name = self._target_node(pvc, sc)
        if node_name is None:
            return
        volume_name = f"pvc-{pvc.metadata.uid}"
        if self.listers.volume(volume_name) is not None:
            return  # provisioned already; the PV controller binds it
        settings = self._settings(sc)
        node: Node | None = None
        if node_name:
            node = self.listers.node(node_name)
            if node is None:
                await self._fail(pvc, node_name, f'node "{node_name}" not found')
                return
            if node_name in settings.fail_nodes:
                await self._fail(pvc, node_name, "provisioning failed (told to fail here)")
                return
        source: CSIStorageCapacity | None = None
        if settings.track_capacity and node is not None and self._tracked(sc):
            source = self._capacity_with_room(pvc, sc, node)
            if source is None:
                await self._fail(pvc, node_name, "ResourceExhausted: not enough capacity")
                return
            await self._take_capacity(source, requested_storage(pvc))
        pv = self._volume_for(pvc, sc, node, volume_name, settings, source)
        await self._cluster.create(pv)
        self.history.append(ProvisionRecord(key, node_name, volume_name))

    async def _fail(self, pvc: PersistentVolumeClaim, node_name: str, why: str) -> None:
        """Signal failure the external-provisioner's way: drop selected-node."""
        self.history.append(ProvisionRecord(pvc.key, node_name, "", why))
        if ANN_SELECTED_NODE not in pvc.metadata.annotations:
            return
        copy = pvc.model_copy(deep=True)
        del copy.metadata.annotations[ANN_SELECTED_NODE]
        await self._cluster.update(copy)

    def _tracked(self, sc: StorageClass) -> bool:
        driver = self.listers.csi_driver(sc.provisioner)
        return driver is not None and bool(driver.spec.storage_capacity)

    def _capacity_with_room(
        self, pvc: PersistentVolumeClaim, sc: StorageClass, node: Node
    ) -> CSIStorageCapacity | None:
        size = request_bytes(pvc)
        for cap in sorted(
            self.listers.csi_storage_capacities(),
            key=lambda c: (c.metadata.namespace or "", c.metadata.name),
        ):
            limit = volume_limit(cap)
            if (
                cap.storage_class_name == sc.metadata.name
                and limit is not None
                and limit >= size
                and node_has_access(node, cap)
            ):
                return cap
        return None

    async def _take_capacity(self, cap: CSIStorageCapacity, size: Fraction) -> None:
        copy = cap.model_copy(deep=True)
        left = max((copy.capacity or Fraction(0)) - size, Fraction(0))
        copy.capacity = left
        if copy.maximum_volume_size is not None and copy.maximum_volume_size > left:
            copy.maximum_volume_size = left
        await self._cluster.update(copy)

    def _return_capacity(self, pv: PersistentVolume) -> None:
        source = pv.metadata.annotations.get(ANN_CAPACITY_SOURCE)
        if not source or self._cluster is None:
            return
        namespace, _, name = source.partition("/")
        cap = self._cluster.get("CSIStorageCapacity", name, namespace)
        if cap is None:
            return
        copy = cap.model_copy(deep=True)
        copy.capacity = (copy.capacity or Fraction(0)) + pv.spec.capacity.get(STORAGE, 0)
        asyncio.get_running_loop().create_task(self._update_quietly(copy))

    async def _update_quietly(self, obj: Any) -> None:
        with contextlib.suppress(NotFoundError):
            await self._cluster.update(obj)

    def _volume_for(
        self,
        pvc: PersistentVolumeClaim,
        sc: StorageClass,
        node: Node | None,
        name: str,
        settings: _Settings,
        source: CSIStorageCapacity | None,
    ) -> PersistentVolume:
        annotations = {ANN_DYNAMICALLY_PROVISIONED: sc.provisioner}
        if source is not None:
            annotations[ANN_CAPACITY_SOURCE] = (
                f"{source.metadata.namespace or 'default'}/{source.metadata.name}"
            )
        spec = PersistentVolumeSpec(
            capacity={STORAGE: requested_storage(pvc)},
            access_modes=list(pvc.spec.access_modes) or ["ReadWriteOnce"],
            claim_ref=ObjectReference(
                kind="PersistentVolumeClaim",
                api_version="v1",
                namespace=pvc.metadata.namespace or "default",
                name=pvc.metadata.name,
                uid=pvc.metadata.uid,
                resource_version=pvc.metadata.resource_version or "",
            ),
            persistent_volume_reclaim_policy=sc.reclaim_policy or "Delete",
            storage_class_name=sc.metadata.name,
            node_affinity=self._affinity(sc, node, settings),
            volume_mode=pvc.spec.volume_mode,
            mount_options=list(sc.mount_options),
            csi={"driver": sc.provisioner, "volumeHandle": name},
        )
        return PersistentVolume(metadata=ObjectMeta(name=name, annotations=annotations), spec=spec)

    def _affinity(
        self, sc: StorageClass, node: Node | None, settings: _Settings
    ) -> VolumeNodeAffinity | None:
        if node is None:
            terms = [
                NodeSelectorTerm(
                    match_expressions=[
                        NodeSelectorRequirement(key=r.key, operator="In", values=list(r.values))
                        for r in term.match_label_expressions
                    ]
                )
                for term in sc.allowed_topologies
                if term.match_label_expressions
            ]
            if not terms:
                return None
            return VolumeNodeAffinity(required=NodeSelector(node_selector_terms=terms))
        labels = node.metadata.labels
        requirements = [
            NodeSelectorRequirement(key=key, operator="In", values=[labels[key]])
            for key in self._topology_keys(sc, node, settings)
            if key in labels
        ]
        if not requirements:
            return None
        term = NodeSelectorTerm(match_expressions=requirements)
        return VolumeNodeAffinity(required=NodeSelector(node_selector_terms=[term]))

    def _topology_keys(self, sc: StorageClass, node: Node, settings: _Settings) -> Sequence[str]:
        if settings.topology_keys is not None:
            return settings.topology_keys
        csi_node = self.listers.csi_node(node.metadata.name)
        if csi_node is not None:
            for driver in csi_node.spec.drivers:
                if driver.name == sc.provisioner and driver.topology_keys:
                    return driver.topology_keys
        from_class: list[str] = []
        for term in sc.allowed_topologies:
            for req in term.match_label_expressions:
                if req.key not in from_class:
                    from_class.append(req.key)
        return from_class or self.default_topology_keys
