"""Garbage collection in the embedded cluster: dependents of a deleted workload, and (when
asked, `orphaned_pods`) pods bound to a deleted node.

upstream: pkg/controller/garbagecollector (background propagation: once an owner is gone,
each object whose ownerReferences name its uid is deleted, so deleting a Deployment deletes
its ReplicaSets and their pods) and pkg/controller/podgc (gcOrphaned: a pod bound to a node
that no longer exists is deleted at once, with no grace period; upstream waits out a
40-second quarantine first, which a simulation does not need). Their controllers then
recreate what they still want, elsewhere: deleting nodes is how a zone outage is simulated.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from kubesched._errors import NotFoundError
from kubesched.api import Pod
from kubesched.cluster import Cluster, WatchEvent
from kubesched.cluster.memory import MemoryCluster

__all__ = ["OWNER_KINDS", "GarbageCollector"]

OWNER_KINDS: Final = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job")
"""The kinds whose deletion takes their dependents with them."""
_DEPENDENT_KINDS: Final = ("ReplicaSet", "Pod")

_log = logging.getLogger(__name__)


class GarbageCollector:
    """Deletes the dependents of deleted workloads and the pods of deleted nodes."""

    name = "garbage-collector"

    def __init__(self, *, orphaned_pods: bool = False) -> None:
        self.orphaned_pods = orphaned_pods
        """Whether pods bound to a deleted node are deleted (podgc). Off by default: the
        simulation's reliability model keeps such pods bound (docs/reliability.md,
        invariant 2); a simulation with a scenario turns it on, so that its `deleteNode`
        steps evict them (`kubesched.simulate`, `--scenario`)."""
        self._cluster: Cluster | None = None
        self._owners: list[str] = []
        self._nodes: list[str] = []
        self._task: asyncio.Task[None] | None = None

    def start(self, cluster: Cluster) -> None:
        self._cluster = cluster
        for kind in OWNER_KINDS:
            cluster.watch(kind, self._on_owner)
        cluster.watch("Node", self._on_node)

    def busy(self) -> bool:
        return bool(self._owners or self._nodes) or (
            self._task is not None and not self._task.done()
        )

    def _on_owner(self, ev: WatchEvent) -> None:
        if ev.type == "DELETED":
            self._owners.append(ev.obj.metadata.uid)
            self._kick()

    def _on_node(self, ev: WatchEvent) -> None:
        if ev.type == "DELETED" and self.orphaned_pods:
            self._nodes.append(ev.obj.metadata.name)
            self._kick()

    def _kick(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._collect())

    async def _collect(self) -> None:
        cluster = self._cluster
        assert cluster is not None
        while self._owners or self._nodes:
            if self._owners:
                uid = self._owners.pop(0)
                for kind in _DEPENDENT_KINDS:
                    for obj in cluster.list(kind):
                        if any(ref.uid == uid for ref in obj.metadata.owner_references):
                            await self._delete(cluster, kind, obj)
                continue
            node = self._nodes.pop(0)
            if cluster.get("Node", node) is not None:
                continue  # deleted and added again meanwhile
            for pod in cluster.list("Pod"):
                if pod.spec.node_name == node:
                    await self._delete(cluster, "Pod", pod, grace_period_seconds=0)

    async def _delete(
        self, cluster: Cluster, kind: str, obj: Any, *, grace_period_seconds: int | None = None
    ) -> None:
        meta = obj.metadata
        try:
            if isinstance(cluster, MemoryCluster) and isinstance(obj, Pod):
                await cluster.delete(
                    kind, meta.name, meta.namespace, grace_period_seconds=grace_period_seconds
                )
            else:
                await cluster.delete(kind, meta.name, meta.namespace)
        except NotFoundError:
            _log.debug("%s %s was gone already", kind, meta.name)
