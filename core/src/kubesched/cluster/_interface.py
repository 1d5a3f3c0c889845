"""Cluster: the only way the scheduler reads or changes the world.

Two backends implement it: `memory` (the embedded default, for simulation and tests) and
`kube` (a real API server). The scheduler does not know which one it has.

Reading is informer-style: `watch(kind, handler)` first replays every existing object as an
ADDED event, then delivers changes in order. Handlers are plain functions run on the event
loop, never in the middle of a scheduling cycle.
"""

from __future__ import annotations

import abc
import builtins
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

from kubesched.api import K8sModel, KindRegistry, Pod, PodCondition
from kubesched.cluster._events import EventSeries, ObjectRef

__all__ = [
    "Cluster",
    "ClusterEvent",
    "Controller",
    "EventHandler",
    "KubeEvent",
    "WatchEvent",
    "object_key",
]

WatchEventType = Literal["ADDED", "MODIFIED", "DELETED"]


@dataclass(frozen=True)
class WatchEvent:
    """A change to one object. `old` is the previous version for MODIFIED."""

    type: WatchEventType
    kind: str
    obj: Any
    old: Any = None


EventHandler = Callable[[WatchEvent], None]

ClusterEvent = WatchEvent  # alias kept for readers coming from informer vocabulary


@dataclass(frozen=True)
class KubeEvent:
    """An Event as kube-scheduler records them (Scheduled, FailedScheduling ...): an
    events.k8s.io/v1 Event, or with `legacy` a core/v1 one (leader election's).

    The fields after `timestamp` are filled by the scheduler's event broadcaster: the
    Event's `name`, `event_time` (MicroTime), the regarding object's apiVersion and
    resourceVersion, the `related` object, `reporting_instance`, and the `series` of an
    isomorphic event seen again. A backend's `record_event` creates an Event without a
    series, and patches the series of the Event named `name` when it has one.
    """

    namespace: str
    involved_kind: str
    involved_name: str
    involved_uid: str
    type: Literal["Normal", "Warning"]
    reason: str
    action: str
    message: str
    reporting_controller: str
    timestamp: float
    involved_api_version: str = "v1"
    involved_resource_version: str = ""
    related: ObjectRef | None = None
    reporting_instance: str = ""
    name: str = ""
    event_time: datetime | None = None
    series: EventSeries | None = None
    legacy: bool = False

    @property
    def regarding(self) -> ObjectRef:
        return ObjectRef(
            self.involved_api_version,
            self.involved_kind,
            self.namespace,
            self.involved_name,
            self.involved_uid,
            self.involved_resource_version,
        )


def object_key(obj: Any) -> str:
    """`namespace/name` for namespaced objects, `name` otherwise."""
    meta = obj.metadata
    return f"{meta.namespace}/{meta.name}" if meta.namespace else meta.name


class Cluster(abc.ABC):
    """The API-server side of the scheduler."""

    kinds: KindRegistry

    # -- reading ------------------------------------------------------------------------
    @abc.abstractmethod
    def watch(self, kind: str, handler: EventHandler) -> None:
        """Replay existing objects of `kind` as ADDED, then deliver every change."""

    @abc.abstractmethod
    def list(self, kind: str) -> builtins.list[Any]:
        """The current objects of `kind` (from the backend's cache for `kube`)."""

    @abc.abstractmethod
    def get(self, kind: str, name: str, namespace: str | None = None) -> Any | None:
        """One object from the cache, or None."""

    @abc.abstractmethod
    async def wait_for_sync(self) -> None:
        """Return once every watched kind has delivered its initial list."""

    # -- writing ------------------------------------------------------------------------
    @abc.abstractmethod
    async def create(self, obj: K8sModel) -> K8sModel:
        """Create an object; its stored version (uid, resourceVersion ...) is returned."""

    @abc.abstractmethod
    async def update(self, obj: K8sModel) -> K8sModel:
        """Replace an object. ConflictError when its resourceVersion is stale."""

    @abc.abstractmethod
    async def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        """Delete an object. NotFoundError when it does not exist."""

    @abc.abstractmethod
    async def bind(self, pod: Pod, node_name: str) -> None:
        """The pods/binding subresource. ConflictError when the pod is already bound or
        gone (NotFoundError)."""

    @abc.abstractmethod
    async def update_pod_condition(
        self, pod: Pod, condition: PodCondition, nominated_node_name: str | None = None
    ) -> None:
        """Set a pod condition (PodScheduled) and, when given, `status.nominatedNodeName`
        (an empty string clears it). A pod that is gone is ignored; a write that fails
        raises, and the caller decides (the scheduler logs a failed PodScheduled condition,
        preemption fails on a failed DisruptionTarget condition, as upstream's)."""

    @abc.abstractmethod
    async def record_event(self, event: KubeEvent) -> None:
        """Write an Event: create it, or when it carries a series, patch that series onto
        the Event named `event.name` (creating it when there is none, as client-go's events
        library does). Raises EventWriteError when the Event was not written."""

    def events(self) -> builtins.list[KubeEvent]:
        """Events recorded so far, where the backend keeps them (memory does)."""
        return []


class Controller(Protocol):
    """An embedded-cluster controller a plugin package contributes through the hook
    `kubesched_cluster_controllers` (PV binder, PodGroup status ...)."""

    name: str

    def start(self, cluster: Cluster) -> None:
        """Begin watching; called once the cluster is loaded, inside the event loop."""
        ...

    def busy(self) -> bool:
        """Whether it has work in progress that may still change the cluster (a pending
        provisioning, say). A simulation is quiescent only when no controller is busy."""
        ...
