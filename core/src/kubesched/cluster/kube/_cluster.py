"""KubeCluster: the Cluster interface over a real API server.

Reads come from informers (one per kind, started by the first `watch` of that kind) and
their caches; writes are requests: `pods/binding` to bind, a strategic merge patch of
`pods/status` for the PodScheduled condition and the nomination, events.k8s.io/v1 Events,
and JSON merge patches for `update`. The scheduler does not know it is not the memory
cluster.

Needs a running event loop: create it, watch and use it from inside one.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import random
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from kubesched._errors import ConflictError, NotFoundError
from kubesched.api import K8sModel, KindInfo, KindRegistry, Pod, PodCondition
from kubesched.clock import Clock, WallClock
from kubesched.cluster._events import EventWriteError
from kubesched.cluster._interface import Cluster, EventHandler, KubeEvent
from kubesched.cluster.kube._bodies import (
    EVENTS_API_VERSION,
    binding_body,
    event_body,
    legacy_event_body,
    merge_patch,
    pod_status_patch,
    series_patch,
)
from kubesched.cluster.kube._informer import Informer, InformerSettings
from kubesched.cluster.kube._resources import (
    collection_path,
    decode,
    encode,
    map_error,
    object_path,
)
from kubesched.cluster.kube._transport import (
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    ApiError,
    Transport,
)

__all__ = ["KubeCluster"]

_log = logging.getLogger("kubesched.cluster.kube")

_M = TypeVar("_M", bound=K8sModel)

# client-go util/retry DefaultBackoff: Steps 4, Duration 10ms, Factor 5.0, Jitter 0.1
_PATCH_BACKOFF_STEPS = 4
_PATCH_BACKOFF_INITIAL = 0.01
_PATCH_BACKOFF_FACTOR = 5.0
_PATCH_BACKOFF_JITTER = 0.1
_KNOWN_REASONS = frozenset(
    {
        "Unauthorized", "Forbidden", "NotFound", "AlreadyExists", "Conflict", "Gone",
        "Invalid", "ServerTimeout", "StoreReadError", "Timeout", "TooManyRequests",
        "BadRequest", "MethodNotAllowed", "NotAcceptable", "RequestEntityTooLarge",
        "UnsupportedMediaType", "InternalError", "Expired", "ServiceUnavailable",
    }
)  # fmt: skip
"""metav1's StatusReasons (apimachinery api/errors knownReasons): an answer with another
reason is judged by its code alone."""


def retriable(error: ApiError) -> bool:
    """Upstream pkg/scheduler/util Retriable (v1.34): an internal error (500), the service
    unavailable (503), or the connection refused."""
    unknown = error.reason not in _KNOWN_REASONS
    return (
        error.reason == "InternalError"
        or (unknown and error.code == 500)
        or error.reason == "ServiceUnavailable"
        or (unknown and error.code == 503)
        or error.network == "refused"
    )


# server-managed metadata never sent back in a merge patch
_SERVER_FIELDS = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields")


class KubeCluster(Cluster):
    """A real API server behind the Cluster interface.

    Events go through `events_transport` when given: a client of its own, as kube-scheduler
    gives its event broadcaster (cmd/kube-scheduler/app/options createClients), so they do
    not queue behind bindings in the scheduling client's rate limiter. The caller closes it.
    """

    def __init__(
        self,
        transport: Transport,
        kinds: KindRegistry,
        *,
        clock: Clock | None = None,
        events_transport: Transport | None = None,
        settings: InformerSettings | None = None,
        seed: int | None = None,
    ) -> None:
        self.kinds = kinds
        self.transport = transport
        self.clock = clock or WallClock()
        self.events_transport = events_transport or transport
        self._settings = settings or InformerSettings()
        self._rng = random.Random(seed)
        self._informers: dict[str, Informer] = {}
        self._registrations: builtins.list[asyncio.Future[None]] = []
        self._closed = False

    # -- reading ------------------------------------------------------------------------
    def watch(self, kind: str, handler: EventHandler) -> None:
        """Replay the cached objects of `kind` as ADDED, then deliver every change.

        The first watch of a kind starts its informer. Nothing is delivered inside this
        call. A kind no package registered never has events, as in the memory cluster.
        """
        info = self.kinds.by_kind(kind)
        if info is None:
            return
        informer = self.informer(info)
        self._registrations.append(informer.add_handler(handler))

    def connection_problem(self, grace: float) -> str | None:
        """What is wrong when some informer has failed to list or watch for longer than
        `grace` seconds (the API server is unreachable or refuses), else None."""
        now = asyncio.get_running_loop().time()
        for plural, informer in sorted((i.info.plural, i) for i in self._informers.values()):
            since = informer.failing_since
            if since is not None and now - since > grace:
                return f"{plural} informer failing for {now - since:.1f}s: {informer.last_error}"
        return None

    def informer(self, info: KindInfo) -> Informer:
        """The informer of `info`'s kind, started on first use."""
        informer = self._informers.get(info.kind)
        if informer is None:
            informer = Informer(self.transport, info, self._settings, self._rng)
            self._informers[info.kind] = informer
            informer.start()
        return informer

    @property
    def informers(self) -> dict[str, Informer]:
        return dict(self._informers)

    def list(self, kind: str) -> builtins.list[Any]:
        informer = self._informers.get(kind)
        return [] if informer is None else list(informer.store.values())

    def get(self, kind: str, name: str, namespace: str | None = None) -> Any | None:
        informer = self._informers.get(kind)
        if informer is None:
            return None
        if informer.info.namespaced:
            return informer.store.get(f"{namespace or 'default'}/{name}")
        return informer.store.get(name)

    async def wait_for_sync(self) -> None:
        """Return once every informer started so far has listed its kind and every handler
        registered so far has received the cached objects."""
        while True:
            pending = [i.synced.wait() for i in self._informers.values() if not i.synced.is_set()]
            registrations = [f for f in self._registrations if not f.done()]
            if not pending and not registrations:
                return
            await asyncio.gather(*pending, *registrations)

    @property
    def synced(self) -> bool:
        """Whether every started informer has listed and every handler is registered."""
        return all(i.synced.is_set() for i in self._informers.values()) and all(
            f.done() for f in self._registrations
        )

    async def close(self) -> None:
        """Stop the informers and close the connection."""
        if self._closed:
            return
        self._closed = True
        await asyncio.gather(*(i.stop() for i in self._informers.values()))
        await self.transport.close()

    # -- writing ------------------------------------------------------------------------
    def _info_of(self, obj: K8sModel) -> KindInfo:
        kind = getattr(obj, "kind", None)
        info = self.kinds.by_kind(kind) if isinstance(kind, str) else None
        if info is None:
            raise TypeError(f"{type(obj).__name__} is not a registered kind; cannot write it")
        return info

    async def create(self, obj: _M) -> _M:
        info = self._info_of(obj)
        meta = obj.metadata  # type: ignore[attr-defined]
        path = collection_path(info, meta.namespace or "default")
        body = encode(obj)
        for name in _SERVER_FIELDS:  # the server sets them; a resourceVersion is refused
            body.get("metadata", {}).pop(name, None)
        try:
            raw = await self.transport.request("POST", path, body=body)
        except ApiError as exc:
            raise map_error(exc, info.plural, meta.name) from exc
        created: _M = decode(info, raw)
        return created

    async def update(self, obj: _M) -> _M:
        """Write the fields of `obj` that differ from the cached (else fetched) object.

        Sent as JSON merge patches carrying `obj`'s resourceVersion, so a stale object is a
        ConflictError as with a full update; the status goes to the `status` subresource.
        Only fields kubesched's model declares are compared: a list that changed is sent
        whole as the model holds it. Nothing is sent when nothing changed.
        """
        info = self._info_of(obj)
        meta = obj.metadata  # type: ignore[attr-defined]
        namespace = (meta.namespace or "default") if info.namespaced else None
        current = self.get(info.kind, meta.name, namespace) or await self._fetch(info, obj)
        if meta.uid and meta.uid != current.metadata.uid:
            raise ConflictError(
                info.plural,
                meta.name,
                f"Precondition failed: UID in precondition: {meta.uid}, "
                f"UID in object meta: {current.metadata.uid}",
            )
        patch = merge_patch(encode(current), encode(obj))
        patch_meta = patch.get("metadata")
        if isinstance(patch_meta, dict):
            for name in _SERVER_FIELDS:
                patch_meta.pop(name, None)
            if not patch_meta:
                del patch["metadata"]
        status = patch.pop("status", None)
        version = meta.resource_version
        result: Any = obj
        path = object_path(info, meta.name, namespace)
        for target, body in ((path, patch), (f"{path}/status", {"status": status})):
            if not body or body == {"status": None}:
                continue
            if version:
                body.setdefault("metadata", {})["resourceVersion"] = version
            try:
                raw = await self.transport.request(
                    "PATCH", target, body=body, content_type=MERGE_PATCH
                )
            except ApiError as exc:
                raise map_error(exc, info.plural, meta.name) from exc
            result = decode(info, raw)
            version = result.metadata.resource_version
        updated: _M = result
        return updated

    async def _fetch(self, info: KindInfo, obj: K8sModel) -> Any:
        meta = obj.metadata  # type: ignore[attr-defined]
        try:
            raw = await self.transport.request("GET", object_path(info, meta.name, meta.namespace))
        except ApiError as exc:
            raise map_error(exc, info.plural, meta.name) from exc
        return decode(info, raw)

    async def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        info = self.kinds.by_kind(kind)
        if info is None:
            raise NotFoundError(kind, name)
        try:
            await self.transport.request("DELETE", object_path(info, name, namespace))
        except ApiError as exc:
            raise map_error(exc, info.plural, name) from exc

    async def bind(self, pod: Pod, node_name: str) -> None:
        """POST a Binding to `pods/<name>/binding` (DefaultBinder). The answer is a Status,
        which is not even parsed: only its code matters. 409 (already bound, uid mismatch,
        being deleted) is a ConflictError, 404 (pod gone) a NotFoundError."""
        namespace = pod.metadata.namespace or "default"
        path = f"/api/v1/namespaces/{namespace}/pods/{pod.metadata.name}/binding"
        try:
            await self.transport.request_raw("POST", path, body=binding_body(pod, node_name))
        except ApiError as exc:
            resource = "pods/binding" if exc.code == 409 else "pods"
            raise map_error(exc, resource, pod.metadata.name) from exc

    async def update_pod_condition(
        self, pod: Pod, condition: PodCondition, nominated_node_name: str | None = None
    ) -> None:
        """Patch the condition and nomination on `pods/status` (strategic merge), as
        upstream's updatePod: skipped when nothing changes against the cached pod; tried
        again on a retriable error (util.PatchPodStatus); a pod that is gone is ignored;
        other failures raise the ApiError (the caller logs or fails, as upstream's)."""
        namespace = pod.metadata.namespace or "default"
        current = self.get("Pod", pod.metadata.name, namespace) or pod
        if current.metadata.uid != pod.metadata.uid:
            return  # a new pod under the same name: not the one this attempt was about
        patch = pod_status_patch(current, condition, nominated_node_name, self.clock.wall_time())
        if patch is None:
            return
        path = f"/api/v1/namespaces/{namespace}/pods/{pod.metadata.name}/status"
        try:
            await self._retrying(
                lambda: self.transport.request_raw(
                    "PATCH", path, body=patch, content_type=STRATEGIC_MERGE_PATCH
                )
            )
        except ApiError as exc:
            if exc.code != 404:
                raise

    async def _retrying(self, send: Callable[[], Awaitable[object]]) -> None:
        """`send()`, tried again while it fails with a retriable error: client-go's
        retry.OnError(retry.DefaultBackoff, util.Retriable, ...) as util.PatchPodStatus
        calls it (4 tries, 10 ms growing fivefold, jitter 0.1)."""
        delay = _PATCH_BACKOFF_INITIAL
        for attempt in range(1, _PATCH_BACKOFF_STEPS + 1):
            try:
                await send()
                return
            except ApiError as exc:
                if attempt == _PATCH_BACKOFF_STEPS or not retriable(exc):
                    raise
            await asyncio.sleep(delay * (1 + _PATCH_BACKOFF_JITTER * self._rng.random()))
            delay *= _PATCH_BACKOFF_FACTOR

    async def record_event(self, event: KubeEvent) -> None:
        """Write an Event through the events client: POST it, or PATCH its series onto the
        Event of its name (strategic merge), POSTing it when the PATCH finds none (client-go
        events EventSinkImpl and recordEvent). A core/v1 Event goes to the core API.

        Failures are EventWriteErrors: `retry` for a connection error, 5xx or 429,
        `already_exists` for a create that found the name taken; a closed client is one
        that is not retried."""
        if self._closed:
            raise EventWriteError("the API client is closed")
        group = "/api/v1" if event.legacy else f"/apis/{EVENTS_API_VERSION}"
        path = f"{group}/namespaces/{event.namespace}/events"
        transport = self.events_transport
        try:
            if event.series is not None and not event.legacy:
                try:
                    await transport.request_raw(
                        "PATCH",
                        f"{path}/{event.name}",
                        body=series_patch(event.series),
                        content_type=STRATEGIC_MERGE_PATCH,
                    )
                    return
                except ApiError as exc:
                    if exc.code != 404:
                        raise
            now = datetime.now(UTC)
            body = legacy_event_body(event, now) if event.legacy else event_body(event, now)
            await transport.request_raw("POST", path, body=body)
        except ApiError as exc:
            # client-go events recordToSink: only a request that got no answer is retried
            # (the transport already retried a 429 or 5xx that carried Retry-After); any
            # answer from the server is a StatusError, "Server rejected event"
            transient = exc.code == 0
            exists = exc.code == 409 and exc.reason == "AlreadyExists"
            raise EventWriteError(str(exc), retry=transient, already_exists=exists) from exc
        except RuntimeError as exc:  # aiohttp: "Session is closed"
            raise EventWriteError(f"the API client is closed: {exc}") from exc
