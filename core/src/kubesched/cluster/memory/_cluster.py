"""MemoryCluster: the embedded API server simulations and tests run against.

It keeps what the scheduler relies on from a real API server: one resourceVersion counter
across all objects, optimistic concurrency (an update carrying a stale resourceVersion is a
conflict), the pods/binding subresource (binding a bound pod is a conflict), admission on
create (uids, timestamps, pod priority) and ordered watch events delivered on the event loop.

Objects handed out (by `get`, `list`, watch events and the return values of writes) are the
stored objects themselves, shared and never copied: callers must treat them as read-only and
write through `update`, `bind` or `update_pod_condition`. Every write stores a new object
and leaves the previous one untouched, so a MODIFIED event's `old` stays valid.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from datetime import timedelta
from typing import Any, Final, TypeVar

from kubesched._errors import AlreadyExistsError, ConflictError, NotFoundError
from kubesched.api import K8sModel, KindInfo, KindRegistry, Pod, PodCondition, PriorityClass
from kubesched.clock import Clock
from kubesched.cluster._interface import Cluster, Controller, EventHandler, KubeEvent, WatchEvent
from kubesched.cluster.memory._admission import Admission, AdmissionError
from kubesched.cluster.memory._copy import deep_copy, replaced
from kubesched.cluster.memory._events import EventStore
from kubesched.cluster.memory._graceful import (
    Terminations,
    grace_period_on_delete,
    shortened_grace_period,
)
from kubesched.cluster.memory._validation import validate_on_create
from kubesched.cluster.memory._watch import WatchDispatcher

__all__ = ["MAX_EVENTS", "MemoryCluster"]

MAX_EVENTS: Final = 100_000
"""Recorded Events kept; the oldest are dropped first (the API server expires them too)."""

_M = TypeVar("_M", bound=K8sModel)

_MODIFIED_DETAIL: Final = (
    "the object has been modified; please apply your changes to the latest version and try again"
)


class MemoryCluster(Cluster):
    """An in-memory API server with watch, binding and the contributed controllers.

    `uid_seed` seeds the generator of uids and generated names, so runs repeat exactly.
    """

    def __init__(self, kinds: KindRegistry, clock: Clock, *, uid_seed: int = 0) -> None:
        self.kinds = kinds
        self.clock = clock
        self._admission = Admission(clock, uid_seed)
        self._stores: dict[str, dict[str, Any]] = {}
        self._kind_info: dict[str, KindInfo] = {}
        self._resource_version = 0
        self._watch = WatchDispatcher()
        self._events = EventStore(MAX_EVENTS)
        self._controllers: builtins.list[Controller] = []
        self._terminations = Terminations(clock.now, self._terminated)

    # -- reading ------------------------------------------------------------------------
    def watch(self, kind: str, handler: EventHandler) -> None:
        """Replay the current objects of `kind` as ADDED (creation order), then every change.

        Nothing is delivered inside this call: see `flush`. A kind nobody registered simply
        never has events (a plugin may watch a kind whose package is not installed).
        """
        self._watch.add(kind, handler, list(self._stores.get(kind, {}).values()))

    def list(self, kind: str) -> builtins.list[Any]:
        return list(self._stores.get(kind, {}).values())

    def get(self, kind: str, name: str, namespace: str | None = None) -> Any | None:
        store = self._stores.get(kind)
        if store is None:
            return None
        return store.get(self._key(kind, name, namespace))

    async def wait_for_sync(self) -> None:
        return None

    def flush(self) -> None:
        """Deliver every queued watch event now, synchronously, including events written by
        handlers meanwhile. A handler's exception is re-raised after the queue is empty."""
        self._watch.flush()

    @property
    def resource_version(self) -> int:
        """The last resourceVersion handed out."""
        return self._resource_version

    # -- writing ------------------------------------------------------------------------
    async def create(self, obj: _M) -> _M:
        return self._create(obj)

    def create_many(self, objects: Iterable[_M]) -> builtins.list[_M]:
        """Create objects in order, synchronously, with the same admission as `create`.
        Stops at the first failure; the objects before it stay created."""
        return [self._create(obj) for obj in objects]

    async def update(self, obj: _M) -> _M:
        """Replace the stored object. A resourceVersion that is set and differs from the
        stored one is a conflict; an empty one is an unconditional update, as upstream."""
        info = self._info_of(obj)
        new = deep_copy(obj)
        meta = new.metadata  # type: ignore[attr-defined]
        self._normalize_namespace(info, meta)
        key = self._key_of(info, meta)
        store = self._stores.setdefault(info.kind, {})
        old = store.get(key)
        if old is None:
            raise NotFoundError(info.plural, meta.name)
        if meta.resource_version and meta.resource_version != old.metadata.resource_version:
            raise ConflictError(info.plural, meta.name, _MODIFIED_DETAIL)
        if meta.uid and meta.uid != old.metadata.uid:
            raise ConflictError(
                info.plural,
                meta.name,
                f"Precondition failed: UID in precondition: {meta.uid}, "
                f"UID in object meta: {old.metadata.uid}",
            )
        meta.uid = old.metadata.uid
        meta.creation_timestamp = old.metadata.creation_timestamp
        meta.generation = old.metadata.generation
        # upstream rest.BeforeUpdate: only a DELETE sets or changes the deletion fields
        meta.deletion_timestamp = old.metadata.deletion_timestamp
        meta.deletion_grace_period_seconds = old.metadata.deletion_grace_period_seconds
        # upstream: generation counts changes to spec only (each kind's PrepareForUpdate).
        if getattr(new, "spec", None) != getattr(old, "spec", None):
            meta.generation = (meta.generation or 0) + 1
        stored: _M = self._store(info.kind, key, new, old, own_metadata=True)
        return stored

    async def delete(
        self,
        kind: str,
        name: str,
        namespace: str | None = None,
        *,
        grace_period_seconds: int | None = None,
    ) -> None:
        """Delete an object; a pod bound to a node terminates gracefully first.

        Such a pod gets `deletionTimestamp` and `deletionGracePeriodSeconds` (a MODIFIED
        event), keeps its node, and is removed (DELETED) once the grace period has elapsed on
        the clock: `grace_period_seconds` if given (as `DeleteOptions.gracePeriodSeconds`),
        else its `terminationGracePeriodSeconds` (default 30). A pending pod, a finished one,
        or a grace period of 0 goes at once; deleting a pod already terminating may only
        shorten its grace period. Other kinds go at once.
        """
        info = self._info(kind)
        key = self._key(kind, name, namespace)
        obj = self._stores.get(kind, {}).get(key)
        if obj is None:
            raise NotFoundError(info.plural if info is not None else kind, name)
        if kind == "Pod" and self._delete_gracefully(key, obj, grace_period_seconds):
            return
        self._remove(kind, key)

    def _delete_gracefully(self, key: str, pod: Pod, grace_period_seconds: int | None) -> bool:
        """Start or shorten the pod's termination; False when it must be removed now."""
        # upstream: staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go (BeforeDelete)
        meta = pod.metadata
        generation = meta.generation
        if meta.deletion_timestamp is None:
            grace = grace_period_on_delete(pod, grace_period_seconds)
            if grace == 0:
                return False
            deadline = self.clock.wall_time() + timedelta(seconds=grace)
            # the first graceful deletion bumps a set generation; a shorter one does not
            generation = generation + 1 if generation else generation
            self._terminations.start(key, meta.uid, grace)
        else:
            shorter = shortened_grace_period(pod, grace_period_seconds)
            if shorter is None:
                return True  # the deletion under way goes on as it is
            if shorter == 0:
                return False
            grace = shorter
            current = meta.deletion_grace_period_seconds or 0
            deadline = meta.deletion_timestamp - timedelta(seconds=current - grace)
            self._terminations.shorten(key, meta.uid, grace)
        update = {
            "deletion_timestamp": deadline,
            "deletion_grace_period_seconds": grace,
            "generation": generation,
        }
        new = pod.model_copy(update={"metadata": meta.model_copy(update=update)})
        self._store("Pod", key, new, pod)
        return True

    def _remove(self, kind: str, key: str) -> None:
        obj = self._stores[kind].pop(key)
        if kind == "Pod":
            self._terminations.cancel(key)
        self._resource_version += 1
        self._watch.emit(WatchEvent("DELETED", kind, obj))

    def _terminated(self, key: str, uid: str) -> None:
        """A terminating pod's grace period has elapsed: the kubelet's final delete."""
        pod = self._stores.get("Pod", {}).get(key)
        if pod is not None and pod.metadata.uid == uid:
            self._remove("Pod", key)

    def terminating(self) -> int:
        """Pods whose grace period is still running."""
        return len(self._terminations)

    def termination_ends(self, name: str, namespace: str | None = None) -> float | None:
        """Clock time a terminating pod will be removed at, or None when it is not
        terminating (or not here)."""
        return self._terminations.ends_at(self._key("Pod", name, namespace))

    async def bind(self, pod: Pod, node_name: str) -> None:
        """The pods/binding subresource. The node is not checked, as upstream does not."""
        # upstream: pkg/registry/core/pod/storage/storage.go (setPodHostAndAnnotations)
        key = self._key("Pod", pod.metadata.name, pod.metadata.namespace)
        old: Pod | None = self._stores.get("Pod", {}).get(key)
        name = pod.metadata.name
        if old is None:
            raise NotFoundError("pods", name)
        if pod.metadata.uid and pod.metadata.uid != old.metadata.uid:
            raise ConflictError(
                "pods",
                name,
                f"Precondition failed: UID in precondition: {pod.metadata.uid}, "
                f"UID in object meta: {old.metadata.uid}",
            )
        if old.metadata.deletion_timestamp is not None:
            raise ConflictError(
                "pods/binding", name, f"pod {name} is being deleted, cannot be assigned to a host"
            )
        if old.spec.node_name:
            raise ConflictError(
                "pods/binding",
                name,
                f'pod {name} is already assigned to node "{old.spec.node_name}"',
            )
        spec = replaced(old.spec, node_name=node_name)
        conditions = self._with_condition(old, PodCondition(type="PodScheduled", status="True"))
        status = replaced(old.status, conditions=conditions)
        self._store("Pod", key, replaced(old, spec=spec, status=status), old)

    async def update_pod_condition(
        self, pod: Pod, condition: PodCondition, nominated_node_name: str | None = None
    ) -> None:
        """Set the condition (by type) and, when not None, `status.nominatedNodeName`.

        A pod that is gone is ignored, as the scheduler ignores NotFound on this patch; a
        patch that changes nothing stores and emits nothing (upstream skips it too).
        """
        # upstream: pkg/scheduler/schedule_one.go (updatePod), podutil.UpdatePodCondition
        key = self._key("Pod", pod.metadata.name, pod.metadata.namespace)
        old: Pod | None = self._stores.get("Pod", {}).get(key)
        if old is None:
            return
        current = old.status.condition(condition.type)
        changed = current is None or _condition_differs(current, condition)
        nominated = old.status.nominated_node_name
        if nominated_node_name is not None:
            changed = changed or nominated_node_name != nominated
            nominated = nominated_node_name
        if not changed:
            return
        conditions = self._with_condition(old, condition)
        status = replaced(old.status, conditions=conditions, nominated_node_name=nominated)
        self._store("Pod", key, replaced(old, status=status), old)

    async def record_event(self, event: KubeEvent) -> None:
        """Keep the Event as the API server would: a series is patched onto the Event of
        its name. Nothing is awaited, so events are written in the order recorded."""
        self._events.record(event)

    def events(self) -> builtins.list[KubeEvent]:
        return self._events.all()

    # -- controllers --------------------------------------------------------------------
    def add_controller(self, controller: Controller) -> None:
        self._controllers.append(controller)

    def start_controllers(self) -> None:
        """Start every added controller; call inside the event loop, once loaded."""
        for controller in self._controllers:
            controller.start(self)

    @property
    def controllers(self) -> builtins.list[Controller]:
        return list(self._controllers)

    def busy(self) -> bool:
        """Whether anything may still change: undelivered events, a pod still terminating or
        a busy controller."""
        return (
            self._watch.pending() > 0
            or len(self._terminations) > 0
            or any(c.busy() for c in self._controllers)
        )

    # -- internals ----------------------------------------------------------------------
    def _create(self, obj: _M) -> _M:
        info = self._info_of(obj)
        new = deep_copy(obj)
        meta = new.metadata  # type: ignore[attr-defined]
        self._normalize_namespace(info, meta)
        self._admission.admit(new, info.plural, self._priority_classes, self._priority_class)
        validate_on_create(new, info, self.kinds)
        key = self._key_of(info, meta)
        store = self._stores.setdefault(info.kind, {})
        if key in store:
            raise AlreadyExistsError(info.plural, meta.name)  # NewAlreadyExists
        stored: _M = self._store(info.kind, key, new, None, own_metadata=True)
        return stored

    def _store(
        self, kind: str, key: str, new: Any, old: Any | None, *, own_metadata: bool = False
    ) -> Any:
        """Store `new` under the next resourceVersion and tell the watchers. `own_metadata`:
        `new` is the store's own deep copy, so its metadata may be set in place."""
        self._resource_version += 1
        version = str(self._resource_version)
        if own_metadata:
            new.metadata.resource_version = version
        else:
            # A fresh metadata, never an edit: a copy made with model_copy(update=...) shares
            # its metadata with `old`, which must keep its own resourceVersion.
            new.metadata = replaced(new.metadata, resource_version=version)
        self._stores[kind][key] = new
        if old is None:
            self._watch.emit(WatchEvent("ADDED", kind, new))
        else:
            self._watch.emit(WatchEvent("MODIFIED", kind, new, old))
        return new

    def _with_condition(self, pod: Pod, condition: PodCondition) -> builtins.list[PodCondition]:
        """The pod's conditions with `condition` set by type; lastTransitionTime is now when
        the status changes, and kept otherwise."""
        current = pod.status.condition(condition.type)
        if current is not None and current.status == condition.status:
            transition = current.last_transition_time
        else:
            transition = condition.last_transition_time or self.clock.wall_time()
        new = replaced(condition, last_transition_time=transition)
        if current is None:
            return [*pod.status.conditions, new]
        return [new if c.type == condition.type else c for c in pod.status.conditions]

    def _priority_classes(self) -> builtins.list[PriorityClass]:
        return list(self._stores.get("PriorityClass", {}).values())

    def _priority_class(self, name: str) -> PriorityClass | None:
        pc: PriorityClass | None = self._stores.get("PriorityClass", {}).get(name)
        return pc

    def _info(self, kind: str) -> KindInfo | None:
        info = self._kind_info.get(kind)
        if info is None:
            info = self.kinds.by_kind(kind)
            if info is not None:
                self._kind_info[kind] = info
        return info

    def _info_of(self, obj: K8sModel) -> KindInfo:
        kind = getattr(obj, "kind", None)
        if not isinstance(kind, str):
            raise TypeError(f"{type(obj).__name__} has no `kind` field; cannot store it")
        info = self._info(kind)
        if info is None:
            raise AdmissionError(
                kind,
                obj.metadata.name,  # type: ignore[attr-defined]
                f'kind "{kind}" is not registered by any installed package',
                reason="invalid",
            )
        return info

    def _normalize_namespace(self, info: KindInfo, meta: Any) -> None:
        if info.namespaced:
            meta.namespace = meta.namespace or "default"
        else:
            meta.namespace = None

    @staticmethod
    def _key_of(info: KindInfo, meta: Any) -> str:
        return f"{meta.namespace}/{meta.name}" if info.namespaced else str(meta.name)

    def _key(self, kind: str, name: str, namespace: str | None) -> str:
        info = self._info(kind)
        if info is not None and not info.namespaced:
            return name
        return f"{namespace or 'default'}/{name}"


def _condition_differs(a: PodCondition, b: PodCondition) -> bool:
    return (
        a.status != b.status
        or a.reason != b.reason
        or a.message != b.message
        or (b.last_probe_time is not None and a.last_probe_time != b.last_probe_time)
    )
