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
from typing import Any, Final

from kubesched.api import Pod
from kubesched.cluster import Cluster, KubeEvent, WatchEvent
from kubesched.cluster.memory import AdmissionError
from kubesched.workloads._pods import controller_of

__all__ = ["FAILED_CREATE", "Reconciler"]

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
        meta = obj.metadata
        event = KubeEvent(
            namespace=meta.namespace or "default",
            involved_kind=self.kind,
            involved_name=meta.name,
            involved_uid=meta.uid,
            type="Warning",
            reason=FAILED_CREATE,
            action="Create",
            message=f"Error creating: {error}",
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
        """A pod changed: sync the object of our kind that controls it, if any."""
        pod: Pod = ev.obj
        ref = controller_of(pod)
        if ref is None or ref.kind != self.kind:
            return
        owner = self.cluster.get(self.kind, ref.name, pod.metadata.namespace)
        if owner is not None and owner.metadata.uid == ref.uid:
            self.enqueue(owner)

    # -- writing --------------------------------------------------------------------------
    async def write_status(self, obj: Any, status: Any) -> None:
        """Store `status` when it differs from the object's (a status update)."""
        if status == obj.status:
            return
        await self.cluster.update(obj.model_copy(update={"status": status}))
