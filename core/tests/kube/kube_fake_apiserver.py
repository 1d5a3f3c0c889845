"""A small fake Kubernetes API server for the `kube` backend's tests (aiohttp, 127.0.0.1).

It serves what kubesched uses, with the API server's answers: list (pages with `limit` and
`continue`), watch (chunked JSON lines from a resourceVersion, bookmarks, `timeoutSeconds`,
410 for a compacted resourceVersion), get/create/update/patch/delete of any resource path,
`pods/binding` with its conflicts, strategic merge patches of `status` (conditions merged by
type), events.k8s.io/v1 Event validation, and injectable failures. It records every request.

The real client code runs against it: kubernetes_asyncio's session, kubesched's transport,
informers and writes.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

Raw = dict[str, Any]


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    content_type: str
    body: Any
    user_agent: str = ""


@dataclass
class Fault:
    method: str
    path: str
    code: int
    reason: str
    message: str
    times: int


@dataclass
class _Watcher:
    resource: str
    namespace: str | None
    selector: list[tuple[str, str, str]]
    bookmarks: bool
    queue: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)


@dataclass
class _Target:
    resource: str  # "v1/pods", "coordination.k8s.io/v1/leases"
    namespace: str | None
    name: str | None
    subresource: str | None


_CLOSE = object()
_ABORT = object()


def status_body(code: int, reason: str, message: str, **details: Any) -> Raw:
    body: Raw = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success" if code < 400 else "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return body


def _error(code: int, reason: str, message: str, **details: Any) -> web.Response:
    return web.json_response(status_body(code, reason, message, **details), status=code)


def _parse_path(path: str) -> _Target | None:
    parts = [p for p in path.split("/") if p]
    if parts[:2] == ["api", "v1"]:
        group_version, rest = "v1", parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group_version, rest = f"{parts[1]}/{parts[2]}", parts[3:]
    else:
        return None
    namespace = None
    if len(rest) >= 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    if not rest:
        return None
    return _Target(
        f"{group_version}/{rest[0]}",
        namespace,
        rest[1] if len(rest) > 1 else None,
        rest[2] if len(rest) > 2 else None,
    )


def _parse_selector(text: str) -> list[tuple[str, str, str]]:
    out = []
    for term in filter(None, text.split(",")):
        for op in ("!=", "=="):
            if op in term:
                path, value = term.split(op, 1)
                out.append((path, op, value))
                break
        else:
            path, value = term.split("=", 1)
            out.append((path, "==", value))
    return out


def _field(obj: Raw, path: str) -> str:
    value: Any = obj
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return "" if value is None else str(value)


def _matches(obj: Raw, selector: list[tuple[str, str, str]]) -> bool:
    for path, op, value in selector:
        actual = _field(obj, path)
        if (actual == value) != (op == "=="):
            return False
    return True


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def strategic_merge_patch(target: Any, patch: Any) -> Any:
    """Enough of a strategic merge patch for pod status: `conditions` merge by `type`."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$"):
            continue
        if value is None:
            result.pop(key, None)
        elif key == "conditions" and isinstance(value, list):
            merged = [dict(c) for c in result.get(key) or []]
            for cond in value:
                for i, existing in enumerate(merged):
                    if existing.get("type") == cond.get("type"):
                        merged[i] = {
                            k: v for k, v in merge_patch(existing, cond).items() if v is not None
                        }
                        break
                else:
                    merged.append({k: v for k, v in cond.items() if v is not None})
            result[key] = merged
        else:
            result[key] = strategic_merge_patch(result.get(key), value)
    return result


class FakeApiServer:
    """The fake API server; `await start()` gives its URL, `await stop()` ends it."""

    def __init__(self) -> None:
        self.rv = 0
        self.objects: dict[str, dict[str, Raw]] = {}
        self.history: list[tuple[int, str, str, Raw]] = []
        self.min_rv = 0
        """A watch from a resourceVersion below this is answered 410 Gone."""
        self.gone_as_http = False
        """Answer a too-old watch with HTTP 410 instead of a 200 and an ERROR event."""
        self.not_served: set[str] = set()
        self.requests: list[Recorded] = []
        self.faults: list[Fault] = []
        self.before_bind: Callable[[str, str, str], Awaitable[None] | None] | None = None
        self.page_limit_seen: list[int] = []
        self._watchers: list[_Watcher] = []
        self._snapshots: dict[str, tuple[int, list[Raw]]] = {}
        self._uids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self.url = ""

    # -- lifecycle ----------------------------------------------------------------------
    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        sockets = getattr(site._server, "sockets", None)
        assert sockets
        port = sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def stop(self) -> None:
        self.drop_watches()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- test-side changes --------------------------------------------------------------
    def add(self, resource: str, raw: Raw) -> Raw:
        """Create an object as a client would (uid, resourceVersion, timestamp)."""
        obj = copy.deepcopy(raw)
        meta = obj.setdefault("metadata", {})
        key = self._key(meta.get("namespace"), meta["name"])
        store = self.objects.setdefault(resource, {})
        assert key not in store, f"{resource} {key} exists"
        meta.setdefault("uid", f"uid-{next(self._uids)}")
        meta.setdefault("creationTimestamp", datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
        self._store(resource, key, obj, "ADDED")
        return obj

    def modify(self, resource: str, key: str, change: Callable[[Raw], None]) -> Raw:
        obj = copy.deepcopy(self.objects[resource][key])
        change(obj)
        self._store(resource, key, obj, "MODIFIED")
        return obj

    def remove(self, resource: str, key: str) -> Raw:
        obj = self.objects[resource].pop(key)
        self.rv += 1
        obj = copy.deepcopy(obj)
        obj["metadata"]["resourceVersion"] = str(self.rv)
        self._emit(resource, "DELETED", obj)
        return obj

    def get(self, resource: str, key: str) -> Raw | None:
        return self.objects.get(resource, {}).get(key)

    def fail(
        self, method: str, path: str, code: int, reason: str, message: str = "", times: int = 1
    ) -> None:
        """Answer the next `times` requests `method path` with this error."""
        self.faults.append(Fault(method, path, code, reason, message or reason, times))

    def compact(self) -> None:
        """Forget history: watching from any resourceVersion before now is 410 Gone."""
        self.min_rv = self.rv

    def expire_watches(self) -> None:
        """Send every open watch a 410 ERROR event and end it (the watch cache fell behind)."""
        self.compact()
        for w in self._watchers:
            w.queue.put_nowait(
                {
                    "type": "ERROR",
                    "object": status_body(410, "Expired", "too old resource version"),
                }
            )
            w.queue.put_nowait(_CLOSE)

    def drop_watches(self, *, abort: bool = False) -> None:
        """End every open watch: cleanly, or by cutting the connection."""
        for w in self._watchers:
            w.queue.put_nowait(_ABORT if abort else _CLOSE)

    def bookmark(self) -> None:
        for w in self._watchers:
            if w.bookmarks:
                kind = w.resource.rsplit("/", 1)[1]
                w.queue.put_nowait(
                    {
                        "type": "BOOKMARK",
                        "object": {"kind": kind, "metadata": {"resourceVersion": str(self.rv)}},
                    }
                )

    @property
    def watcher_count(self) -> int:
        return len(self._watchers)

    def requests_to(self, method: str, path_part: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == method and path_part in r.path]

    # -- internals ----------------------------------------------------------------------
    @staticmethod
    def _key(namespace: str | None, name: str) -> str:
        return f"{namespace}/{name}" if namespace else name

    def _store(self, resource: str, key: str, obj: Raw, kind: str) -> None:
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        self.objects.setdefault(resource, {})[key] = obj
        self._emit(resource, kind, obj)

    def _emit(self, resource: str, kind: str, obj: Raw) -> None:
        snapshot = copy.deepcopy(obj)
        self.history.append((self.rv, resource, kind, snapshot))
        namespace = obj["metadata"].get("namespace")
        for w in self._watchers:
            if w.resource != resource or (w.namespace and w.namespace != namespace):
                continue
            if _matches(snapshot, w.selector):
                w.queue.put_nowait({"type": kind, "object": snapshot})

    def _fault(self, method: str, path: str) -> web.Response | None:
        for fault in self.faults:
            if fault.method == method and fault.path == path and fault.times > 0:
                fault.times -= 1
                return _error(fault.code, fault.reason, fault.message)
        return None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body: Any = None
        if request.can_read_body:
            text = await request.text()
            body = json.loads(text) if text else None
        query = dict(request.query)
        self.requests.append(
            Recorded(
                request.method,
                request.path,
                query,
                request.content_type,
                body,
                request.headers.get("User-Agent", ""),
            )
        )
        injected = self._fault(request.method, request.path)
        if injected is not None:
            return injected
        target = _parse_path(request.path)
        if target is None:
            return _error(404, "NotFound", "the server could not find the requested resource")
        if target.resource in self.not_served:
            return _error(404, "NotFound", "the server could not find the requested resource")
        method = request.method
        if target.name is None:
            if method == "GET" and query.get("watch") in ("true", "1"):
                return await self._watch(request, target, query)
            if method == "GET":
                return self._list(target, query)
            if method == "POST":
                return self._create(target, body)
        elif target.subresource is None:
            if method == "GET":
                return self._read(target)
            if method == "PUT":
                return self._update(target, body)
            if method == "PATCH":
                return self._patch(target, body, request.content_type)
            if method == "DELETE":
                return self._delete(target)
        elif target.subresource == "binding" and method == "POST":
            return await self._bind(target, body)
        elif target.subresource == "status" and method == "PATCH":
            return self._patch(target, body, request.content_type)
        return _error(405, "MethodNotAllowed", f"{method} {request.path} is not supported")

    def _plural(self, target: _Target) -> str:
        return target.resource.rsplit("/", 1)[1]

    def _list(self, target: _Target, query: dict[str, str]) -> web.Response:
        token = query.get("continue")
        limit = int(query.get("limit", "0") or 0)
        self.page_limit_seen.append(limit)
        if token:
            snap_id, offset_text = token.split(":")
            if snap_id not in self._snapshots:
                return _error(410, "Expired", "the provided continue parameter is too old")
            rv, items = self._snapshots[snap_id]
            offset = int(offset_text)
        else:
            selector = _parse_selector(query.get("fieldSelector", ""))
            items = [
                copy.deepcopy(o)
                for k, o in sorted(self.objects.get(target.resource, {}).items())
                if (not target.namespace or o["metadata"].get("namespace") == target.namespace)
                and _matches(o, selector)
            ]
            for item in items:  # list items carry no apiVersion/kind
                item.pop("apiVersion", None)
                item.pop("kind", None)
            rv, offset = self.rv, 0
            snap_id = str(len(self._snapshots) + 1)
            self._snapshots[snap_id] = (rv, items)
        end = offset + limit if limit else len(items)
        meta: Raw = {"resourceVersion": str(rv)}
        if end < len(items):
            meta["continue"] = f"{snap_id}:{end}"
        return web.json_response({"kind": "List", "metadata": meta, "items": items[offset:end]})

    async def _watch(
        self, request: web.Request, target: _Target, query: dict[str, str]
    ) -> web.StreamResponse:
        since = int(query.get("resourceVersion") or 0)
        if since < self.min_rv and self.gone_as_http:
            return _error(410, "Expired", f"too old resource version: {since} ({self.min_rv})")
        watcher = _Watcher(
            target.resource,
            target.namespace,
            _parse_selector(query.get("fieldSelector", "")),
            query.get("allowWatchBookmarks") == "true",
        )
        response = web.StreamResponse()
        response.content_type = "application/json"
        response.enable_chunked_encoding()
        await response.prepare(request)
        if since < self.min_rv:
            error = status_body(
                410, "Expired", f"too old resource version: {since} ({self.min_rv})"
            )
            await response.write(json.dumps({"type": "ERROR", "object": error}).encode() + b"\n")
            await response.write_eof()
            return response
        now = self.rv
        self._watchers.append(watcher)
        try:
            for rv, resource, kind, obj in list(self.history):
                if resource != target.resource or not since < rv <= now:
                    continue
                if target.namespace and obj["metadata"].get("namespace") != target.namespace:
                    continue
                if _matches(obj, watcher.selector):
                    event = {"type": kind, "object": obj}
                    await response.write(json.dumps(event).encode() + b"\n")
            timeout = float(query.get("timeoutSeconds") or 3600)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                try:
                    item = await asyncio.wait_for(watcher.queue.get(), remaining)
                except TimeoutError:
                    break
                if item is _CLOSE:
                    break
                if item is _ABORT:
                    assert request.transport is not None
                    request.transport.abort()
                    return response
                await response.write(json.dumps(item).encode() + b"\n")
            await response.write_eof()
        except (ConnectionResetError, RuntimeError):
            pass
        finally:
            self._watchers.remove(watcher)
        return response

    def _read(self, target: _Target) -> web.Response:
        assert target.name is not None
        obj = self.get(target.resource, self._key(target.namespace, target.name))
        if obj is None:
            return _error(404, "NotFound", f'{self._plural(target)} "{target.name}" not found')
        return web.json_response(obj)

    def _create(self, target: _Target, body: Raw) -> web.Response:
        meta = body.setdefault("metadata", {})
        if target.namespace:
            meta["namespace"] = target.namespace
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = f"{meta['generateName']}{next(self._uids):05d}"
        if target.resource == "events.k8s.io/v1/events":
            invalid = _validate_event(body)
            if invalid:
                return _error(422, "Invalid", f"Event.events.k8s.io is invalid: {invalid}")
        if meta.get("resourceVersion"):
            return _error(
                422,
                "Invalid",
                "metadata.resourceVersion: should not be set on objects to be created",
            )
        meta.pop("uid", None)  # the server always assigns its own
        key = self._key(target.namespace, meta["name"])
        if key in self.objects.get(target.resource, {}):
            plural = self._plural(target)
            return _error(409, "AlreadyExists", f'{plural} "{meta["name"]}" already exists')
        return web.json_response(self.add(target.resource, body), status=201)

    def _conflict(self, target: _Target, detail: str) -> web.Response:
        plural = self._plural(target)
        message = f'Operation cannot be fulfilled on {plural} "{target.name}": {detail}'
        return _error(409, "Conflict", message)

    def _update(self, target: _Target, body: Raw) -> web.Response:
        assert target.name is not None
        key = self._key(target.namespace, target.name)
        old = self.get(target.resource, key)
        if old is None:
            return _error(404, "NotFound", f'{self._plural(target)} "{target.name}" not found')
        version = body.get("metadata", {}).get("resourceVersion")
        if version and version != old["metadata"]["resourceVersion"]:
            return self._conflict(
                target,
                "the object has been modified; please apply your changes to the latest "
                "version and try again",
            )
        new = copy.deepcopy(body)
        new["metadata"]["uid"] = old["metadata"]["uid"]
        new["metadata"]["creationTimestamp"] = old["metadata"].get("creationTimestamp")
        self._store(target.resource, key, new, "MODIFIED")
        return web.json_response(new)

    def _patch(self, target: _Target, body: Raw, content_type: str) -> web.Response:
        assert target.name is not None
        key = self._key(target.namespace, target.name)
        old = self.get(target.resource, key)
        if old is None:
            return _error(404, "NotFound", f'{self._plural(target)} "{target.name}" not found')
        version = (body.get("metadata") or {}).get("resourceVersion")
        if version and version != old["metadata"]["resourceVersion"]:
            return self._conflict(
                target,
                "the object has been modified; please apply your changes to the latest "
                "version and try again",
            )
        if target.subresource == "status":
            body = {"status": body.get("status")}  # the status subresource ignores the rest
        elif "status" in body:
            body = {k: v for k, v in body.items() if k != "status"}
        if content_type == "application/strategic-merge-patch+json":
            new = strategic_merge_patch(old, body)
        elif content_type == "application/merge-patch+json":
            new = merge_patch(old, body)
        else:
            return _error(415, "UnsupportedMediaType", f"{content_type} is not supported")
        new["metadata"]["uid"] = old["metadata"]["uid"]
        self._store(target.resource, key, new, "MODIFIED")
        return web.json_response(new)

    def _delete(self, target: _Target) -> web.Response:
        assert target.name is not None
        key = self._key(target.namespace, target.name)
        if self.get(target.resource, key) is None:
            return _error(404, "NotFound", f'{self._plural(target)} "{target.name}" not found')
        self.remove(target.resource, key)
        return web.json_response(status_body(200, "", ""))

    async def _bind(self, target: _Target, body: Raw) -> web.Response:
        assert target.name is not None and target.namespace is not None
        node = (body.get("target") or {}).get("name", "")
        if self.before_bind is not None:
            waited = self.before_bind(target.namespace, target.name, node)
            if waited is not None:
                await waited
        key = self._key(target.namespace, target.name)
        pod = self.get("v1/pods", key)
        name = target.name
        if pod is None:
            return _error(404, "NotFound", f'pods "{name}" not found')
        binding = _Target("v1/pods/binding", target.namespace, name, None)
        uid = (body.get("metadata") or {}).get("uid")
        if uid and uid != pod["metadata"]["uid"]:
            return self._conflict(
                binding,
                f"Precondition failed: UID in precondition: {uid}, "
                f"UID in object meta: {pod['metadata']['uid']}",
            )
        if pod["metadata"].get("deletionTimestamp"):
            return self._conflict(
                binding, f"pod {name} is being deleted, cannot be assigned to a host"
            )
        current = (pod.get("spec") or {}).get("nodeName")
        if current:
            return self._conflict(binding, f'pod {name} is already assigned to node "{current}"')

        def assign(obj: Raw) -> None:
            obj.setdefault("spec", {})["nodeName"] = node
            conditions = obj.setdefault("status", {}).setdefault("conditions", [])
            conditions[:] = [c for c in conditions if c.get("type") != "PodScheduled"]
            conditions.append({"type": "PodScheduled", "status": "True"})

        self.modify("v1/pods", key, assign)
        return web.json_response(status_body(201, "", ""), status=201)


def _validate_event(body: Raw) -> str:
    """The required fields events.k8s.io/v1 validation checks (ValidateEventCreate)."""
    for name in ("eventTime", "reportingController", "reportingInstance", "action", "reason"):
        if not body.get(name):
            return f"{name}: Required value"
    if body.get("type") not in ("Normal", "Warning"):
        return f"type: Unsupported value: {body.get('type')!r}"
    regarding = body.get("regarding") or {}
    if regarding.get("namespace") != body["metadata"].get("namespace"):
        return "regarding.namespace: Invalid value: does not match event.namespace"
    if len(body.get("note") or "") > 1024:
        return "note: Too long: must have at most 1024 bytes"
    return ""


def pod_raw(
    name: str,
    *,
    namespace: str = "default",
    cpu: str = "",
    node: str = "",
    scheduler: str = "default-scheduler",
    phase: str = "Pending",
) -> Raw:
    container: Raw = {"name": "c", "image": "busybox", "command": ["sleep", "3600"]}
    if cpu:
        container["resources"] = {"requests": {"cpu": cpu}}
    spec: Raw = {"schedulerName": scheduler, "containers": [container]}
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
        "status": {"phase": phase},
    }


def node_raw(name: str, *, cpu: str = "4", pods: str = "110", unschedulable: bool = False) -> Raw:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {"unschedulable": unschedulable} if unschedulable else {},
        "status": {
            "capacity": {"cpu": cpu, "memory": "8Gi", "pods": pods},
            "allocatable": {"cpu": cpu, "memory": "8Gi", "pods": pods},
        },
    }
