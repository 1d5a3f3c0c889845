"""A small fake Kubernetes API server for the `kube` backend's tests (aiohttp, 127.0.0.1).

It answers what kubesched sends as a real kube-apiserver does: list (pages with `limit` and
`continue`), watch (chunked JSON lines from a resourceVersion, bookmarks, `timeoutSeconds`,
410 for a compacted resourceVersion), get/create/update/patch/delete of any resource path
and of `status` subresources, `pods/binding` with its conflicts. Writes have a real API
server's semantics (`_store`: one watch event and a new resourceVersion for every
change, none for a write that changes nothing, graceful deletion of bound pods), and objects
get its defaulting and default admission (`_admission`: the system namespaces and
PriorityClasses exist from the start, a new Node is tainted
`node.kubernetes.io/not-ready:NoSchedule`, a pod gets its priority and default tolerations
and loses the status it was sent). Every request is recorded, and faults can be injected
(`fail`, below).

Faults. `fail(method, path, ...)` makes the next `times` requests that match misbehave:

- matching: `method` and `path` are shell patterns (`fnmatch`, where `*` also crosses
  `/`): `fail("POST", "/api/v1/namespaces/*/pods/*/binding", ...)` is every pod's binding,
  `fail("PATCH", "*/pods/*/status", ...)` every status patch, `"*"` any method. Besides the
  HTTP method, `method` may name the Kubernetes verb of a GET: `LIST` (a collection without
  `watch`) or `WATCH`; `GET` matches every GET, as before. The first matching fault with
  `times` left answers; `times=-1` never runs out.
- what happens, in this order: `commit=True` serves the request first, so it takes effect
  (a binding is stored, a pod deleted); then the answer waits `delay` seconds (longer than
  the client's request timeout, that is a timeout from the client's point of view); then
  `cut=True` aborts the TCP connection with no answer, else `code` (with `reason`,
  `message` and, when given, a `Retry-After: <retry_after>` header) is the answer, else the
  real answer (served now, after the delay, unless `commit` served it already). So:
  `fail(m, p, 500, "InternalError")` is the old error answer; `fail(m, p, cut=True)` a
  connection cut before the request took effect; `fail(m, p, cut=True, commit=True)` the
  mid-bind cut (the binding is stored, the client never hears of it); `fail(m, p,
  delay=5)` a slow answer whose request still takes effect, late; `fail(m, p, 504,
  "Timeout", delay=5)` one that never does; `fail("WATCH", p, cut=True, commit=True,
  delay=1)` a watch that streams for one second and is then cut mid-stream.
- `fail` returns the `Fault`; its `hits` counts the requests it answered.

The real client code runs against it: kubernetes_asyncio's session, kubesched's transport,
informers and writes. Tests that want a schedulable Node make it ready as a cluster would
(`make_node_ready`; core/tests/kube `kube_helpers.add_ready_node`).
"""

from __future__ import annotations

import asyncio
import copy
import fnmatch
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from kubesched.testing.apiserver._admission import ApiStatusError, Raw
from kubesched.testing.apiserver._store import STRATEGIC_MERGE_PATCH, FakeStore, Target, parse_path

__all__ = [
    "FakeApiServer",
    "Fault",
    "Recorded",
    "node_raw",
    "pod_raw",
    "status_body",
]


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    content_type: str
    body: Any
    user_agent: str = ""
    at: float = 0.0
    """The event loop's time when the request arrived."""
    authorization: str = ""
    accept: str = ""


@dataclass
class Fault:
    """One injected fault (`FakeApiServer.fail` documents the fields)."""

    method: str
    path: str
    code: int = 0
    reason: str = ""
    message: str = ""
    times: int = 1
    delay: float = 0.0
    cut: bool = False
    commit: bool = False
    retry_after: int | None = None
    hits: int = 0
    """Requests this fault answered."""

    def matches(self, method: str, verb: str, path: str) -> bool:
        if self.times == 0:
            return False
        if not (fnmatch.fnmatchcase(method, self.method) or fnmatch.fnmatchcase(verb, self.method)):
            return False
        return fnmatch.fnmatchcase(path, self.path)


@dataclass
class _Watcher:
    resource: str
    namespace: str | None
    selector: list[tuple[str, str, str]]
    bookmarks: bool
    queue: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)


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


def _watching(request: web.Request) -> bool:
    return request.query.get("watch") in ("true", "1")


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


class FakeApiServer(FakeStore):
    """The fake API server; `await start()` gives its URL, `await stop()` ends it."""

    def __init__(self) -> None:
        self._watchers: list[_Watcher] = []
        super().__init__()
        self.min_rv = 0
        """A watch from a resourceVersion below this is answered 410 Gone."""
        self.gone_as_http = False
        """Answer a too-old watch with HTTP 410 instead of a 200 and an ERROR event."""
        self.not_served: set[str] = set()
        self.requests: list[Recorded] = []
        self.faults: list[Fault] = []
        self.before_bind: Callable[[str, str, str], Awaitable[None] | None] | None = None
        self.page_limit_seen: list[int] = []
        self._snapshots: dict[str, tuple[int, list[Raw]]] = {}
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

    # -- test-side changes (no request recorded, no fault injected) ---------------------
    def add(self, resource: str, raw: Raw) -> Raw:
        """Create an object as a client's POST would (admission included)."""
        return self.create(resource, raw)

    def modify(self, resource: str, key: str, change: Callable[[Raw], None]) -> Raw:
        """Change a stored object in place, as another client's update would."""
        new = copy.deepcopy(self.objects[resource][key])
        change(new)
        return self.write(resource, key, new)

    def patch_path(self, path: str, body: Raw, content_type: str = STRATEGIC_MERGE_PATCH) -> Raw:
        """PATCH `path` (an API path, `/status` included) as a client would."""
        target = parse_path(path)
        assert target is not None and target.name is not None, path
        return self.patch(target, body, content_type)

    def fail(
        self,
        method: str,
        path: str,
        code: int = 0,
        reason: str = "",
        message: str = "",
        times: int = 1,
        *,
        delay: float = 0.0,
        cut: bool = False,
        commit: bool = False,
        retry_after: int | None = None,
    ) -> Fault:
        """Make the next `times` requests matching `method` and `path` (patterns) fail: an
        error answer `code`, a `delay` before answering, a `cut` connection, before or
        after (`commit`) the request took effect. The module docstring has the details."""
        if code and cut:
            raise ValueError("a fault answers with an error code or cuts the connection, not both")
        if not (code or cut or delay):
            raise ValueError("a fault needs an error code, a cut or a delay")
        if code and not reason:
            raise ValueError(f"a {code} answer needs its Status reason")
        fault = Fault(
            method, path, code, reason, message or reason, times, delay, cut, commit, retry_after
        )
        self.faults.append(fault)
        return fault

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
    def emit(self, resource: str, kind: str, obj: Raw) -> None:
        super().emit(resource, kind, obj)
        snapshot = self.history[-1][3]
        namespace = obj["metadata"].get("namespace")
        for w in self._watchers:
            if w.resource != resource or (w.namespace and w.namespace != namespace):
                continue
            if _matches(snapshot, w.selector):
                w.queue.put_nowait({"type": kind, "object": snapshot})

    def _fault(self, request: web.Request) -> Fault | None:
        method, path = request.method, request.path
        target = parse_path(path)
        verb = method
        if method == "GET" and target is not None and target.name is None:
            verb = "WATCH" if _watching(request) else "LIST"
        for fault in self.faults:
            if fault.matches(method, verb, path):
                fault.times -= 1 if fault.times > 0 else 0
                fault.hits += 1
                return fault
        return None

    async def _faulty(
        self, request: web.Request, fault: Fault, serve: Callable[[], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Answer `request` as `fault` says (the order is the module docstring's)."""
        served: web.StreamResponse | None = None
        if fault.commit:
            if _watching(request):
                # a watch that streams for `delay` seconds, then is cut or ended
                return await self._serve_watch_for(request, fault)
            served = await serve()
        if fault.delay:
            await asyncio.sleep(fault.delay)
        if fault.cut:
            if request.transport is not None:
                request.transport.abort()
            return web.Response()  # never sent: the connection is gone
        if fault.code:
            headers = {} if fault.retry_after is None else {"Retry-After": str(fault.retry_after)}
            response = _error(fault.code, fault.reason, fault.message)
            response.headers.update(headers)
            return response
        return served if served is not None else await serve()

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
                asyncio.get_running_loop().time(),
                request.headers.get("Authorization", ""),
                request.headers.get("Accept", ""),
            )
        )

        async def serve() -> web.StreamResponse:
            target = parse_path(request.path)
            if target is None or target.resource in self.not_served:
                return _error(404, "NotFound", "the server could not find the requested resource")
            try:
                return await self._serve(request, target, query, body)
            except ApiStatusError as exc:
                return _error(exc.code, exc.reason, exc.message, **exc.details)

        fault = self._fault(request)
        if fault is not None:
            return await self._faulty(request, fault, serve)
        return await serve()

    async def _serve_watch_for(self, request: web.Request, fault: Fault) -> web.StreamResponse:
        target = parse_path(request.path)
        assert target is not None
        return await self._watch(
            request, target, dict(request.query), end_after=fault.delay, abort=fault.cut
        )

    async def _serve(
        self, request: web.Request, target: Target, query: dict[str, str], body: Any
    ) -> web.StreamResponse:
        method = request.method
        if target.name is None:
            if method == "GET" and query.get("watch") in ("true", "1"):
                return await self._watch(request, target, query)
            if method == "GET":
                return self._list(target, query)
            if method == "POST":
                if target.namespace:
                    body.setdefault("metadata", {})["namespace"] = target.namespace
                return web.json_response(self.create(target.resource, body), status=201)
        elif target.subresource in (None, "status"):
            if method == "GET" and target.subresource is None:
                return web.json_response(self._existing(target)[1])
            if method == "PUT":
                return web.json_response(self.update(target, body))
            if method == "PATCH":
                return web.json_response(self.patch(target, body, request.content_type))
            if method == "DELETE" and target.subresource is None:
                return self._delete(target, query, body)
        elif target.subresource == "binding" and method == "POST":
            assert target.name is not None and target.namespace is not None
            if self.before_bind is not None:
                node = (body.get("target") or {}).get("name", "")
                waited = self.before_bind(target.namespace, target.name, node)
                if waited is not None:
                    await waited
            self.bind(target.namespace, target.name, body)
            return web.json_response(status_body(201, "", ""), status=201)
        return _error(405, "MethodNotAllowed", f"{method} {request.path} is not supported")

    def _delete(self, target: Target, query: dict[str, str], body: Any) -> web.Response:
        grace = query.get("gracePeriodSeconds")
        if grace is None and isinstance(body, dict):
            grace = body.get("gracePeriodSeconds")
        obj = self.delete(target, None if grace is None else int(grace))
        if target.resource == "v1/pods":  # the pod registry answers with the pod
            return web.json_response(obj)
        return web.json_response(status_body(200, "", "", name=target.name, kind=target.plural))

    def _list(self, target: Target, query: dict[str, str]) -> web.Response:
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
            # list items carry no apiVersion/kind; a stored object is never changed in place
            # (every write stores a new one), so the snapshot shares the rest with the store
            items = [
                {k: v for k, v in o.items() if k not in ("apiVersion", "kind")}
                for _, o in sorted(self.objects.get(target.resource, {}).items())
                if (not target.namespace or o["metadata"].get("namespace") == target.namespace)
                and _matches(o, selector)
            ]
            rv, offset = self.rv, 0
            snap_id = str(len(self._snapshots) + 1)
            self._snapshots[snap_id] = (rv, items)
        end = offset + limit if limit else len(items)
        meta: Raw = {"resourceVersion": str(rv)}
        if end < len(items):
            meta["continue"] = f"{snap_id}:{end}"
        return web.json_response({"kind": "List", "metadata": meta, "items": items[offset:end]})

    async def _watch(
        self,
        request: web.Request,
        target: Target,
        query: dict[str, str],
        *,
        end_after: float | None = None,
        abort: bool = False,
    ) -> web.StreamResponse:
        """Stream events from the query's resourceVersion until `timeoutSeconds`, a
        `drop_watches`, or (a fault) `end_after` seconds, then ended or, with `abort`,
        cut."""
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
            if end_after is not None:
                timeout = min(timeout, end_after)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    if abort:
                        assert request.transport is not None
                        request.transport.abort()
                        return response
                    break
                try:
                    item = await asyncio.wait_for(watcher.queue.get(), remaining)
                except TimeoutError:
                    continue  # the deadline passed: ended or cut above
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


def pod_raw(
    name: str,
    *,
    namespace: str = "default",
    cpu: str = "",
    node: str = "",
    scheduler: str = "default-scheduler",
) -> Raw:
    """A Pod as a client sends it (no status: the API server sets `phase: Pending`)."""
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
    }


def node_raw(name: str, *, cpu: str = "4", pods: str = "110", unschedulable: bool = False) -> Raw:
    """A Node as its kubelet registers it (status included, which a Node create keeps)."""
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
