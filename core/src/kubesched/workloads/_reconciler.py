"""The shape every workload controller shares: a work queue of owner keys and one sync task.

upstream controllers put an object's key on a rate-limited work queue from their informers'
handlers and sync keys one at a time (pkg/controller/replicaset/replica_set.go: enqueueRS,
worker, syncReplicaSet). Here the queue is a dict kept in insertion order, a sync is a
coroutine on the simulation's event loop, and a controller is busy while keys wait, a sync
runs or a delayed resync (a Job's backoff) is pending, so a simulation does not end before
the controller has done what it would do.
"""

from __future__ import annotations

import abc
import asyncio
import logging
from typing import Any, Final, Literal, cast

from kubesched.api import Pod
from kubesched.cluster import Cluster, KubeEvent, WatchEvent
from kubesched.cluster.memory import AdmissionError
from kubesched.workloads._pods import controller_of, is_active

__all__ = ["FAILED_CREATE", "OwnedPods", "Reconciler"]

FAILED_CREATE: Final = "FailedCreate"
"""The reason of the Event a controller records when the API server refuses its object."""

_log = logging.getLogger(__name__)


class Reconciler(abc.ABC):
    """A controller of one workload kind (`kind`) whose `sync` brings one object's pods (or
    ReplicaSets) to what its spec asks for. Subclasses may watch more kinds in `watch_more`."""

    name: str
    kind: str

    def __init__(self) -> None:
        self._cluster: Cluster | None = None
        self._dirty: dict[str, tuple[str, str | None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._pods = OwnedPods()

    @property
    def cluster(self) -> Cluster:
        assert self._cluster is not None, f"{self.name} controller used before start"
        return self._cluster

    def start(self, cluster: Cluster) -> None:
        self._cluster = cluster
        cluster.watch(self.kind, self._on_owner)
        cluster.watch("Pod", self._on_pod)
        self.watch_more(cluster)

    def watch_more(self, cluster: Cluster) -> None:  # noqa: B027 (an optional hook)
        """Watch further kinds (nodes for DaemonSets ...); nothing by default."""

    def busy(self) -> bool:
        return (
            bool(self._dirty)
            or bool(self._timers)
            or (self._task is not None and not self._task.done())
        )

    # -- the queue ------------------------------------------------------------------------
    def enqueue(self, obj: Any) -> None:
        """Sync `obj` (an object of `kind`) soon."""
        meta = obj.metadata
        self._dirty[f"{meta.namespace}/{meta.name}"] = (meta.name, meta.namespace)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def enqueue_after(self, obj: Any, delay: float) -> None:
        """Sync `obj` again after `delay` seconds of (virtual) time, once."""
        key = f"{obj.metadata.namespace}/{obj.metadata.name}"
        if key in self._timers:
            return

        def fire() -> None:
            self._timers.pop(key, None)
            current = self.cluster.get(self.kind, obj.metadata.name, obj.metadata.namespace)
            if current is not None:
                self.enqueue(current)

        self._timers[key] = asyncio.get_running_loop().call_later(delay, fire)

    async def _run(self) -> None:
        while self._dirty:
            key = next(iter(self._dirty))
            name, namespace = self._dirty.pop(key)
            obj = self.cluster.get(self.kind, name, namespace)
            if obj is None or obj.metadata.deletion_timestamp is not None:
                continue
            try:
                await self.sync(obj)
            except AdmissionError as error:  # the API server refused what it made
                await self._failed_create(obj, error)
            except Exception:  # a conflict or a vanished object: its own event requeues it
                _log.debug("%s: sync of %s failed", self.name, key, exc_info=True)

    async def _failed_create(self, obj: Any, error: AdmissionError) -> None:
        """upstream: the controller records a Warning FailedCreate Event on its object
        (`Error creating: <the API server's error>`); the workloads report shows it."""
        _log.warning("%s %s: error creating: %s", self.kind, obj.metadata.name, error)
        await self.record(obj, "Warning", FAILED_CREATE, f"Error creating: {error}", "Create")

    async def record(
        self,
        obj: Any,
        type_: Literal["Normal", "Warning"],
        reason: str,
        message: str,
        action: str = "",
    ) -> None:
        """Record an Event about `obj` (one of this controller's objects), as the
        controller's event recorder does."""
        meta = obj.metadata
        event = KubeEvent(
            namespace=meta.namespace or "default",
            involved_kind=self.kind,
            involved_name=meta.name,
            involved_uid=meta.uid,
            type=type_,
            reason=reason,
            action=action,
            message=message,
            reporting_controller=f"{self.name}-controller",
            timestamp=asyncio.get_running_loop().time(),
            involved_api_version=obj.api_version,
        )
        await self.cluster.record_event(event)

    @abc.abstractmethod
    async def sync(self, obj: Any) -> None:
        """Create or delete what `obj` needs; write its status."""

    # -- watch handlers -------------------------------------------------------------------
    def _on_owner(self, ev: WatchEvent) -> None:
        if ev.type != "DELETED":
            self.enqueue(ev.obj)

    def _on_pod(self, ev: WatchEvent) -> None:
        """A pod changed: index it, and sync the object of our kind that controls it."""
        pod: Pod = ev.obj
        ref = controller_of(pod)
        if ref is None or ref.kind != self.kind:
            return
        self._pods.seen(pod, ref.uid, deleted=ev.type == "DELETED")
        owner = self.cluster.get(self.kind, ref.name, pod.metadata.namespace)
        if owner is not None and owner.metadata.uid == ref.uid:
            self.enqueue(owner)

    # -- pods -----------------------------------------------------------------------------
    def pods_of(self, owner: Any) -> list[Pod]:
        """The pods `owner` controls, in creation order (from this controller's index)."""
        return self._pods.of(owner.metadata.uid)

    def pod_counts(self, owner: Any) -> tuple[int, int]:
        """(active, bound) pods `owner` controls, without listing them."""
        return self._pods.counts(owner.metadata.uid)

    async def create_pod(self, pod: Pod) -> Pod:
        """Create a pod of ours; it is indexed at once (upstream's expectations)."""
        stored = cast(Pod, await self.cluster.create(pod))
        ref = controller_of(stored)
        if ref is not None:
            self._pods.seen(stored, ref.uid, deleted=False)
        return stored

    async def delete_pod(self, pod: Pod) -> None:
        """Delete a pod of ours; the index knows at once whether it is gone or terminating."""
        meta = pod.metadata
        await self.cluster.delete("Pod", meta.name, meta.namespace)
        ref = controller_of(pod)
        if ref is None:
            return
        current: Pod | None = self.cluster.get("Pod", meta.name, meta.namespace)
        if current is not None and current.metadata.uid == meta.uid:
            self._pods.seen(current, ref.uid, deleted=False)
        else:
            self._pods.seen(pod, ref.uid, deleted=True)

    # -- writing --------------------------------------------------------------------------
    async def write_status(self, obj: Any, status: Any) -> None:
        """Store `status` when it differs from the object's (a status update)."""
        if status == obj.status:
            return
        await self.cluster.update(obj.model_copy(update={"status": status}))


class OwnedPods:
    """Pods by the uid of their controller, kept from the watch and from the controller's
    own writes, so a sync reads its pods without walking every pod of the cluster.

    An event older than what is indexed (a lower resourceVersion) is ignored, and a pod
    once deleted is not indexed again, so the controller's own writes, indexed at once, are
    never undone by the events of earlier writes still being delivered.
    """

    def __init__(self) -> None:
        self._by_owner: dict[str, dict[str, Pod]] = {}
        self._counts: dict[str, list[int]] = {}
        self._gone: set[str] = set()

    def seen(self, pod: Pod, owner_uid: str, *, deleted: bool) -> None:
        uid = pod.metadata.uid
        pods = self._by_owner.setdefault(owner_uid, {})
        counts = self._counts.setdefault(owner_uid, [0, 0])
        known = pods.get(uid)
        if deleted:
            self._gone.add(uid)
            pods.pop(uid, None)
            _count(counts, known, -1)
            if not pods:
                del self._by_owner[owner_uid], self._counts[owner_uid]
            return
        if uid in self._gone:
            return
        if known is None or _version(known) <= _version(pod):
            _count(counts, known, -1)
            _count(counts, pod, 1)
            pods[uid] = pod

    def of(self, owner_uid: str) -> list[Pod]:
        return list(self._by_owner.get(owner_uid, {}).values())

    def counts(self, owner_uid: str) -> tuple[int, int]:
        """(active pods, active pods bound to a node) of the owner, kept as pods change."""
        active, bound = self._counts.get(owner_uid, (0, 0))
        return active, bound


def _count(counts: list[int], pod: Pod | None, sign: int) -> None:
    if pod is not None and is_active(pod):
        counts[0] += sign
        if pod.spec.node_name:
            counts[1] += sign


def _version(pod: Pod) -> int:
    try:
        return int(pod.metadata.resource_version or 0)
    except ValueError:  # an opaque version (a real API server's): trust the event order
        return 0
